"""`n` on a query with chunks left ungraded says how many, in the reader's language, and only a
second `n` moves on; on a fully graded query one `n` moves on (to the next unfinished query)."""

from __future__ import annotations

import pytest

from annotation.services.assignment import queries_assign
from tests.annotation.factories import make_chunks, make_query, pool

pytestmark = pytest.mark.e2e


def test_next_on_a_half_graded_query_says_what_is_left(personas, live_server, sign_in):
    project = personas.project
    chunks = make_chunks(project)
    first = make_query(project, "how do I install a python package with pip")
    second = make_query(project, "how do I read a json file")
    for query in (first, second):
        pool(query, chunks[:3])
    queries_assign(project=project, per_query=2)
    page = sign_in("bob")
    page.goto(f"{live_server.url}/projects/{project.pk}/annotate/{first.pk}/")
    page.locator(".candidate.focused").wait_for()
    page.keyboard.press("2")
    page.get_by_text("All changes saved").wait_for()
    page.keyboard.press("n")
    hint = page.locator("#next-hint")
    hint.get_by_text(
        "2 chunks of this query are not graded yet: grade them, or press n again to move on."
    ).wait_for()
    assert page.url.rstrip("/").endswith(f"/annotate/{first.pk}")
    page.keyboard.press("n")
    page.wait_for_url(f"**/annotate/{second.pk}/")
    for _ in range(3):
        page.keyboard.press("0")
    page.get_by_text("All changes saved").wait_for()
    page.keyboard.press("n")  # at once: the next unfinished query is the half-graded first one
    page.wait_for_url(f"**/annotate/{first.pk}/")
