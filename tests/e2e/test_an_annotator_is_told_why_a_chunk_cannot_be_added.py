"""The annotation page says in words why "Add to this query" was refused: here a lead approved
the query while the annotator was searching the corpus (the API answered 409)."""

from __future__ import annotations

import pytest

from annotation.models import Candidate
from annotation.services.adjudication import queries_approve
from tests.annotation.factories import grade_all, judging_setup

pytestmark = pytest.mark.e2e


def test_the_refusal_is_shown_in_words(personas, live_server, sign_in, api_client_for):
    setup = judging_setup(personas, per_query=2)
    query, candidates = setup.first()
    for user in (personas.bob, personas.carol):
        grade_all(api_client_for(user), personas.project, candidates, [2, 0])
    page = sign_in("bob")
    page.goto(f"{live_server.url}/projects/{personas.project.pk}/annotate/{query.pk}/")
    page.fill("#corpus-search input[name=q]", "cat mat")
    page.click("#corpus-search button[type=submit]")
    add = page.get_by_role("button", name="Add to this query").first
    add.wait_for()

    queries_approve(project=personas.project, by=personas.alice)  # meanwhile, a lead approves
    add.click()

    alert = page.get_by_role("alert")
    alert.wait_for()
    assert "This query is approved: its grades are final" in alert.inner_text()
    assert Candidate.objects.filter(query=query).count() == 2
