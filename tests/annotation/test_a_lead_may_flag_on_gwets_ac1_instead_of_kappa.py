"""A lead may have the flag rule read Gwet's AC1, or AC2 with linear weights, instead of kappa
(issue 22, §3): on a pool of mostly "not relevant" chunks two annotators who agree on all but
one have a kappa of 0 (the kappa paradox) but an AC1 near 0.9. Kappa stays the default; the
switch settles again through the page and the API like the kappa's, and the lead reads the
flag in words."""

from __future__ import annotations

import pytest
from django.test import Client

from annotation.models import QueryAgreement, QueryReview
from annotation.services.adjudication import project_kappa_weights_set
from annotation.services.assignment import queries_assign
from goldsmith import agreement as rules
from tests.annotation.factories import grade_all, make_chunks, make_query, pool

BOB = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0]
CAROL = [0] * 10


def judged(personas, api_client_for):
    project = personas.project
    chunks = make_chunks(project, [(f"Page {i}", f"Python answer number {i}.") for i in range(10)])
    query = make_query(project, "question about python")
    candidates = pool(query, chunks)
    queries_assign(project=project, per_query=2)
    grade_all(api_client_for(personas.bob), project, candidates, BOB)
    grade_all(api_client_for(personas.carol), project, candidates, CAROL)
    return query


def state(query) -> str:
    return QueryReview.objects.get(query=query).state


def test_the_example_has_a_kappa_of_zero_and_an_ac1_near_09():
    stats = rules.query_stats({1: dict(enumerate(BOB)), 2: dict(enumerate(CAROL))})
    assert stats["kappa"] == pytest.approx(0.0)
    assert stats["ac1"] == pytest.approx((0.9 - 0.095) / 0.905)
    assert stats["ac2_linear"] == pytest.approx((0.95 - 5 / 6 * 0.095) / (1 - 5 / 6 * 0.095))


def test_kappa_flags_by_default_and_ac1_settles_the_query_by_rule(personas, api_client_for):
    query = judged(personas, api_client_for)
    assert personas.project.kappa_weights == "unweighted"
    assert state(query) == "flagged"
    stored = QueryAgreement.objects.get(query=query)
    assert stored.flag_reasons == [rules.LOW_KAPPA]
    assert stored.ac2_linear == pytest.approx(
        rules.query_stats({1: dict(enumerate(BOB)), 2: dict(enumerate(CAROL))})["ac2_linear"]
    )
    assert project_kappa_weights_set(project=personas.project, kappa_weights="ac1") == 1
    assert state(query) == "resolved"
    assert project_kappa_weights_set(project=personas.project, kappa_weights="ac2_linear") == 0
    assert state(query) == "resolved"


def test_a_lead_chooses_ac2_through_the_api(personas, api_client_for):
    query = judged(personas, api_client_for)
    url = f"/api/v1/projects/{personas.project.pk}/kappa-weights/"
    done = api_client_for(personas.alice).put(url, {"kappa_weights": "ac2_linear"}, format="json")
    assert done.status_code == 200
    assert done.json() == {"kappa_weights": "ac2_linear", "resettled": 1, "queued": False}
    project = api_client_for(personas.alice).get(f"/api/v1/projects/{personas.project.pk}/")
    assert project.json()["kappa_weights"] == "ac2_linear"
    assert state(query) == "resolved"


def test_the_dashboard_offers_ac1_in_plain_words_and_the_flag_reads_as_a_sentence(
    personas, api_client_for
):
    query = judged(personas, api_client_for)
    project = personas.project
    project.kappa_threshold = 0.95
    project.save(update_fields=["kappa_threshold"])
    lead = Client()
    lead.force_login(personas.alice)
    html = lead.post(
        f"/projects/{project.pk}/dashboard/kappa-weights/", {"kappa_weights": "ac1"}, follow=True
    ).content.decode()
    assert 'value="ac1" selected' in html
    assert "Gwet&#x27;s AC1, which stays high when people agree" in html
    assert "Gwet&#x27;s AC1 and AC2 are not" in html  # the help text says why
    assert state(query) == "flagged"  # 0.89 is below a threshold of 0.95
    page = lead.get(f"/projects/{project.pk}/review/{query.pk}/").content.decode()
    assert "Gwet&#x27;s AC1 0.89 below 0.95" in page
