"""The benches that speak HTTP sign their clients in with a session made beforehand
(bench/benchlib.py ``session_key``); a session naming a sign-in backend the settings do not list
is anonymous, and the benches then measured the sign-in page (compare_first_request.py stopped
on it after the backend moved to config/)."""

from __future__ import annotations

from django.test import Client

from bench.benchlib import session_key


def test_a_bench_session_opens_the_project_list(personas):
    client = Client()
    client.cookies["sessionid"] = session_key(personas.alice)
    assert client.get("/").status_code == 200  # signed out: a redirect to the sign-in
