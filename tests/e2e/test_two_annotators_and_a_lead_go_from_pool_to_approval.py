"""The whole loop in a browser: pool → assign → grade → flag → adjudicate → approve."""

from __future__ import annotations

import re

import pytest

from annotation.models import QueryReview, Resolution
from tests.annotation.factories import make_chunks, make_query

pytestmark = pytest.mark.e2e


def test_two_annotators_and_a_lead_go_from_pool_to_approval(
    personas, live_server, sign_in, celery_worker_process
):
    project = personas.project
    make_chunks(project)
    query = make_query(project, "how do I install a python package with pip", category="howto")
    base = f"{live_server.url}/projects/{project.pk}"

    # The lead pools the query with the built-in retrievers and assigns it.
    lead = sign_in("alice")
    lead.goto(f"{base}/pools/")
    lead.fill("input[name=build-k]", "2")
    lead.click("text=Pool every query")
    lead.get_by_text("A worker is building the pools").wait_for()
    lead.locator("#pool-build li", has_text="new candidates").first.wait_for(timeout=120_000)
    lead.click("text=Assign queries")
    lead.get_by_text("new assignments").wait_for()
    n = query.candidates.count()
    assert n >= 2

    # Two annotators grade it, two grades apart on the first chunk.
    first_card = None
    for username, first_grade in (("bob", "2"), ("carol", "0")):
        page = sign_in(username)
        page.goto(f"{base}/annotate/")
        page.click("text=Start annotating")
        page.wait_for_url(f"**/annotate/{query.pk}/")
        shown_first = page.locator(".candidate[data-candidate-id]").first
        if username == "bob":
            first_card = shown_first.get_attribute("data-candidate-id")
        assert shown_first.get_attribute("data-candidate-id") == first_card
        page.keyboard.press(first_grade)
        for _ in range(n - 1):
            page.keyboard.press("0")
        page.get_by_text("All changes saved").wait_for()
        assert page.locator(".save-state.is-saved").count() == n
        page.keyboard.press("n")
        page.wait_for_url("**/annotate/")
        page.get_by_text("Your queue is done").wait_for()

    assert QueryReview.objects.get(query=query).state == "flagged"

    # The lead finds it in the disagreement queue and adjudicates it.
    lead.goto(f"{base}/review/")
    lead.locator("#flagged").get_by_text(re.compile(r"bob 2 and carol 0 on chunk \d")).wait_for()
    lead.click("#flagged >> text=Adjudicate")
    lead.wait_for_url(f"**/review/{query.pk}/")
    assert lead.locator(".adj-row").count() == n
    assert lead.locator("th", has_text="bob").count() == 1
    # The rules settle every chunk but the one bob and carol are two grades apart on. It is the
    # chunk both saw first (the page shows the likely relevant first, the same for both: the
    # order reads neither's grades), not necessarily the first row, which keeps the pool's
    # plain order. The lead gives it "relevant".
    rows = lead.locator(".adj-row")
    open_rows = [i for i in range(rows.count()) if not rows.nth(i).locator("input:checked").count()]
    assert len(open_rows) == 1
    assert rows.nth(open_rows[0]).get_attribute("data-candidate-id") == first_card
    rows.nth(open_rows[0]).locator("input[value='2']").check()
    lead.select_option("select[name=reason]", "annotator_error")
    lead.click("text=Save final grades")
    lead.get_by_text(f"Query {query.pk} adjudicated.").wait_for()
    lead.click("#approve")
    lead.get_by_text(f"Query {query.pk} approved.").wait_for()

    review = QueryReview.objects.get(query=query)
    assert review.state == "approved" and review.reason == "annotator_error"
    finals = Resolution.objects.filter(candidate__query=query)
    assert finals.count() == n and {r.provenance for r in finals} == {"adjudicated"}

    lead.goto(f"{base}/dashboard/")
    assert lead.locator("#approved-count").inner_text() == "1"
    assert lead.locator("svg.plot").count() == 2
