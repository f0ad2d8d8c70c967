"""Once a lead adjudicated a query, its annotators' page is read-only: it says why, its grade
buttons, flags and note cannot change, and the keys move between chunks without grading (no
save is sent)."""

from __future__ import annotations

import pytest

from annotation.models import Judgment, QueryAnnotation, QueryReview
from annotation.services.adjudication import query_adjudicate
from tests.annotation.factories import grade_all, judging_setup

pytestmark = pytest.mark.e2e


def test_an_adjudicated_query_is_read_only_and_its_keys_only_move(
    personas, live_server, sign_in, api_client_for
):
    setup = judging_setup(personas, per_query=3)
    query, candidates = setup.first()
    grade_all(api_client_for(personas.bob), personas.project, candidates, [2, 2, 2])
    grade_all(api_client_for(personas.carol), personas.project, candidates, [0, 0, 0])
    review = QueryReview.objects.get(query=query)
    assert review.state == "flagged"
    query_adjudicate(
        project=personas.project,
        query_id=query.pk,
        by=personas.alice,
        version=review.version,
        grades={c.pk: 1 for c in candidates},
        reason="guideline_gap",
    )
    before = list(Judgment.objects.order_by("pk").values("pk", "grade", "note"))

    page = sign_in("bob")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.method in ("PUT", "POST") else None)
    page.goto(f"{live_server.url}/projects/{personas.project.pk}/annotate/{query.pk}/")

    reason = page.locator("#read-only-reason")
    assert (
        "adjudicated" in reason.inner_text() and "can no longer be changed" in reason.inner_text()
    )
    assert page.locator("button.grade:enabled").count() == 0
    assert page.locator("#query-flags input[type=checkbox]:enabled").count() == 0
    assert page.locator("#query-note").get_attribute("readonly") is not None

    cards = page.locator(".candidate")
    assert "focused" in (cards.nth(0).get_attribute("class") or "")
    page.keyboard.press("0")  # a grade key grades nothing and does not move on
    assert "focused" in (cards.nth(0).get_attribute("class") or "")
    assert cards.nth(0).get_attribute("data-grade") == "2"
    assert "Read-only" in page.locator("#sync-status").inner_text()
    page.keyboard.press("j")  # moving works
    assert "focused" in (cards.nth(1).get_attribute("class") or "")
    page.keyboard.press("k")
    assert "focused" in (cards.nth(0).get_attribute("class") or "")

    page.locator("#query-note").click()
    page.keyboard.type("late thought")
    page.locator("#query-flags input[type=checkbox]").first.click(force=True)
    page.keyboard.press("Escape")
    page.wait_for_timeout(1000)
    assert sent == []
    assert list(Judgment.objects.order_by("pk").values("pk", "grade", "note")) == before
    assert not QueryAnnotation.objects.filter(query=query, annotator=personas.bob).exists()
