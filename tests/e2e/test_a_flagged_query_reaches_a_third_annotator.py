"""In Chromium: bob and dave grade a query two apart and it is flagged; alice switches
escalation on from the dashboard, so it goes to carol, the annotator who has not seen it; carol
finds it in her queue, sees no one else's grades, grades it by keyboard, and it resolves by
majority without the lead."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotation.models import QueryReview, Resolution
from annotation.services.assignment import queries_assign
from annotation.services.projects import membership_set
from tests.annotation.factories import grade_all, make_chunks, make_query, pool
from tests.conftest import PASSWORD

pytestmark = pytest.mark.e2e


def stat(page, selector: str) -> str:
    return page.locator(selector).inner_text()


def test_a_flagged_query_reaches_carol_and_resolves_without_the_lead(
    personas, api_client_for, live_server, sign_in
):
    project = personas.project
    project.kappa_threshold = -1.0  # two grades apart is the reason here
    project.save()
    dave = get_user_model().objects.create_user("dave", password=PASSWORD)
    membership_set(project=project, username="dave", role="annotator")
    chunks = make_chunks(project)
    first = make_query(project, "how to install python")
    query = make_query(project, "pip install a package")
    pool(first, chunks[:3])
    candidates = pool(query, chunks[:3])
    queries_assign(project=project, per_query=2)  # bob+carol, then bob+dave: carol is free
    grade_all(api_client_for(dave), project, candidates, [2, 0, 0])
    grade_all(api_client_for(personas.bob), project, candidates, [0, 0, 0])
    assert QueryReview.objects.get(query=query).state == "flagged"

    lead = sign_in("alice")
    dashboard = f"{live_server.url}/projects/{project.pk}/dashboard/"
    lead.goto(dashboard)
    assert stat(lead, "#flagged-count") == "1"
    lead.select_option("#escalation-form select[name=escalate]", "1")
    lead.click("#escalation-form button[type=submit]")
    lead.wait_for_selector("text=1 flagged query went to one more annotator now")
    assert (stat(lead, "#escalated-count"), stat(lead, "#flagged-count")) == ("1", "0")

    carol = sign_in("carol")
    carol.goto(f"{live_server.url}/projects/{project.pk}/annotate/")
    carol.get_by_role("link", name="pip install a package").click()
    cards = carol.locator(".candidate")
    assert cards.count() == 3
    # blind: nobody's grade is on her page
    assert [cards.nth(i).get_attribute("data-grade") or "" for i in range(3)] == ["", "", ""]
    first_id = candidates[0].pk
    # Carol sides with dave on his 2, with bob elsewhere. Each card is graded by its own
    # button: the order most likely relevant first moves as grades arrive, so the card after
    # the one just graded depends on the grades (and, on a tie, on the candidates' ids).
    for candidate in candidates:
        grade = "2" if candidate.pk == first_id else "0"
        carol.locator(f"#cand-{candidate.pk} button.grade[data-grade='{grade}']").click()
        carol.locator(f"#cand-{candidate.pk} .save-state.is-saved").wait_for()
    carol.get_by_text("All changes saved").wait_for()

    assert QueryReview.objects.get(query=query).state == "resolved"
    finals = dict(
        Resolution.objects.filter(candidate__query=query).values_list("candidate_id", "provenance")
    )
    assert finals[first_id] == "majority"

    lead.goto(dashboard)
    assert (stat(lead, "#escalated-count"), stat(lead, "#flagged-count")) == ("0", "0")
    assert lead.locator('#decided-by tr[data-provenance="majority"] td.num').inner_text() == "1"
    assert lead.locator('#decided-by tr[data-provenance="adjudicated"] td.num').inner_text() == "0"
    lead.goto(f"{live_server.url}/projects/{project.pk}/review/{query.pk}/")
    assert "Resolved" in lead.locator(".adj-head").inner_text()
    assert "extra" in lead.locator("table.adjudication thead").inner_text()
    assert "It went to one more annotator (carol)" in lead.locator("#escalation").inner_text()
