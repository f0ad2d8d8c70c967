"""A retriever failing 10% of calls with HTTP 500s and timeouts: calls are retried with
backoff, queries that still fail are counted, and the run completes."""

from __future__ import annotations

import pytest

from evaluation.models import QueryResult, RunState
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from tests.evaluation.conftest import make_golden


@pytest.mark.django_db
def test_temporary_failures_are_retried_and_lasting_ones_counted(
    personas, private_urls, stub_factory
):
    golden = make_golden(personas.project, n=60)
    stub = stub_factory(
        golden.answers, failure_rate=0.10, hang_seconds=1.0, always_fail=["q7", "q8"], seed=3
    )
    retriever = retriever_save(
        project=personas.project,
        name="flaky",
        kind="http",
        config=stub.config(timeout=0.4, retries=4, backoff=0.02, max_concurrency=8),
    )
    run = evaluation_run_create(
        project=personas.project,
        retriever=retriever,
        version=golden.version,
        batch_size=20,
        enqueue=False,
    )
    run = evaluation_run_execute_inline(run_id=run.pk)

    assert run.state == RunState.SUCCEEDED, run.error
    assert stub.failures > 2  # the stub did fail calls other than q7's and q8's
    assert stub.calls > 60 + 2 * 4  # ... and they were retried
    failed = QueryResult.objects.filter(run=run).exclude(error="")
    assert set(failed.values_list("query_id", flat=True)) == {"q7", "q8"}
    assert all(r.attempts == 5 for r in failed)  # 1 try + 4 retries
    assert "HTTP 500" in failed.first().error
    assert QueryResult.objects.filter(run=run, error="", attempts__gt=1).exists()
    assert run.failed_queries == 2
    assert run.report["counts"]["failed"] == 2
    assert run.report["counts"]["answered"] == 58
    # A failed query scores 0, like a query missing from a run.
    assert run.report["aggregate"]["recall@10"]["n"] == 60
