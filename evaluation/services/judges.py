"""Machine judges that the evaluation app calls: registering one (an HTTP endpoint, the
built-in keyword stub, or a file of grades), and the Celery job that has it grade candidates.

The grades themselves, the files of grades and filling gaps are annotation's
(`annotation.services.machine`); this module holds what needs the network and the secrets: an
HTTP judge is configured, guarded and called like an HTTP retriever (same SSRF policy, auth
header stored encrypted or read on the worker from an exposed variable, retries, concurrency),
and no task argument, response or log line carries its secret.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from annotation.models import MachineJudge, MachineJudgeKind, Project
from annotation.selectors.judging import graded_text
from annotation.selectors.machine import (
    SCOPES,
    AgreementAsOf,
    judge_agreement,
    judge_agreement_as_of,
    judge_candidates,
)
from annotation.services.machine import JudgeInvalid, machine_grades_store, machine_judge_add
from evaluation import credentials
from evaluation.models import FINISHED_STATES, JudgeEndpoint, JudgingJob, RunState
from evaluation.services.endpoints import auth_changes, auth_header, config_check, ssrf_policy
from goldsmith.judges import (
    HttpJudgeClient,
    HttpJudgeConfig,
    JudgeItem,
    Verdict,
    keyword_overlap_grade,
)

log = logging.getLogger(__name__)
CALLED = (MachineJudgeKind.HTTP, MachineJudgeKind.KEYWORD)  # kinds a job calls


@transaction.atomic
def judge_register(
    *,
    project: Project,
    name: str,
    kind: str,
    config: Mapping[str, Any] | None = None,
    auth_header_name: str | None = None,
    auth_header_value: str | None = None,
    auth_header_env: str | None = None,
    by: AbstractBaseUser | None = None,
) -> MachineJudge:
    """Register a machine judge: ``http`` (with `config`, the settings of
    `goldsmith.judges.HttpJudgeConfig`, and optionally an auth header), ``keyword`` (the
    built-in stub) or ``file`` (grades uploaded later). Nothing is saved when anything is
    refused: JudgeInvalid, or EndpointInvalid naming the field (``config.url``,
    ``auth_header_env``…); no message holds the secret."""
    if kind != MachineJudgeKind.HTTP and (
        config or auth_header_name or auth_header_value or auth_header_env
    ):
        raise JudgeInvalid("only HTTP judges take settings and an auth header")
    endpoint = None
    if kind == MachineJudgeKind.HTTP:
        clean = config_check(
            HttpJudgeConfig, config or {}, unknown=gettext("unknown HTTP judge setting %(name)r")
        )
        auth = auth_changes(None, auth_header_name, auth_header_value, auth_header_env)
        endpoint = JudgeEndpoint(config=clean, **auth)
    judge = machine_judge_add(project=project, name=name, kind=kind, by=by)
    if endpoint is not None:
        endpoint.judge = judge
        endpoint.save()
    return judge


def judging_job_create(
    *, judge: MachineJudge, scope: str, by: AbstractBaseUser | None = None, enqueue: bool = True
) -> JudgingJob:
    """Queue a pass of `judge` over the candidates in `scope` (all, new: not graded by this
    judge, unjudged: graded by no person); a worker runs it after the commit. Refuses a judge
    of kind file (its grades come from a file) and a second pass while one is unfinished."""
    from evaluation.tasks import judging_job_execute

    if judge.kind not in CALLED:
        raise JudgeInvalid("a judge of kind 'file' is not called: upload its grades instead")
    if scope not in SCOPES:
        raise JudgeInvalid(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
    with transaction.atomic():
        MachineJudge.objects.select_for_update().filter(pk=judge.pk).first()
        if JudgingJob.objects.filter(judge=judge).exclude(state__in=FINISHED_STATES).exists():
            raise JudgeInvalid("this judge is already judging; wait for it or cancel it")
        job = JudgingJob.objects.create(
            judge=judge,
            scope=scope,
            total=judge_candidates(judge=judge, scope=scope).count(),
            created_by=by if getattr(by, "pk", None) else None,
        )
        if enqueue:
            judging_job_execute.delay_on_commit(job.pk)
    return job


def judging_job_cancel(*, job: JudgingJob) -> bool:
    """Cancel a queued or running job; a running one stops after its current batch."""
    return (
        JudgingJob.objects.filter(pk=job.pk, state__in=[RunState.QUEUED, RunState.RUNNING]).update(
            state=RunState.CANCELLED, finished_at=timezone.now(), error="cancelled"
        )
        == 1
    )


def _items(candidate_ids: list[int]) -> list[JudgeItem]:
    from annotation.models import Candidate

    rows = (
        Candidate.objects.filter(pk__in=candidate_ids)
        .annotate(text=graded_text())
        .values_list("pk", "query_id", "query__text", "chunk__chunk_id", "text")
    )
    found = {row[0]: row for row in rows}
    return [
        JudgeItem(key=pk, query_id=str(qid), query=query, chunk_id=chunk_id, chunk=text)
        for pk, qid, query, chunk_id, text in (found[c] for c in candidate_ids if c in found)
    ]


def _verdicts(
    judge: MachineJudge, client: HttpJudgeClient | None, items: list[JudgeItem]
) -> list[Verdict]:
    if client is None:  # the keyword stub
        return [Verdict(i.key, *keyword_overlap_grade(i.query, i.chunk), attempts=1) for i in items]
    return client.judge_many(items)


def _client(judge: MachineJudge) -> HttpJudgeClient:
    endpoint = JudgeEndpoint.objects.get(judge=judge)
    known = set(HttpJudgeConfig.__dataclass_fields__)
    config = HttpJudgeConfig(**{k: v for k, v in endpoint.config.items() if k in known})
    return HttpJudgeClient(config, policy=ssrf_policy(), auth_header=auth_header(endpoint))


def judging_job_execute(*, job_id: int) -> str:
    """Run a judging job (the Celery task's body; safe to run twice: grades are upserted per
    judge and candidate, and a finished job is left alone). Candidates go to the judge in
    batches of its `batch_size` (the stub: 200); each batch's grades are stored and the job's
    progress saved before the next batch; a cancelled job stops between batches. Candidates
    whose request failed after its retries are counted in `failed`, the first error kept."""
    now = timezone.now()
    claimed = JudgingJob.objects.filter(pk=job_id, state=RunState.QUEUED).update(
        state=RunState.RUNNING, started_at=now
    )
    job = JudgingJob.objects.select_related("judge").filter(pk=job_id).first()
    if job is None or (not claimed and job.state != RunState.RUNNING):
        return "skipped"
    judge = job.judge
    ids = list(judge_candidates(judge=judge, scope=job.scope).values_list("pk", flat=True))
    JudgingJob.objects.filter(pk=job_id).update(total=len(ids), done=0, failed=0)
    client = None
    try:
        if judge.kind == MachineJudgeKind.HTTP:
            client = _client(judge)
            size = client.config.batch_size
        else:
            size = 200
        done = failed = 0
        first_error = ""
        for start in range(0, len(ids), size):
            if JudgingJob.objects.filter(pk=job_id, state=RunState.CANCELLED).exists():
                return "cancelled"
            verdicts = _verdicts(judge, client, _items(ids[start : start + size]))
            good = {v.key: (v.grade, v.reason) for v in verdicts if v.grade is not None}
            machine_grades_store(judge=judge, grades=good)  # type: ignore[arg-type]
            bad = [v for v in verdicts if v.grade is None]
            first_error = first_error or (bad[0].error if bad else "")
            done += len(verdicts)
            failed += len(bad)
            JudgingJob.objects.filter(pk=job_id).update(done=done, failed=failed, error=first_error)
    except credentials.SecretUnavailable as error:
        _finish(job_id, RunState.FAILED, str(error))
        return "failed"
    except Exception:
        log.exception("judging job %s failed", job_id)  # ids only: no secret
        _finish(
            job_id, RunState.FAILED, "the job stopped on an unexpected error (see the worker's log)"
        )
        raise
    finally:
        if client is not None:
            client.__exit__()
    state = RunState.FAILED if ids and failed == len(ids) else RunState.SUCCEEDED
    _finish(job_id, state, first_error)
    # The dashboard's figures for the new grades, computed here rather than on the lead's
    # first visit (a large project takes seconds: docs/benchmarks.md).
    judge_agreement(project=judge.project)
    return state


def _finish(job_id: int, state: str, error: str) -> None:
    JudgingJob.objects.filter(pk=job_id).exclude(state=RunState.CANCELLED).update(
        state=state, error=error, finished_at=timezone.now()
    )


REFRESH_LOCK_SECONDS = 300  # a refresh that died frees its lock after this long


def _refresh_lock(project_id: int) -> str:
    return f"goldsmith:judge-agreement-refreshing:{project_id}"


def judge_agreement_shown(*, project: Project) -> AgreementAsOf:
    """The judge table for a page, at once: the latest figures computed (current or not), and,
    when they are not current, a recomputation queued for a worker (at most one at a time per
    project), so a lead's page never waits the seconds a large project takes
    (docs/benchmarks.md, "Machine judges: kappa with its interval"). The page says when figures
    are older than the latest grades; the API (`judge_agreement`) always computes them."""
    shown = judge_agreement_as_of(project=project)
    # Not current, or never computed (a judging job computes them as it ends; a file of grades
    # or a cache that dropped them leaves none): a worker computes them, the page says so.
    if not shown.current and cache.add(_refresh_lock(project.pk), 1, REFRESH_LOCK_SECONDS):
        from evaluation import tasks

        transaction.on_commit(lambda: tasks.judge_agreement_refresh.delay(project.pk))
    return shown


def judge_agreement_refresh(*, project_id: int) -> None:
    """Compute and cache a project's judge table (the worker's side of
    `judge_agreement_shown`); frees the project's refresh lock, even on an error."""
    try:
        project = Project.objects.filter(pk=project_id).first()
        if project is not None:
            judge_agreement(project=project)
    finally:
        cache.delete(_refresh_lock(project_id))
