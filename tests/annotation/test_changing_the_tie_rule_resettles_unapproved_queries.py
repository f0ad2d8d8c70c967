"""A lead changes the project's tie rule; the finished queries not yet approved are settled
again under it (through the service and the API), approved and adjudicated ones are left alone."""

from __future__ import annotations

from annotation.models import QueryReview, Resolution
from annotation.services.adjudication import project_tie_rule_set, query_adjudicate
from annotation.services.assignment import queries_assign
from tests.annotation.factories import grade_all, make_chunks, make_query, pool

GRADES = [  # bob, carol on three candidates; the kappa threshold is off, so only ties count
    ([2, 1, 0], [2, 2, 0]),  # a tie on the second candidate
    ([1, 0, 0], [0, 0, 0]),  # a tie on the first
    ([0, 0, 0], [0, 0, 0]),  # unanimous
    ([1, 1, 0], [1, 2, 0]),  # a tie, then approved
    ([0, 1, 0], [0, 2, 0]),  # a tie, then adjudicated by alice
]


def judged(personas, api_client_for):
    project = personas.project
    project.kappa_threshold = -1.0
    project.save()
    chunks = make_chunks(project)
    queries = [make_query(project, f"question {i} about python") for i in range(len(GRADES))]
    candidates = {q.pk: pool(q, chunks[:3]) for q in queries}
    queries_assign(project=project, per_query=2)
    for query, (bob, carol) in zip(queries, GRADES, strict=True):
        grade_all(api_client_for(personas.bob), project, candidates[query.pk], bob)
        grade_all(api_client_for(personas.carol), project, candidates[query.pk], carol)
    return queries, candidates


def state(query) -> str:
    return QueryReview.objects.get(query=query).state


def finals(candidates) -> list[tuple[int, str]]:
    by_id = {r.candidate_id: r for r in Resolution.objects.filter(candidate__in=candidates)}
    return [
        (by_id[c.pk].grade, by_id[c.pk].provenance) if c.pk in by_id else None for c in candidates
    ]


def approve_and_adjudicate(personas, queries, candidates):
    from annotation.services.adjudication import query_approve

    query_approve(project=personas.project, query_id=queries[3].pk, by=personas.alice, version=None)
    review = QueryReview.objects.get(query=queries[4])
    query_adjudicate(
        project=personas.project,
        query_id=queries[4].pk,
        by=personas.alice,
        version=review.version,
        grades={c.pk: 1 for c in candidates[queries[4].pk]},
        reason="annotator_error",
    )


def test_by_default_ties_resolve_to_the_lower_grade(personas, api_client_for):
    queries, candidates = judged(personas, api_client_for)
    assert [state(q) for q in queries] == ["resolved"] * 5
    assert finals(candidates[queries[0].pk]) == [
        (2, "unanimous"),
        (1, "tie_lower"),
        (0, "unanimous"),
    ]
    assert finals(candidates[queries[1].pk])[0] == (0, "tie_lower")


def test_changing_the_rule_resettles_only_queries_not_yet_approved(personas, api_client_for):
    queries, candidates = judged(personas, api_client_for)
    approve_and_adjudicate(personas, queries, candidates)
    approved = finals(candidates[queries[3].pk])
    adjudicated = finals(candidates[queries[4].pk])

    assert project_tie_rule_set(project=personas.project, tie_rule="lead") == 2
    assert [state(q) for q in queries] == ["flagged", "flagged", "resolved", "approved", "resolved"]
    assert finals(candidates[queries[0].pk]) == [None, None, None]
    assert (
        finals(candidates[queries[3].pk])
        == approved
        == [
            (1, "unanimous"),
            (1, "tie_lower"),
            (0, "unanimous"),
        ]
    )
    assert finals(candidates[queries[4].pk]) == adjudicated

    assert project_tie_rule_set(project=personas.project, tie_rule="higher") == 2
    assert [state(q) for q in queries[:2]] == ["resolved", "resolved"]
    assert finals(candidates[queries[0].pk])[1] == (2, "tie_higher")
    assert finals(candidates[queries[1].pk])[0] == (1, "tie_higher")
    assert finals(candidates[queries[3].pk]) == approved

    assert project_tie_rule_set(project=personas.project, tie_rule="lower") == 2
    assert project_tie_rule_set(project=personas.project, tie_rule="lower") == 0


def test_a_lead_sets_the_rule_through_the_api(personas, api_client_for):
    queries, _ = judged(personas, api_client_for)
    url = f"/api/v1/projects/{personas.project.pk}/tie-rule/"
    response = api_client_for(personas.alice).put(url, {"tie_rule": "lead"}, format="json")
    assert response.status_code == 200, response.content
    assert response.json() == {"tie_rule": "lead", "resettled": 4, "queued": False}
    assert state(queries[0]) == "flagged"
    detail = api_client_for(personas.alice).get(f"/api/v1/projects/{personas.project.pk}/")
    assert detail.json()["tie_rule"] == "lead"


def test_only_a_lead_sets_the_rule_and_only_to_a_known_one(personas, api_client_for):
    url = f"/api/v1/projects/{personas.project.pk}/tie-rule/"
    assert (
        api_client_for(personas.bob).put(url, {"tie_rule": "lead"}, format="json").status_code
        == 403
    )
    assert (
        api_client_for(personas.mallory).put(url, {"tie_rule": "lead"}, format="json").status_code
        == 404
    )
    refused = api_client_for(personas.alice).put(url, {"tie_rule": "coin"}, format="json")
    assert refused.status_code == 400 and "tie_rule" in refused.json()
    personas.project.refresh_from_db()
    assert personas.project.tie_rule == "lower"


def test_a_lead_can_adjudicate_a_query_resolved_by_a_tie_rule(personas, api_client_for):
    queries, candidates = judged(personas, api_client_for)
    review = QueryReview.objects.get(query=queries[0])
    url = f"/api/v1/projects/{personas.project.pk}/review/queries/{queries[0].pk}/adjudicate/"
    response = api_client_for(personas.alice).post(
        url,
        {
            "version": review.version,
            "grades": [{"candidate_id": c.pk, "grade": 2} for c in candidates[queries[0].pk]],
            "reason": "guideline_gap",
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    assert finals(candidates[queries[0].pk]) == [(2, "adjudicated")] * 3
    assert project_tie_rule_set(project=personas.project, tie_rule="lead") == 3  # not query 0
    assert finals(candidates[queries[0].pk]) == [(2, "adjudicated")] * 3
