"""A run executed in-process stores one result per query and a report from goldsmith.metrics."""

from __future__ import annotations

import pytest

from evaluation.models import QueryResult, RunState
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from tests.evaluation.conftest import make_golden


@pytest.mark.django_db
def test_it_scores_every_query_and_reports_each_k(personas, private_urls, stub_factory):
    golden = make_golden(personas.project, n=12)
    stub = stub_factory(golden.answers)
    retriever = retriever_save(
        project=personas.project, name="stub", kind="http", config=stub.config()
    )
    run = evaluation_run_create(
        project=personas.project,
        retriever=retriever,
        version=golden.version,
        ks=[5, 10],
        batch_size=5,
        enqueue=False,
    )
    run = evaluation_run_execute_inline(run_id=run.pk)
    assert run.state == RunState.SUCCEEDED, run.error
    assert QueryResult.objects.filter(run=run).count() == 12
    agg = run.report["aggregate"]
    assert set(agg) >= {"recall@5", "recall@10", "ndcg@10", "judged@10", "pass@10"}
    assert 0 < agg["recall@10"]["mean"] < 1
    assert agg["recall@10"]["n"] == 12
    assert run.report["counts"]["failed"] == 0
    assert run.report["low_queries"]
    assert run.report["latency"]["n"] == 12
