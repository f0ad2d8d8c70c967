"""A lead cancels a running run: its batches stop at their next save; viewers may not cancel."""

from __future__ import annotations

import time

from evaluation.models import QueryResult, RunState
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create
from tests.conftest import wait_for
from tests.evaluation.conftest import make_golden


def test_a_cancelled_run_stops_writing_results(
    personas, private_urls, stub_factory, worker_factory, api_client_for
):
    golden = make_golden(personas.project, n=60)
    stub = stub_factory(golden.answers, latency=0.2)
    retriever = retriever_save(
        project=personas.project, name="slow", kind="http", config=stub.config(max_concurrency=2)
    )
    worker = worker_factory(concurrency=2)
    run = evaluation_run_create(
        project=personas.project, retriever=retriever, version=golden.version, batch_size=10
    )
    url = f"/api/v1/projects/{personas.project.pk}/runs/{run.pk}/cancel/"
    wait_for(
        lambda: QueryResult.objects.filter(run=run).exists(),
        timeout=90,
        message=f"the run to start ({worker.output()[-2000:]})",
    )
    assert api_client_for(personas.victor).post(url).status_code == 403
    assert api_client_for(personas.mallory).post(url).status_code == 404
    response = api_client_for(personas.alice).post(url)
    assert response.status_code == 200
    assert response.json()["state"] == RunState.CANCELLED

    time.sleep(1.5)  # batches in flight notice at their next save (every 0.5 s)
    settled = QueryResult.objects.filter(run=run).count()
    time.sleep(2.0)
    assert QueryResult.objects.filter(run=run).count() == settled < 60
    run.refresh_from_db()
    assert run.state == RunState.CANCELLED
    assert run.finished_at is not None
