"""A freshly opened query says nothing about saving until a change of the annotator's has
reached the server: "All changes saved" before anything was done would be untrue."""

from __future__ import annotations

import pytest

from tests.annotation.factories import judging_setup

pytestmark = pytest.mark.e2e


def test_a_fresh_query_says_nothing_about_saving_until_a_grade_is_saved(
    personas, live_server, sign_in
):
    setup = judging_setup(personas, per_query=2)
    query, _ = setup.first()
    page = sign_in("bob")
    page.goto(f"{live_server.url}/projects/{personas.project.pk}/annotate/{query.pk}/")
    page.locator(".candidate.focused").wait_for()  # the page's script has run
    page.wait_for_timeout(500)
    status = page.locator("#sync-status")
    assert "saved" not in status.inner_text().lower()
    assert "sync-ok" not in (status.get_attribute("class") or "")

    page.keyboard.press("2")
    page.get_by_text("All changes saved").wait_for()
