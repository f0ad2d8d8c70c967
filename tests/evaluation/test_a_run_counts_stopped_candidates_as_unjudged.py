"""A run on a version whose judging stopped early (issue 22 §2): the candidates left not judged
(stopped) are unjudged in the run report's judged@K, exactly as chunks nobody pooled, never
judged not relevant."""

from __future__ import annotations

from annotation.models import Candidate, GoldenJudgment
from annotation.models.stopping import StoppedCandidate
from annotation.services.adjudication import queries_approve
from annotation.services.goldsets import golden_set_version_freeze
from evaluation.models import QueryResult, RunState
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from tests.annotation.stopping_factories import follow_the_order, stoppable_project


def test_a_run_counts_stopped_candidates_as_unjudged(personas, api_client_for):
    setup = stoppable_project(personas)
    personas.project.stopping_allowed = True
    personas.project.save(update_fields=["stopping_allowed"])
    for user in (personas.bob, personas.carol):
        client = api_client_for(user)
        follow_the_order(client, setup, user)
        url = f"/api/v1/projects/{setup.project.pk}/queries/{setup.query.pk}/stop/"
        assert client.post(url).status_code == 200
    queries_approve(project=setup.project, by=personas.alice)
    version = golden_set_version_freeze(project=setup.project, by=personas.alice)
    retriever = retriever_save(project=setup.project, name="bm25", kind="bm25")
    run = evaluation_run_create(
        project=setup.project, retriever=retriever, version=version, ks=[10], enqueue=False
    )
    run = evaluation_run_execute_inline(run_id=run.pk)
    assert run.state == RunState.SUCCEEDED, run.error

    judged = {}
    for qid, chunk in GoldenJudgment.objects.filter(item__version=version).values_list(
        "item__query_id", "chunk_id"
    ):
        judged.setdefault(qid, set()).add(chunk)
    share = {}
    for result in QueryResult.objects.filter(run=run):
        top = list(dict.fromkeys(result.ranked_ids))[:10]
        share[result.query_id] = sum(c in judged.get(result.query_id, ()) for c in top) / len(top)
    stopped_chunks = set(
        Candidate.objects.filter(
            pk__in=StoppedCandidate.objects.values("candidate_id")
        ).values_list("chunk__chunk_id", flat=True)
    )
    open_top = list(
        dict.fromkeys(QueryResult.objects.get(run=run, query_id=str(setup.query.pk)).ranked_ids)
    )[:10]
    # The run retrieved chunks the annotators stopped before: they lower judged@10.
    assert set(open_top) & stopped_chunks
    # (in tenths: 1 - 8 / 10 is not 0.2 in floating point)
    assert round(share[str(setup.query.pk)] * 10) == 10 - len(set(open_top) & stopped_chunks)
    assert share[str(setup.query.pk)] < 1
    mean = run.report["aggregate"]["judged@10"]["mean"]
    assert abs(mean - sum(share.values()) / len(share)) < 1e-9
