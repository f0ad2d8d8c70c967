"""Recomputing a project's agreement from scratch gives the figures stored as judgments came in."""

from __future__ import annotations

from annotation.models import QueryAgreement
from annotation.services.agreement import project_agreement_recompute
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


def test_a_full_recompute_equals_the_incremental_figures(personas, api_client_for):
    from annotation.services.assignment import queries_assign

    project = personas.project
    chunks = make_chunks(project)
    queries = [make_query(project, f"question {i} about python") for i in range(len(GRADES))]
    candidates = {q.pk: pool(q, chunks[:5]) for q in queries}
    queries_assign(project=project, per_query=2)
    for query, (bob, carol) in zip(queries, GRADES, strict=True):
        grade_all(api_client_for(personas.bob), project, candidates[query.pk], bob)
        grade_all(api_client_for(personas.carol), project, candidates[query.pk], carol)
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
