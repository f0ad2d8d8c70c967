"""A task travels through the configured broker (Redis in CI) to a real worker process."""

from __future__ import annotations

import uuid

from django.conf import settings

from annotation.models import WorkerPing
from annotation.tasks import worker_ping
from tests.conftest import wait_for


def test_a_real_worker_runs_a_task_sent_through_the_broker(celery_worker_process):
    assert not settings.CELERY_TASK_ALWAYS_EAGER
    token = uuid.uuid4().hex
    worker_ping.delay(token)
    ping = wait_for(
        lambda: WorkerPing.objects.filter(token=token).first(),
        timeout=60,
        message=f"the worker to run the task (log: {celery_worker_process.output()[-2000:]})",
    )
    assert ping.hostname


def test_running_the_task_twice_leaves_one_row(db):
    worker_ping.run("same-token")
    worker_ping.run("same-token")
    assert WorkerPing.objects.filter(token="same-token").count() == 1


def test_a_task_queued_in_a_transaction_waits_for_the_commit(
    db, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        worker_ping.delay_on_commit("after-commit")
    assert len(callbacks) == 1  # sent by the commit hook, not before
