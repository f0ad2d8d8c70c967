"""The life cycle of evaluation runs: create, start, execute batches under a lease, finish,
cancel, watch, schedule. What a run's figures are (report, verdict, drift, bands) is the report
service's: services/reports.py.

How a run travels (docs/design.md, "Background work": claim work, don't trust delivery):

1. `evaluation_run_create` stores the run and its batches (slices of the golden queries) and,
   after the commit, queues `evaluation_run_start`. Every task here is queued after the commit
   that wrote its rows, with `task.delay_on_commit(...)` (config/celery.py).
2. `evaluation_run_start` moves the run from queued to running (a conditional UPDATE, so a
   second delivery does nothing) and dispatches up to `lanes` batches.
3. `evaluation_batch_execute` claims its batch with a conditional UPDATE that sets a lease,
   asks the retriever (bounded concurrency, retries inside the client), upserts one
   QueryResult per (run, query) while renewing the lease, marks the batch done, dispatches the
   next batch and finishes the run when every batch is done. A batch that is done, or leased
   by a live worker, is not claimed again: running it twice changes nothing.
4. `evaluation_run_finish` has the report service (services/reports.py) recompute the report
   from the stored rows and check drift against the retriever's baseline, then sets the final
   state with a conditional UPDATE (so two finishers store one outcome and one alert).
5. `evaluation_watchdog` (Celery beat) re-dispatches batches whose lease expired (their worker
   died) or whose message was lost, restarts runs whose start message was lost, and finishes
   runs whose last batch finished without finishing them.

`lanes` bounds how many batches of one run are in flight at a time; each lane gets an equal
share of the retriever's maximum concurrency, so the retriever never sees more than that.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone, translation
from django.utils.translation import gettext

from annotation.models import Project
from annotation.models.goldsets import GoldenItem, GoldenSetVersion
from annotation.selectors.corpus import corpus_version_live
from evaluation.models import (
    FINISHED_STATES,
    AnswerJudge,
    Baseline,
    BatchState,
    DriftAlert,
    EvaluationRun,
    Matching,
    QueryResult,
    Retriever,
    RetrieverKind,
    RunBatch,
    RunFileRow,
    RunState,
    Schedule,
)
from evaluation.selectors.corpus import corpus_state
from evaluation.selectors.goldsets import golden_items
from evaluation.services.answers import judge_run_answers
from evaluation.services.executors import stream_outcomes
from evaluation.services.reports import RunInvalid, run_assessment, run_report
from evaluation.services.retrievers import (
    RetrieverInvalid,
    retriever_snapshot,
    snapshot_fingerprint,
)
from evaluation.services.settings import DEFAULT_KS, project_settings
from goldsmith import reporting, text
from goldsmith.retrievers.http import Outcome

logger = logging.getLogger(__name__)

MAX_K = 1000
MAX_ATTEMPTS = 5  # a batch that crashed its worker this often fails the run
FLUSH_SECONDS = 0.5
FLUSH_ROWS = 200
SNIPPET_CHARS = 240
MAX_CONTEXTS = 100  # contexts kept per query (a model is given far fewer)
SCHEDULE_INTERVALS = {
    Schedule.HOURLY: timedelta(hours=1),
    Schedule.NIGHTLY: timedelta(days=1),
    Schedule.WEEKLY: timedelta(days=7),
}


def _clean_ks(ks: Sequence[int] | None) -> list[int]:
    values = sorted({int(k) for k in (ks or DEFAULT_KS)})
    if not values or values[0] < 1 or values[-1] > MAX_K:
        raise RunInvalid(gettext("cut-offs K must be between 1 and %(max)s") % {"max": MAX_K})
    return values


def _default_batch_size(kind: str) -> int:
    return {RetrieverKind.HTTP: 200, RetrieverKind.RUNFILE: 2000}.get(kind, 500)


# --------------------------------------------------------------------------------------------
# Create, start, cancel


def evaluation_run_create(
    *,
    project: Project,
    retriever: Retriever,
    version: GoldenSetVersion,
    ks: Sequence[int] | None = None,
    relevance_threshold: int = 2,
    gain: str = "linear",
    matching: str = Matching.CHUNK,
    pass_threshold: float | None = None,
    headline_k: int | None = None,
    by: AbstractBaseUser | None = None,
    trigger: str = "web",
    batch_size: int | None = None,
    lanes: int | None = None,
    lease_seconds: int | None = None,
    machine_grades: bool = True,
    answer_judge: AnswerJudge | None = None,
    enqueue: bool = True,
) -> EvaluationRun:
    """A queued run of `retriever` against the frozen `version`; queued for a worker after
    the commit unless `enqueue` is False (the caller then runs it, e.g. inline).

    The run keeps the project's headline K (that of its verdict and drift; `headline_k`
    overrides it), and its cut-offs always include it. `machine_grades` False leaves the
    version's machine grades out of the scoring (those chunks count as unjudged); the report
    states which. `answer_judge` (one of the project's) scores the open answers' correctness
    when the run finishes; the rules score the rest."""
    if retriever.project_id != project.pk or version.project_id != project.pk:
        raise RunInvalid(gettext("the retriever and the version must belong to this project"))
    if answer_judge is not None and answer_judge.project_id != project.pk:
        raise RunInvalid(gettext("the answer judge must belong to this project"))
    if relevance_threshold not in (1, 2):
        raise RunInvalid(gettext("the relevance threshold is 2 (strict) or 1 (lenient)"))
    if gain not in ("linear", "exp"):
        raise RunInvalid(gettext("gain is 'linear' or 'exp'"))
    if matching not in Matching.values:
        raise RunInvalid(
            gettext("matching is one of %(names)s") % {"names": ", ".join(Matching.values)}
        )
    project_wide = project_settings(project=project)
    if pass_threshold is None:
        pass_threshold = float(project_wide.targets.pass_threshold)
    if not 0.0 <= pass_threshold <= 1.0:
        raise RunInvalid(gettext("the pass threshold must be between 0 and 1"))
    headline = int(headline_k if headline_k is not None else project_wide.headline_k)
    if not 1 <= headline <= MAX_K:
        raise RunInvalid(gettext("the headline K must be between 1 and %(max)s") % {"max": MAX_K})
    clean_ks = _clean_ks([*(ks or DEFAULT_KS), headline])
    try:
        snapshot = retriever_snapshot(retriever)
    except RetrieverInvalid as error:
        raise RunInvalid(str(error)) from None
    query_ids = list(
        GoldenItem.objects.filter(version=version)
        .order_by("position")
        .values_list("query_id", flat=True)
    )
    if not query_ids:
        raise RunInvalid(gettext("version %(label)s has no queries") % {"label": version.label})
    if retriever.kind == RetrieverKind.RUNFILE:
        _refuse_a_run_file_of_other_queries(snapshot, version, query_ids)
    corpus_hash, corpus_chunks = corpus_state(project=project)
    corpus_version = corpus_version_live(project=project)
    builtin = retriever.kind in (RetrieverKind.BM25, RetrieverKind.TFIDF)
    if builtin and not corpus_chunks:
        raise RunInvalid(
            gettext("the project has no corpus for a built-in retriever: import one first")
        )
    size = max(
        1,
        batch_size or settings.GOLDSMITH_EVAL_BATCH_SIZE or _default_batch_size(retriever.kind),
    )
    n_batches = -(-len(query_ids) // size)
    lanes = max(1, min(lanes or settings.GOLDSMITH_EVAL_LANES, n_batches))
    with transaction.atomic():
        run = EvaluationRun.objects.create(
            project=project,
            retriever=retriever,
            version=version,
            ks=clean_ks,
            relevance_threshold=relevance_threshold,
            gain=gain,
            matching=matching,
            pass_threshold=pass_threshold,
            headline_k=headline,
            retriever_snapshot=snapshot,
            retriever_fingerprint=snapshot_fingerprint(snapshot),
            corpus_hash=corpus_hash,
            corpus_chunks=corpus_chunks,
            corpus_version=corpus_version,
            tokenizer=project.tokenizer if builtin else "",
            total=len(query_ids),
            batch_size=size,
            lanes=lanes,
            lease_seconds=lease_seconds or settings.GOLDSMITH_EVAL_LEASE_SECONDS,
            trigger=trigger,
            machine_grades=machine_grades,
            answer_judge=answer_judge,
            created_by=by if getattr(by, "pk", None) else None,
        )
        RunBatch.objects.bulk_create(
            [
                RunBatch(run=run, index=i, query_ids=query_ids[i * size : (i + 1) * size])
                for i in range(n_batches)
            ]
        )
        if enqueue:
            from evaluation.tasks import evaluation_run_start

            evaluation_run_start.delay_on_commit(run.pk, language=translation.get_language())
    return run


def _refuse_a_run_file_of_other_queries(
    snapshot: dict[str, Any], version: GoldenSetVersion, query_ids: list[str]
) -> None:
    """A run file that answers none of the version's queries would score every query 0 as
    missing from the run (a file of another query set, or ids written another way): refused,
    as `goldsmith eval` refuses it, naming the file and both first ids."""
    rows = RunFileRow.objects.filter(run_file_id=snapshot["run_file_id"])
    asked = GoldenItem.objects.filter(version=version).values("query_id")
    if rows.filter(query_id__in=asked).exists():
        return
    first = rows.order_by("pk").values_list("query_id", flat=True).first()
    raise RunInvalid(
        gettext(
            "the run file %(file)s shares no query id with version %(label)s (the file's "
            "first: %(run_first)r, the version's first: %(gold_first)r): every query would "
            "score 0 as missing from the run"
        )
        % {
            "file": snapshot.get("filename", ""),
            "label": version.label,
            "run_first": first,
            "gold_first": query_ids[0],
        }
    )


def _claim_run(run_id: int) -> bool:
    now = timezone.now()
    return (
        EvaluationRun.objects.filter(pk=run_id, state=RunState.QUEUED).update(
            state=RunState.RUNNING, started_at=now
        )
        == 1
    )


def evaluation_run_start(*, run_id: int) -> None:
    """Queued → running, then dispatch the first batches. Safe to run twice."""
    _claim_run(run_id)
    _dispatch(run_id)


def evaluation_run_cancel(*, run: EvaluationRun) -> bool:
    """Cancel a queued or running run; batches in flight stop at their next save."""
    return (
        EvaluationRun.objects.filter(
            pk=run.pk, state__in=[RunState.QUEUED, RunState.RUNNING]
        ).update(state=RunState.CANCELLED, finished_at=timezone.now(), error="cancelled")
        == 1
    )


# --------------------------------------------------------------------------------------------
# Dispatching batches


def _live(now: datetime, stale: datetime) -> Q:
    """A batch in flight: leased by a live worker, or sent to the broker recently."""
    return Q(state=BatchState.RUNNING, lease_expires_at__gte=now) | Q(dispatched_at__gte=stale)


def _dispatch(run_id: int) -> int:
    """Send batches until `lanes` are in flight. Batches whose lease expired or whose message
    was sent long ago and never claimed are sent again. Returns how many were sent."""
    from evaluation.tasks import evaluation_batch_execute

    sent = 0
    with transaction.atomic():
        run = (
            EvaluationRun.objects.select_for_update()
            .filter(pk=run_id, state=RunState.RUNNING)
            .first()
        )
        if run is None:
            return 0
        now = timezone.now()
        stale = now - timedelta(seconds=run.lease_seconds)
        open_batches = RunBatch.objects.filter(run=run).exclude(state=BatchState.DONE)
        free = run.lanes - open_batches.filter(_live(now, stale)).count()
        if free <= 0:
            return 0
        for batch in open_batches.exclude(_live(now, stale)).order_by("index")[:free]:
            RunBatch.objects.filter(pk=batch.pk).update(dispatched_at=now)
            evaluation_batch_execute.delay_on_commit(
                run_id, batch.index, language=translation.get_language()
            )
            sent += 1
    return sent


# --------------------------------------------------------------------------------------------
# Executing one batch


def _claim_batch(batch: RunBatch, run: EvaluationRun, owner: str) -> bool:
    now = timezone.now()
    return (
        RunBatch.objects.filter(pk=batch.pk)
        .filter(
            Q(state=BatchState.PENDING)
            | Q(state=BatchState.RUNNING, lease_expires_at__lt=now)
            | Q(state=BatchState.RUNNING, lease_expires_at__isnull=True)
        )
        .update(
            state=BatchState.RUNNING,
            lease_owner=owner,
            lease_expires_at=now + timedelta(seconds=run.lease_seconds),
            attempts=F("attempts") + 1,
            started_at=now,
        )
        == 1
    )


def _result_row(run: EvaluationRun, batch: int, outcome: Outcome) -> QueryResult:
    hits = outcome.hits[: run.depth]
    has_docs = any(h.doc_id for h in hits)
    has_text = any(h.text for h in hits)
    stages = outcome.stages
    candidates = None if stages.candidates is None else stages.candidates[:MAX_K]
    return QueryResult(
        run=run,
        query_id=outcome.query_id,
        ranked_ids=[h.id for h in hits],
        scores=[h.score for h in hits],
        doc_ids=[h.doc_id for h in hits] if has_docs else [],
        snippets=[(h.text or "")[:SNIPPET_CHARS] for h in hits] if has_text else [],
        candidates=None if candidates is None else [h.id for h in candidates],
        candidate_scores=[] if candidates is None else [h.score for h in candidates],
        contexts=None
        if stages.contexts is None
        else [{"id": i, "text": t} for i, t in stages.contexts[:MAX_CONTEXTS]],
        response=stages.response,
        latency_ms=outcome.latency_ms,
        attempts=min(outcome.attempts, 32767),
        error=outcome.error[:2000],
        batch=batch,
        updated_at=timezone.now(),
    )


# A batch run again replaces every column of its queries' rows but the key.
_UPSERT_FIELDS = [
    f.name for f in QueryResult._meta.concrete_fields if f.name not in ("id", "run", "query_id")
]


def _save(run: EvaluationRun, batch: RunBatch, owner: str, outcomes: list[Outcome]) -> bool:
    """Upsert results and renew the lease in one transaction, only while the lease is ours
    and the run is still running. False: stop (lease lost or run cancelled)."""
    with transaction.atomic():
        renewed = RunBatch.objects.filter(
            pk=batch.pk, lease_owner=owner, state=BatchState.RUNNING
        ).update(lease_expires_at=timezone.now() + timedelta(seconds=run.lease_seconds))
        if not renewed:
            return False
        if outcomes:
            QueryResult.objects.bulk_create(
                [_result_row(run, batch.index, o) for o in outcomes],
                update_conflicts=True,
                unique_fields=["run", "query_id"],
                update_fields=_UPSERT_FIELDS,
            )
    state = EvaluationRun.objects.filter(pk=run.pk).values_list("state", flat=True).first()
    return state == RunState.RUNNING


def evaluation_batch_execute(*, run_id: int, batch: int, dispatch: bool = True) -> str:
    """Claim batch `batch` of run `run_id` and run it. Returns what happened (for logs/tests):
    "done", "skipped" (run not running / batch not claimable), "stopped" (lease lost or run
    cancelled while working) or "error"."""
    run = EvaluationRun.objects.select_related("retriever").filter(pk=run_id).first()
    if run is None or run.state != RunState.RUNNING:
        return "skipped"
    row = RunBatch.objects.filter(run=run, index=batch).first()
    if row is None:
        return "skipped"
    if row.attempts >= MAX_ATTEMPTS and row.state != BatchState.DONE:
        _fail(
            run,
            gettext("batch %(batch)s was attempted %(attempts)s times without finishing")
            % {"batch": batch, "attempts": row.attempts},
        )
        return "error"
    owner = uuid.uuid4().hex
    if not _claim_batch(row, run, owner):
        return "skipped"
    outcome = "done"
    try:
        answered = set(
            QueryResult.objects.filter(run=run, batch=row.index, error="").values_list(
                "query_id", flat=True
            )
        )
        todo = [q for q in row.query_ids if q not in answered]  # resume after a crash
        items = [
            (i.query_id, i.text)
            for i in golden_items(version_id=run.version_id, query_ids=todo, with_judgments=False)
        ]
        buffer: list[Outcome] = []
        last = time.monotonic()
        stream = stream_outcomes(run=run, retriever=run.retriever, items=items, tick=FLUSH_SECONDS)
        try:
            for outcomes in stream:
                buffer.extend(outcomes)
                if time.monotonic() - last >= FLUSH_SECONDS or len(buffer) >= FLUSH_ROWS:
                    if not _save(run, row, owner, buffer):
                        return "stopped"
                    buffer, last = [], time.monotonic()
        finally:
            stream.close()
        if not _save(run, row, owner, buffer):
            return "stopped"
        RunBatch.objects.filter(pk=row.pk, lease_owner=owner, state=BatchState.RUNNING).update(
            state=BatchState.DONE, finished_at=timezone.now(), lease_expires_at=None
        )
    except Exception:
        logger.exception("run %s batch %s failed; its lease is released for a retry", run_id, batch)
        RunBatch.objects.filter(pk=row.pk, lease_owner=owner).update(
            lease_expires_at=timezone.now(), dispatched_at=None
        )
        outcome = "error"
    if dispatch:
        _dispatch(run_id)
        if not RunBatch.objects.filter(run_id=run_id).exclude(state=BatchState.DONE).exists():
            evaluation_run_finish(run_id=run_id)
    return outcome


def evaluation_run_execute_inline(*, run_id: int) -> EvaluationRun:
    """Run a queued run in this process, batch after batch, without a broker (CLI --inline)."""
    _claim_run(run_id)
    for index in (
        RunBatch.objects.filter(run_id=run_id).order_by("index").values_list("index", flat=True)
    ):
        evaluation_batch_execute(run_id=run_id, batch=index, dispatch=False)
    return evaluation_run_finish(run_id=run_id)


# --------------------------------------------------------------------------------------------
# Finishing: the report and the drift alert


def _fail(run: EvaluationRun, error: str) -> None:
    EvaluationRun.objects.filter(pk=run.pk, state=RunState.RUNNING).update(
        state=RunState.FAILED, error=error[:2000], finished_at=timezone.now()
    )


def evaluation_run_finish(*, run_id: int) -> EvaluationRun:
    """Compute the report from the stored rows and set the final state (once)."""
    run = EvaluationRun.objects.select_related("project", "retriever").get(pk=run_id)
    if run.state != RunState.RUNNING:
        return run
    if RunBatch.objects.filter(run=run).exclude(state=BatchState.DONE).exists():
        return run
    state, error = RunState.SUCCEEDED, ""
    drift: dict[str, Any] | None = None
    verdict = ""
    try:
        if run.answer_judge_id is not None and not run.judge_results:
            # One worker judges (the judge may be a paid model, and judging may outlast the
            # watchdog's 30 s tick, which calls this again): another finds the lease taken
            # and leaves the run to the one judging.
            lease = f"goldsmith:judging-run:{run.pk}"
            if not cache.add(lease, 1, timeout=settings.CELERY_TASK_TIME_LIMIT):
                return run
            try:
                run.judge_results = judge_run_answers(run)
                EvaluationRun.objects.filter(pk=run.pk).update(judge_results=run.judge_results)
            finally:
                cache.delete(lease)
        report = run_report(run)
        assessment = run_assessment(run, report)
        report["verdict"] = assessment["verdict"]
        verdict = assessment["verdict"]["verdict"]
        drift = assessment["drift"]
        if drift is not None:
            report["drift"] = drift
        # The one place a stored report is assembled: undefined means (no relevant chunk)
        # become null here, whatever part of the engine produced them, and every sentence
        # keeps its template and values beside its English (goldsmith.text.templates_of).
        report["templates"] = text.templates_of(report)
        report = reporting.strict_json(report)
        drift = report.get("drift")
        counts = report["counts"]
        if counts["answered"] == 0:
            first = (report.get("failed_queries") or [{"error": "no result"}])[0]["error"]
            state = RunState.FAILED
            error = gettext("every query failed (e.g. %(error)s)") % {"error": first}
    except Exception as exc:
        logger.exception("report of run %s failed", run_id)
        report, drift, verdict = {}, None, ""
        state = RunState.FAILED
        error = gettext("the report could not be computed (%(reason)s)") % {"reason": _reason(exc)}
    failed = int(report.get("counts", {}).get("failed", 0))
    try:
        _finish_save(run, state, error, report, failed, verdict, drift)
    except Exception as exc:
        # Without this the run would stay "running" at 100% for ever (the watchdog would
        # try again and fail the same way): it ends as failed, with the reason.
        logger.exception("the finished run %s could not be saved", run_id)
        _fail(
            run,
            gettext("the report could not be saved (%(reason)s)") % {"reason": _reason(exc)},
        )
    run.refresh_from_db()
    return run


def _reason(exc: Exception) -> str:
    """An exception in a few words for a run's error: its type and first line."""
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _finish_save(
    run: EvaluationRun,
    state: str,
    error: str,
    report: dict[str, Any],
    failed: int,
    verdict: str,
    drift: dict[str, Any] | None,
) -> None:
    with transaction.atomic():
        updated = EvaluationRun.objects.filter(pk=run.pk, state=RunState.RUNNING).update(
            state=state,
            report=report,
            error=error,
            failed_queries=failed,
            verdict=verdict if state == RunState.SUCCEEDED else "",
            finished_at=timezone.now(),
        )
        if updated and drift and drift["fired"]:
            alert, _ = DriftAlert.objects.update_or_create(
                run=run,
                defaults={
                    "baseline_run_id": drift["baseline_run"],
                    "fired": drift["fired"],
                    "changed": drift["changed"],
                    "newly_failing": drift["newly_failing"],
                },
            )
            if project_settings(project=run.project).webhook_url:
                from evaluation.tasks import evaluation_alert_notify

                evaluation_alert_notify.delay_on_commit(alert.pk)


# --------------------------------------------------------------------------------------------
# Baselines, watchdog, schedules


def baseline_set(*, run: EvaluationRun, by: AbstractBaseUser | None = None) -> Baseline:
    if run.state != RunState.SUCCEEDED:
        raise RunInvalid(gettext("only a succeeded run can be a baseline"))
    baseline, _ = Baseline.objects.update_or_create(
        retriever=run.retriever,
        defaults={"run": run, "set_by": by if getattr(by, "pk", None) else None},
    )
    return baseline


def evaluation_watchdog() -> dict[str, int]:
    """Re-dispatch expired or lost batches, restart lost starts, finish forgotten runs."""
    from evaluation.tasks import evaluation_run_start

    counts = {"resent": 0, "finished": 0, "restarted": 0}
    now = timezone.now()
    for run_id in EvaluationRun.objects.filter(state=RunState.RUNNING).values_list("pk", flat=True):
        if not RunBatch.objects.filter(run_id=run_id).exclude(state=BatchState.DONE).exists():
            if evaluation_run_finish(run_id=run_id).state in FINISHED_STATES:
                counts["finished"] += 1
            continue
        counts["resent"] += _dispatch(run_id)
    for run_id, lease in EvaluationRun.objects.filter(state=RunState.QUEUED).values_list(
        "pk", "lease_seconds"
    ):
        run = EvaluationRun.objects.get(pk=run_id)
        if run.created_at < now - timedelta(seconds=lease):
            evaluation_run_start.delay_on_commit(run_id)
            counts["restarted"] += 1
    return counts


def evaluation_schedule_due(*, now: datetime | None = None) -> list[int]:
    """Create the runs of scheduled retrievers that are due, on the project's latest version,
    with the settings of the retriever's latest run. Returns the new runs' ids."""
    now = now or timezone.now()
    created: list[int] = []
    for retriever in Retriever.objects.exclude(schedule="").select_related("project"):
        interval = SCHEDULE_INTERVALS.get(retriever.schedule)  # type: ignore[call-overload]  # schedule is one of the Schedule choices, the keys
        if interval is None:
            continue
        last = retriever.last_scheduled_at
        if last is not None and last > now - interval:
            continue
        # Claim the slot first, so that two schedulers do not both create the run.
        claimed = Retriever.objects.filter(pk=retriever.pk, last_scheduled_at=last).update(
            last_scheduled_at=now
        )
        if not claimed:
            continue
        version = (
            GoldenSetVersion.objects.filter(project=retriever.project)
            .order_by("-created_at", "-id")
            .first()
        )
        if version is None:
            continue
        previous = retriever.runs.order_by("-created_at").first()
        try:
            run = evaluation_run_create(
                project=retriever.project,
                retriever=retriever,
                version=version,
                ks=previous.ks if previous else None,
                relevance_threshold=previous.relevance_threshold if previous else 2,
                gain=previous.gain if previous else "linear",
                matching=previous.matching if previous else Matching.CHUNK,
                trigger="schedule",
            )
        except RunInvalid as error:
            logger.warning("scheduled run of retriever %s not created: %s", retriever.pk, error)
            continue
        created.append(run.pk)
    return created
