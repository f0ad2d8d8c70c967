"""Issue 22 §2 in Chromium: the lead allows stopping on the dashboard; bob follows the order the
page gives (the likely relevant first), reads how many relevant candidates are estimated to be
left and the probability the stop rests on (the model alone, at 70 %: no random check), and
finishes the query with s once the estimate allows it. carol does the same, the lead approves
and freezes, and the version page and a run's report count what was left as not judged
(stopped): unjudged."""

from __future__ import annotations

import re

import pytest

from annotation.models import Assignment, Judgment
from annotation.models.stopping import StoppedCandidate
from evaluation.models import QueryResult
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from tests.annotation.stopping_factories import (
    POOL,
    RESOLVED,
    follow_the_order,
    stoppable_project,
)

pytestmark = pytest.mark.e2e


def test_an_annotator_follows_the_order_and_stops_when_allowed(
    personas, live_server, sign_in, api_client_for
):
    setup = stoppable_project(personas)
    base = f"{live_server.url}/projects/{setup.project.pk}"

    lead = sign_in("alice")
    lead.goto(f"{base}/dashboard/")
    lead.select_option("#stopping-form select", "1")
    lead.click("#stopping-form button[type=submit]")
    lead.get_by_text("Annotators may now finish a query once the estimate allows it.").wait_for()

    page = sign_in("bob")
    page.goto(f"{base}/annotate/{setup.query.pk}/")
    estimate = page.locator("#stop-figure")
    assert f"among the {POOL} not graded yet" in estimate.inner_text()
    method = page.locator("#stop-method").text_content()
    assert "at least 70% probability on 95% of the relevant candidates" in method
    assert "no candidate is drawn at random" in method
    stop = page.locator("#stop-query")
    assert stop.is_disabled()
    # No candidate is drawn at random, so none wears the "random check" badge (a badge the
    # page hid with the hidden attribute still showed when its style said inline-block).
    assert page.locator(".candidate .badge.check").count() == POOL
    assert page.get_by_text("random check").filter(visible=True).count() == 0
    page.click("#show-help")
    assert page.locator("dialog[open]").get_by_text("Finish this query here once").count() == 1
    page.keyboard.press("?")

    shown = []
    for _ in range(POOL):
        if stop.is_enabled():
            break
        card = page.locator(".candidate.focused")
        cid = int(card.get_attribute("data-candidate-id"))
        checking = "is-check" in (card.get_attribute("class") or "")
        shown.append((cid, checking))
        with page.expect_response(lambda r: "/stop/" in r.url and r.request.method == "GET"):
            page.keyboard.press(str(setup.grade_of(cid)))
        page.wait_for_timeout(100)  # the page applies the estimate it fetched
    assert stop.is_enabled(), shown
    # The relevant candidates first; the stop rests on the model alone, no random check.
    assert {cid for cid, _ in shown[:2]} == setup.relevant
    assert sum(checking for _, checking in shown) == 0
    assert "You may finish this query here." in estimate.inner_text()
    assert "(a stop needs 70%)" in estimate.inner_text()
    judged = len(shown)
    page.keyboard.press("s")
    page.get_by_text(f"{POOL - judged} candidates not judged (stopped)").wait_for()
    assert stop.is_disabled()
    assert Assignment.objects.get(query=setup.query, annotator=personas.bob).status == "done"
    assert Judgment.objects.filter(annotator=personas.bob).count() == judged
    orders = set(Judgment.objects.filter(annotator=personas.bob).values_list("order", flat=True))
    assert orders == {"likely"}

    carol = api_client_for(personas.carol)
    follow_the_order(carol, setup, personas.carol)
    assert (
        carol.post(
            f"/api/v1/projects/{setup.project.pk}/queries/{setup.query.pk}/stop/"
        ).status_code
        == 200
    )
    left = set(StoppedCandidate.objects.values_list("candidate_id", flat=True))
    assert len(left) == POOL - judged

    lead.goto(f"{base}/review/")
    lead.click("button[name=all_resolved]")
    lead.goto(f"{base}/goldsets/")
    lead.click("text=Freeze approved queries")
    lead.wait_for_url(lambda url: "/goldsets/v1/" in url)
    assert lead.locator("#stopped-candidates td.num").inner_text() == str(POOL - judged)
    recall = float(lead.locator("#estimated-recall td.num").inner_text())
    assert 0.95 <= recall < 1

    version = setup.project.golden_set_versions.get()
    retriever = retriever_save(project=setup.project, name="bm25", kind="bm25")
    run = evaluation_run_create(
        project=setup.project, retriever=retriever, version=version, ks=[5, 10], enqueue=False
    )
    run = evaluation_run_execute_inline(run_id=run.pk)
    top = list(
        dict.fromkeys(QueryResult.objects.get(run=run, query_id=str(setup.query.pk)).ranked_ids)
    )[:10]
    stopped_chunks = set(
        setup.project.chunks.filter(candidates__in=left).values_list("chunk_id", flat=True)
    )
    # The page shows the headline K (5): what the annotators left counts as unjudged there.
    unjudged = len(set(top[:5]) & stopped_chunks)
    assert unjudged > 0
    lead.goto(f"{base}/runs/{run.pk}/")
    said = lead.locator("#judged").inner_text()
    assert re.search(rf"\b{unjudged} unjudged chunks? in the top 5", said), said
    # The fully judged queries and the stopped one: the mean judged@5.
    assert f"{(RESOLVED + (5 - unjudged) / 5) / (RESOLVED + 1):.3f}" in said
