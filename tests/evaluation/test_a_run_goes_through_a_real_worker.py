"""A whole run travels through the broker (Redis in CI) to a real worker that calls a real
HTTP retriever; the run page's API shows it finished with one result per query."""

from __future__ import annotations

from evaluation.models import QueryResult, RunBatch, RunState
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create
from tests.conftest import wait_for
from tests.evaluation.conftest import make_golden


def test_a_real_worker_runs_every_batch_and_finishes_the_run(
    personas, private_urls, stub_factory, worker_factory, api_client_for
):
    golden = make_golden(personas.project, n=30)
    stub = stub_factory(golden.answers, latency=0.01)
    worker = worker_factory(concurrency=2)
    retriever = retriever_save(
        project=personas.project, name="stub", kind="http", config=stub.config()
    )
    run = evaluation_run_create(
        project=personas.project, retriever=retriever, version=golden.version, batch_size=7
    )
    client = api_client_for(personas.victor)
    url = f"/api/v1/projects/{personas.project.pk}/runs/{run.pk}/"

    def finished():
        body = client.get(url).json()
        return body if body["state"] in ("succeeded", "failed", "cancelled") else None

    body = wait_for(finished, timeout=120, message=f"the run to finish ({worker.output()[-3000:]})")
    assert body["state"] == RunState.SUCCEEDED, body
    assert body["progress"]["done"] == body["progress"]["total"] == 30
    assert QueryResult.objects.filter(run=run).count() == 30
    assert set(RunBatch.objects.filter(run=run).values_list("state", flat=True)) == {"done"}
    report = client.get(url + "report/").json()
    assert report["aggregate"]["recall@10"]["n"] == 30
    assert stub.calls == 30
