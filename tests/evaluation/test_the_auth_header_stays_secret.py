"""A retriever's auth header is stored encrypted, reaches the retriever, and never appears in
API responses, task arguments or logs."""

from __future__ import annotations

import logging

import pytest
from celery.app.task import Task

from config.celery import app
from evaluation.models import Retriever, RunState
from evaluation.services.runs import evaluation_run_create
from tests.conftest import wait_for
from tests.evaluation.conftest import make_golden

SECRET = "Bearer s3cr3t-T0KEN-do-not-leak"


def _create(client, project, stub):
    response = client.post(
        f"/api/v1/projects/{project.pk}/retrievers/",
        {
            "name": "private",
            "kind": "http",
            "config": stub.config(),
            "auth_header_name": "Authorization",
            "auth_header_value": SECRET,
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    return response


def test_it_is_encrypted_at_rest_and_never_returned(
    db, personas, private_urls, stub_factory, api_client_for
):
    stub = stub_factory({})
    client = api_client_for(personas.alice)
    created = _create(client, personas.project, stub)
    retriever = Retriever.objects.get(name="private")
    assert SECRET not in retriever.auth_header_encrypted
    assert "s3cr3t" not in str(retriever.config)
    assert created.json()["has_auth_header"] is True
    base = f"/api/v1/projects/{personas.project.pk}/retrievers/"
    for url in (base, f"{base}{retriever.pk}/"):
        for user in (personas.alice, personas.victor):
            body = api_client_for(user).get(url).content.decode()
            assert "s3cr3t" not in body
            assert retriever.auth_header_encrypted not in body
    assert "s3cr3t" not in created.content.decode()
    schema = client.get("/api/schema/").content.decode()
    assert "auth_header_value" in schema  # documented as writable ...
    patched = client.patch(f"{base}{retriever.pk}/", {"schedule": "nightly"}, format="json")
    assert "s3cr3t" not in patched.content.decode()
    assert Retriever.objects.get(pk=retriever.pk).auth_header_encrypted  # ... and kept


def test_it_travels_to_the_retriever_but_not_in_task_arguments_or_logs(
    transactional_db, personas, private_urls, stub_factory, api_client_for, monkeypatch, caplog
):
    golden = make_golden(personas.project, n=8)
    stub = stub_factory(golden.answers, require_header=("Authorization", SECRET))
    _create(api_client_for(personas.alice), personas.project, stub)
    sent: list[str] = []
    original = Task.apply_async

    def recording(self, args=None, kwargs=None, **options):
        sent.append(repr((self.name, args, kwargs, options)))
        return original(self, args, kwargs, **options)

    monkeypatch.setattr(Task, "apply_async", recording)
    caplog.set_level(logging.DEBUG)
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True  # tasks run here, through apply_async
    try:
        run = evaluation_run_create(
            project=personas.project,
            retriever=Retriever.objects.get(name="private"),
            version=golden.version,
            batch_size=3,
        )
    finally:
        app.conf.task_always_eager = eager
    run.refresh_from_db()
    assert run.state == RunState.SUCCEEDED, run.error
    assert run.report["counts"]["failed"] == 0  # the stub got the header (401 otherwise)
    assert any(h.get("Authorization") == SECRET for h in stub.seen_headers)
    assert any("evaluation_batch_execute" in s for s in sent)
    assert not [s for s in sent if "s3cr3t" in s]
    assert "s3cr3t" not in caplog.text
    assert "s3cr3t" not in str(run.retriever_snapshot)


@pytest.mark.slow
def test_a_real_workers_log_never_shows_it(
    personas, private_urls, stub_factory, worker_factory, api_client_for
):
    golden = make_golden(personas.project, n=6)
    stub = stub_factory(golden.answers, require_header=("Authorization", SECRET))
    _create(api_client_for(personas.alice), personas.project, stub)
    worker = worker_factory()
    run = evaluation_run_create(
        project=personas.project,
        retriever=Retriever.objects.get(name="private"),
        version=golden.version,
    )
    wait_for(
        lambda: run.refresh_from_db() or run.finished,
        timeout=90,
        message=f"the run to finish ({worker.output()[-2000:]})",
    )
    assert run.state == RunState.SUCCEEDED, run.error
    assert run.report["counts"]["failed"] == 0
    worker.stop()
    log = worker.output()
    assert "evaluation_batch_execute" in log
    assert "s3cr3t" not in log
