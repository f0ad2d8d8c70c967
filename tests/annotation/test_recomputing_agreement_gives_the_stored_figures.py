"""Recomputing a project's agreement from scratch gives the figures stored as judgments came in."""

from __future__ import annotations

from annotation.models import QueryAgreement
from annotation.services.adjudication import project_agreement_recompute
from tests.annotation.factories import grade_all, make_chunks, make_query, pool

FIELDS = ["n_annotators", "n_items", "kappa", "kappa_linear", "raw_agreement", "ac1", "flagged"]
GRADES = [  # bob, carol on five candidates
    ([2, 0, 0, 1, 0], [2, 0, 1, 1, 0]),
    ([0, 0, 0, 0, 0], [0, 0, 0, 0, 0]),  # unanimous: kappa undefined
    ([2, 2, 1, 0, 0], [0, 2, 1, 0, 0]),
    ([1, 1, 0, 0, 0], [1, 1, 0, 0, 0]),
]


def stored() -> dict[int, dict]:
    return {row["query_id"]: row for row in QueryAgreement.objects.values("query_id", *FIELDS)}


def judged_queries(personas, api_client_for) -> list:
    """One query per row of GRADES, graded by bob and carol through the API (so each query is
    settled as its last annotator finishes)."""
    from annotation.services.assignment import queries_assign

    project = personas.project
    chunks = make_chunks(project)
    queries = [make_query(project, f"question {i} about python") for i in range(len(GRADES))]
    candidates = {q.pk: pool(q, chunks[:5]) for q in queries}
    queries_assign(project=project, per_query=2)
    for query, (bob, carol) in zip(queries, GRADES, strict=True):
        grade_all(api_client_for(personas.bob), project, candidates[query.pk], bob)
        grade_all(api_client_for(personas.carol), project, candidates[query.pk], carol)
    return queries


def test_a_full_recompute_equals_the_incremental_figures(personas, api_client_for):
    project = personas.project
    queries = judged_queries(personas, api_client_for)
    incremental = stored()
    assert len(incremental) == len(GRADES)
    assert incremental[queries[1].pk]["kappa"] is None

    QueryAgreement.objects.update(signature="", kappa=None, ac1=None, raw_agreement=None)
    assert project_agreement_recompute(project=project) == len(GRADES)
    recomputed = stored()
    for qid, row in incremental.items():
        for field in FIELDS:
            if isinstance(row[field], float):
                assert abs(recomputed[qid][field] - row[field]) < 1e-12, (qid, field)
            else:
                assert recomputed[qid][field] == row[field], (qid, field)


def settled() -> tuple[dict[int, str], set[tuple[int, int, str]]]:
    from annotation.models import QueryReview, Resolution

    return (
        dict(QueryReview.objects.values_list("query_id", "state")),
        set(Resolution.objects.values_list("candidate_id", "grade", "provenance")),
    )


def test_a_cold_recompute_settles_every_query_as_one_at_a_time_would(personas, api_client_for):
    """After judgments arrive in bulk (nothing settled yet), the recomputation settles every
    finished query at once; the result is what settling them one by one as judgments come in
    (`query_settle`) gave. An approved query is left as it is."""
    from annotation.models import QueryReview, Resolution

    project = personas.project
    queries = judged_queries(personas, api_client_for)
    approved = queries[3].pk
    QueryReview.objects.filter(query_id=approved).update(state="approved")
    one_at_a_time = settled()
    assert set(one_at_a_time[0].values()) == {"flagged", "resolved", "approved"}
    versions = dict(QueryReview.objects.values_list("query_id", "version"))

    QueryAgreement.objects.all().delete()
    Resolution.objects.exclude(candidate__query_id=approved).delete()
    QueryReview.objects.exclude(query_id=approved).delete()
    assert project_agreement_recompute(project=project) == len(GRADES)
    assert settled() == one_at_a_time
    assert dict(QueryReview.objects.values_list("query_id", "version")) == versions
