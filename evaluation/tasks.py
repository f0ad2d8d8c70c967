"""Celery tasks of the evaluation app: ids in, one service call, safe to run twice.

No task argument ever carries a secret: a batch loads its retriever (and decrypts its auth
header) on the worker.

`language`: that of the person who started the run (their request's), passed from the start to
each batch, so that the reason a run fails, stored with it, is written in their language (as
an import's, annotation/tasks.py). A run started by the schedule or restarted by the watchdog
has none and writes English.
"""

from __future__ import annotations

from celery import shared_task
from django.utils import translation

from goldsmith.retrievers.http import TemporaryFailure


@shared_task(acks_late=True)
def evaluation_run_start(run_id: int, language: str | None = None) -> None:
    from evaluation.services import runs

    with translation.override(language):
        runs.evaluation_run_start(run_id=run_id)


@shared_task(acks_late=True)
def evaluation_batch_execute(run_id: int, batch: int, language: str | None = None) -> str:
    from evaluation.services import runs

    with translation.override(language):
        return runs.evaluation_batch_execute(run_id=run_id, batch=batch)


@shared_task(acks_late=True)
def evaluation_run_finish(run_id: int) -> None:
    from evaluation.services import runs

    runs.evaluation_run_finish(run_id=run_id)


@shared_task
def evaluation_watchdog() -> dict[str, int]:
    from evaluation.services import runs

    return runs.evaluation_watchdog()


@shared_task
def evaluation_schedule_due() -> list[int]:
    from evaluation.services import runs

    return runs.evaluation_schedule_due()


@shared_task(acks_late=True, autoretry_for=(TemporaryFailure,), retry_backoff=True, max_retries=5)
def evaluation_alert_notify(alert_id: int) -> str:
    from evaluation.services import reports

    return reports.evaluation_alert_notify(alert_id=alert_id)


@shared_task(acks_late=True)
def judging_job_execute(job_id: int) -> str:
    from evaluation.services import judges

    return judges.judging_job_execute(job_id=job_id)


@shared_task(acks_late=True)
def judge_agreement_refresh(project_id: int) -> None:
    from evaluation.services import judges

    judges.judge_agreement_refresh(project_id=project_id)
