"""An annotator grades a query with the keyboard, sees "saved", reloads and sees the grades."""

from __future__ import annotations

import pytest

from annotation.models import Judgment
from tests.annotation.factories import judging_setup

pytestmark = pytest.mark.e2e


def test_an_annotator_grades_a_query_by_keyboard_and_the_grades_survive_a_reload(
    personas, live_server, sign_in
):
    setup = judging_setup(personas, per_query=3)
    query, _ = setup.first()
    page = sign_in("bob")
    page.goto(f"{live_server.url}/projects/{personas.project.pk}/annotate/{query.pk}/")
    cards = page.locator(".candidate")
    assert cards.count() == 3
    assert "focused" in (cards.nth(0).get_attribute("class") or "")

    page.keyboard.press("2")  # grades the focused chunk and moves to the next one
    page.keyboard.press("0")
    page.keyboard.press("k")  # back up to the second chunk and change its grade
    page.keyboard.press("1")
    page.keyboard.press("0")
    for i in range(3):
        page.locator(f".candidate >> nth={i} >> .save-state.is-saved").wait_for()
    page.get_by_text("All changes saved").wait_for()
    assert page.locator("#judged-count").inner_text() == "3"

    ids = [int(cards.nth(i).get_attribute("data-candidate-id")) for i in range(3)]
    saved = dict(
        Judgment.objects.filter(annotator=personas.bob).values_list("candidate_id", "grade")
    )
    assert saved == {ids[0]: 2, ids[1]: 1, ids[2]: 0}

    page.reload()
    grades = [page.locator(".candidate").nth(i).get_attribute("data-grade") for i in range(3)]
    assert grades == ["2", "1", "0"]
    assert page.locator(".candidate >> nth=1 >> button.grade.chosen").inner_text().startswith("1")
    assert page.locator(".save-state.is-saved").count() == 3

    page.keyboard.press("?")
    assert page.locator("#help-dialog").is_visible()
    page.keyboard.press("Escape")
    page.keyboard.press("g")
    assert page.locator("#guidelines-dialog").is_visible()
