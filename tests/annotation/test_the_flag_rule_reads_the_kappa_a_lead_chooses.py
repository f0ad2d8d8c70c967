"""A lead chooses which kappa the flag rule reads: Cohen's unweighted kappa (the default) or the
linearly weighted one, under which two annotators one grade apart count half a disagreement.
Switching settles again, through the page and the API, every finished query not yet approved;
the lead reads why a query is flagged as sentences, never as stored codes."""

from __future__ import annotations

import pytest
from django.test import Client
from sklearn.metrics import cohen_kappa_score

from annotation.models import QueryAgreement, QueryReview, Resolution
from annotation.services.adjudication import project_kappa_weights_set, query_approve
from annotation.services.assignment import queries_assign
from goldsmith import agreement as rules
from tests.annotation.factories import grade_all, make_chunks, make_query, pool

# bob and carol on six candidates, never two grades apart: κ 0.43 (flagged at 0.6) but
# linearly weighted κ 0.625 (not flagged).
BOB = [2, 2, 1, 0, 0, 0]
CAROL = [2, 1, 0, 0, 0, 0]


def test_the_example_is_what_it_claims():
    assert cohen_kappa_score(BOB, CAROL) < 0.6 <= cohen_kappa_score(BOB, CAROL, weights="linear")


def test_the_engine_reads_the_kappa_it_is_told():
    grades = {1: dict(enumerate(BOB)), 2: dict(enumerate(CAROL))}
    stats = rules.query_stats(grades)
    assert rules.flag_kappa(stats, rules.UNWEIGHTED) == pytest.approx(cohen_kappa_score(BOB, CAROL))
    assert rules.flag_kappa(stats, rules.LINEAR) == pytest.approx(
        cohen_kappa_score(BOB, CAROL, weights="linear")
    )
    flagged = dict(grades=grades, threshold=0.6, ambiguous=False, tie_rule=rules.LOWER)
    unweighted = rules.flag_reasons(kappa=rules.flag_kappa(stats, rules.UNWEIGHTED), **flagged)
    linear = rules.flag_reasons(kappa=rules.flag_kappa(stats, rules.LINEAR), **flagged)
    assert unweighted == [rules.LOW_KAPPA] and linear == []
    with pytest.raises(ValueError, match="unknown kappa weights"):
        rules.flag_kappa(stats, "quadratic")
    sentence = rules.flag_sentences(
        reasons=[rules.LOW_KAPPA],
        kappa=0.41,
        threshold=0.6,
        grades=grades,
        names={1: "bob", 2: "carol"},
        chunk_numbers={},
        ambiguous_by=[],
        weights=rules.LINEAR,
    )
    assert sentence == ["linearly weighted κ 0.41 below 0.6"]


def judged(personas, api_client_for, n: int = 2):
    project = personas.project
    chunks = make_chunks(
        project, [(f"Python page {i}", f"Python answer number {i}.") for i in range(len(BOB))]
    )
    queries = [make_query(project, f"question {i} about python") for i in range(n)]
    candidates = {q.pk: pool(q, chunks[: len(BOB)]) for q in queries}
    queries_assign(project=project, per_query=2)
    for query in queries:
        grade_all(api_client_for(personas.bob), project, candidates[query.pk], BOB)
        grade_all(api_client_for(personas.carol), project, candidates[query.pk], CAROL)
    return queries, candidates


def state(query) -> str:
    return QueryReview.objects.get(query=query).state


def test_by_default_the_unweighted_kappa_flags_one_grade_differences(personas, api_client_for):
    queries, _ = judged(personas, api_client_for)
    assert personas.project.kappa_weights == "unweighted"
    assert [state(q) for q in queries] == ["flagged", "flagged"]
    assert QueryAgreement.objects.get(query=queries[0]).flag_reasons == [rules.LOW_KAPPA]


def test_switching_to_the_linear_kappa_settles_unapproved_queries_by_rule(personas, api_client_for):
    queries, candidates = judged(personas, api_client_for)
    assert project_kappa_weights_set(project=personas.project, kappa_weights="linear") == 2
    assert [state(q) for q in queries] == ["resolved", "resolved"]
    finals = {
        r.candidate_id: (r.grade, r.provenance)
        for r in Resolution.objects.filter(candidate__query=queries[0])
    }
    # the two one-grade ties resolve to the lower grade, the rest are unanimous
    assert [finals[c.pk] for c in candidates[queries[0].pk]] == [
        (2, "unanimous"),
        (1, "tie_lower"),
        (0, "tie_lower"),
        (0, "unanimous"),
        (0, "unanimous"),
        (0, "unanimous"),
    ]
    query_approve(project=personas.project, query_id=queries[0].pk, by=personas.alice, version=None)

    # back to the unweighted kappa: the query not yet approved is flagged again, the approved
    # one keeps its final grades
    assert project_kappa_weights_set(project=personas.project, kappa_weights="unweighted") == 1
    assert [state(q) for q in queries] == ["approved", "flagged"]
    assert Resolution.objects.filter(candidate__query=queries[0]).count() == len(BOB)
    with pytest.raises(ValueError, match="unknown kappa weights"):
        project_kappa_weights_set(project=personas.project, kappa_weights="quadratic")


def test_a_lead_switches_through_the_api_and_an_annotator_may_not(personas, api_client_for):
    queries, _ = judged(personas, api_client_for)
    url = f"/api/v1/projects/{personas.project.pk}/kappa-weights/"
    refused = api_client_for(personas.bob).put(url, {"kappa_weights": "linear"}, format="json")
    assert refused.status_code == 403
    bad = api_client_for(personas.alice).put(url, {"kappa_weights": "cubic"}, format="json")
    assert bad.status_code == 400 and "kappa_weights" in bad.json()
    done = api_client_for(personas.alice).put(url, {"kappa_weights": "linear"}, format="json")
    assert done.status_code == 200
    assert done.json() == {"kappa_weights": "linear", "resettled": 2, "queued": False}
    project = api_client_for(personas.alice).get(f"/api/v1/projects/{personas.project.pk}/")
    assert project.json()["kappa_weights"] == "linear"
    assert [state(q) for q in queries] == ["resolved", "resolved"]


def page_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_lead_switches_on_the_dashboard_and_reads_why_in_words(personas, api_client_for):
    queries, _ = judged(personas, api_client_for, n=1)
    project = personas.project
    lead = page_for(personas.alice)

    page = lead.get(f"/projects/{project.pk}/review/{queries[0].pk}/").content.decode()
    assert "κ 0.43 below 0.6" in page
    assert "low_kappa" not in page  # the stored code never reaches the page

    html = lead.post(
        f"/projects/{project.pk}/dashboard/kappa-weights/", {"kappa_weights": "linear"}, follow=True
    ).content.decode()
    assert "1 query not yet approved settled differently" in html
    assert 'value="linear" selected' in html
    assert state(queries[0]) == "resolved"

    refused = page_for(personas.bob).post(
        f"/projects/{project.pk}/dashboard/kappa-weights/", {"kappa_weights": "unweighted"}
    )
    assert refused.status_code == 403
    bad = lead.post(f"/projects/{project.pk}/dashboard/kappa-weights/", {"kappa_weights": "x"})
    assert bad.status_code == 400
    project.refresh_from_db()
    assert project.kappa_weights == "linear"
