"""kill -9 a worker in the middle of a run, start another: the watchdog re-queues the batches
whose lease expired and the run completes with exactly one result per query."""

from __future__ import annotations

import time

from django.db.models import Count
from django.utils import timezone

from evaluation.models import BatchState, QueryResult, RunBatch, RunState
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_watchdog
from tests.conftest import wait_for
from tests.evaluation.conftest import make_golden


def test_the_run_completes_with_one_result_per_query_after_a_crash(
    personas, private_urls, stub_factory, worker_factory
):
    golden = make_golden(personas.project, n=40)
    stub = stub_factory(golden.answers, latency=0.25)
    retriever = retriever_save(
        project=personas.project,
        name="slow",
        kind="http",
        config=stub.config(max_concurrency=2),
    )
    first = worker_factory(concurrency=2)
    run = evaluation_run_create(
        project=personas.project,
        retriever=retriever,
        version=golden.version,
        batch_size=4,
        lanes=2,
        lease_seconds=3,
    )
    wait_for(
        lambda: QueryResult.objects.filter(run=run).count() >= 10,
        timeout=90,
        message=f"the first worker to make progress ({first.output()[-2000:]})",
    )
    first.kill()
    run.refresh_from_db()
    assert run.state == RunState.RUNNING
    assert QueryResult.objects.filter(run=run).count() < 40, "killed too late to test anything"
    # The dead worker's batches keep their lease until it expires.
    wait_for(
        lambda: (
            not RunBatch.objects.filter(
                run=run, state=BatchState.RUNNING, lease_expires_at__gte=timezone.now()
            ).exists()
        ),
        timeout=30,
        message="the dead worker's leases to expire",
    )
    second = worker_factory(concurrency=2)
    last_watch = [0.0]

    def finished() -> bool:
        if time.monotonic() - last_watch[0] > 2:  # what Celery beat does every 30 s
            evaluation_watchdog()
            last_watch[0] = time.monotonic()
        run.refresh_from_db()
        return run.finished

    wait_for(finished, timeout=120, message=f"the run to finish ({second.output()[-2000:]})")
    assert run.state == RunState.SUCCEEDED, run.error
    per_query = QueryResult.objects.filter(run=run).values("query_id").annotate(n=Count("id"))
    assert sorted(r["query_id"] for r in per_query) == sorted(golden.query_ids)
    assert {r["n"] for r in per_query} == {1}
    assert not QueryResult.objects.filter(run=run).exclude(error="").exists()
    assert RunBatch.objects.filter(run=run, attempts__gte=2).exists()
    assert run.report["counts"]["answered"] == 40
