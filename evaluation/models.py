"""Measurement: retrievers under test, evaluation runs and their results, baselines and drift.

Retriever ──< EvaluationRun ──< RunBatch        (a slice of the queries; claimed with a lease)
   │              │        └──< QueryResult     (one per (run, query): ranked ids, latency, error)
   │              └── DriftAlert                (rules that fired against the baseline)
   ├── Baseline (the run later runs are checked against)
   └──< RunFile ──< RunFileRow                  (an uploaded TREC/JSONL run, one row per query)
Project ── EvaluationSettings                   (scenario preset, bands, drift rules, webhook)
MachineJudge ── JudgeEndpoint                   (an HTTP judge's URL, settings, secret)
             └──< JudgingJob                    (one pass of a judge over candidates, progress)
Project ──< AnswerJudge                         (an HTTP judge of open answers and its secret)

A run pins a frozen GoldenSetVersion (never live labels) and snapshots the retriever's
configuration and the corpus state, so a drift alert can say what changed since the baseline.
Progress and state live here, never only in the broker.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy

from annotation.models import Project
from annotation.models.goldsets import GoldenSetVersion
from goldsmith.bands import DEFAULT_PRESET, PRESETS


class StrictJSONEncoder(json.JSONEncoder):
    """JSON that refuses NaN and infinities (ValueError), as PostgreSQL's jsonb does and SQLite
    would not: a report holding one fails where it is saved instead of being stored or shown."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_nan"] = False
        super().__init__(*args, **kwargs)


class EvaluationSettings(models.Model):
    """A project's evaluation defaults. Empty thresholds fall back to the preset's."""

    project = models.OneToOneField(
        Project, on_delete=models.CASCADE, related_name="evaluation_settings"
    )
    preset = models.CharField(
        max_length=16,
        choices=[(p.key, p.label) for p in PRESETS.values()],
        default=DEFAULT_PRESET,
    )
    band_overrides = models.JSONField(default=dict, blank=True)
    pass_threshold = models.FloatField(null=True, blank=True)
    min_recall = models.FloatField(null=True, blank=True)
    min_pass_rate = models.FloatField(null=True, blank=True)
    max_recall_drop = models.FloatField(null=True, blank=True, default=0.05)
    max_pass_rate_drop = models.FloatField(null=True, blank=True, default=0.10)
    # Floors below the targets: under a floor a run fails (and the absolute alarm fires);
    # between floor and target it warns. Empty: the preset's.
    recall_floor = models.FloatField(null=True, blank=True)
    pass_rate_floor = models.FloatField(null=True, blank=True)
    # The K of verdicts, baselines and drift (the field's practice: 5).
    headline_k = models.PositiveSmallIntegerField(default=5)
    # Top-K choice: metric family -> weight; empty means the scenario's weights.
    topk_scenario = models.CharField(max_length=32, blank=True, default="")
    topk_weights = models.JSONField(default=dict, blank=True)
    # Queries whose recall@K is below this are listed for diagnosis (apart from passing).
    low_recall_cutoff = models.FloatField(default=0.2)
    # The four-quadrant diagnosis of answers (context recall × correctness): "high" at or
    # above these; empty: the run's pass threshold.
    quadrant_recall_threshold = models.FloatField(null=True, blank=True)
    quadrant_correctness_threshold = models.FloatField(null=True, blank=True)
    # Drop rules on answer metrics: metric name -> largest allowed drop of its mean.
    max_answer_drop = models.JSONField(default=dict, blank=True)
    webhook_url = models.URLField(blank=True, max_length=500)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = gettext_lazy("evaluation settings")

    def __str__(self) -> str:
        return f"evaluation settings of {self.project}"


class Made(models.Model):
    """Who made a row (kept as None when the account goes) and when."""

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True


class AuthHeaderFields(models.Model):
    """The auth header of an HTTP endpoint (a retriever, a machine judge, an answer judge):
    its name, and its value stored encrypted (`evaluation.credentials`) or read on the worker
    from an environment variable an operator exposed. Never in the endpoint's `config`, never
    returned; `evaluation.services.endpoints` changes and reads it."""

    auth_header_name = models.CharField(
        max_length=100, blank=True, help_text=gettext_lazy("e.g. Authorization")
    )
    auth_header_encrypted = models.TextField(
        blank=True, help_text=gettext_lazy("the value, encrypted; never shown")
    )
    auth_header_env = models.CharField(
        max_length=100,
        blank=True,
        help_text=gettext_lazy("or: the workers' environment variable that holds the value"),
    )

    class Meta:
        abstract = True

    @property
    def has_auth_header(self) -> bool:
        return bool(self.auth_header_name and (self.auth_header_encrypted or self.auth_header_env))

    @property
    def auth_header_source(self) -> str | None:
        """Where the value is read: "env", "stored", or None (no value)."""
        if self.auth_header_env:
            return "env"
        return "stored" if self.auth_header_encrypted else None


class RetrieverKind(models.TextChoices):
    HTTP = "http", gettext_lazy("HTTP endpoint")
    RUNFILE = "runfile", gettext_lazy("Run file")
    BM25 = "bm25", gettext_lazy("Built-in BM25")
    TFIDF = "tfidf", gettext_lazy("Built-in TF-IDF")


class Answerer(models.TextChoices):
    NONE = "", gettext_lazy("None: the retriever's own responses, if any")
    EXTRACTIVE = "extractive", gettext_lazy("The extractive baseline (no language model)")


class Schedule(models.TextChoices):
    NONE = "", gettext_lazy("Not scheduled")
    HOURLY = "hourly", gettext_lazy("Every hour")
    NIGHTLY = "nightly", gettext_lazy("Every night")
    WEEKLY = "weekly", gettext_lazy("Every week")


class Retriever(AuthHeaderFields, Made):
    """A retriever under test. `config` never holds the auth header: its value is stored
    encrypted in `auth_header_encrypted` (or read on the worker from `auth_header_env`)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="retrievers")
    name = models.CharField(max_length=120)
    kind = models.CharField(max_length=16, choices=RetrieverKind.choices)
    config = models.JSONField(default=dict, blank=True)
    schedule = models.CharField(max_length=16, choices=Schedule.choices, blank=True, default="")
    # Who answers a query when the retriever gives no response: nobody, or the extractive
    # baseline (the best-matching sentence of the top contexts), for a whole report without a
    # language model.
    answerer = models.CharField(max_length=16, choices=Answerer.choices, blank=True, default="")
    last_scheduled_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="retriever_unique_name")
        ]
        ordering = ["project", "name"]

    def __str__(self) -> str:
        return self.name


class RunFile(models.Model):
    """An uploaded run of a run-file retriever; the latest one is what new runs evaluate."""

    retriever = models.ForeignKey(Retriever, on_delete=models.CASCADE, related_name="run_files")
    filename = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    format = models.CharField(max_length=8)
    query_count = models.PositiveIntegerField(default=0)
    row_count = models.PositiveIntegerField(default=0)
    # Ids the file listed again for one query: the later copies are not stored (an id counts
    # once, at its first place in the ranking); the first repeat's place, for the page to name:
    # {"line", "first_line", "query_id", "id"} (the same line twice in a JSONL run).
    repeated_ids = models.PositiveIntegerField(default=0)
    first_repeat = models.JSONField(null=True, blank=True, default=None)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["retriever", "-created_at", "-id"]

    def __str__(self) -> str:
        return self.filename


class RunFileRow(models.Model):
    """The ranked list of one query in an uploaded run (in the retriever's order)."""

    run_file = models.ForeignKey(RunFile, on_delete=models.CASCADE, related_name="rows")
    query_id = models.CharField(max_length=255)
    ids = models.JSONField(default=list)
    scores = models.JSONField(default=list)
    # The other stages of a RAG pipeline (docs/formats.md, "stages"): the first-stage
    # candidates (ids and scores; null: the retriever has no first stage), the contexts given
    # to the model ([{"id", "text"}]; null: the top K of the list) and the response.
    candidates = models.JSONField(null=True, blank=True, default=None)
    candidate_scores = models.JSONField(default=list, blank=True)
    contexts = models.JSONField(null=True, blank=True, default=None)
    response = models.TextField(null=True, blank=True)  # noqa: DJ001

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run_file", "query_id"], name="runfilerow_unique")
        ]

    def __str__(self) -> str:
        return f"{self.run_file_id}/{self.query_id}"


class RunState(models.TextChoices):
    QUEUED = "queued", gettext_lazy("Queued")
    RUNNING = "running", gettext_lazy("Running")
    SUCCEEDED = "succeeded", gettext_lazy("Succeeded")
    FAILED = "failed", gettext_lazy("Failed")
    CANCELLED = "cancelled", gettext_lazy("Cancelled")


FINISHED_STATES = (RunState.SUCCEEDED, RunState.FAILED, RunState.CANCELLED)


class Matching(models.TextChoices):
    CHUNK = "chunk", gettext_lazy("By chunk id")
    DOCUMENT = "document", gettext_lazy("By document id")
    SPAN = "span", gettext_lazy("By span overlap (re-chunked corpora)")


class EvaluationRun(Made):
    """One evaluation of a retriever against a frozen version.

    `report` is computed from the stored QueryResult rows when the run finishes (and can be
    recomputed from them at any time); it is a cache, not a source of truth."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="evaluation_runs")
    retriever = models.ForeignKey(Retriever, on_delete=models.PROTECT, related_name="runs")
    version = models.ForeignKey(
        GoldenSetVersion, on_delete=models.PROTECT, related_name="evaluation_runs"
    )
    ks = models.JSONField(default=list)
    relevance_threshold = models.PositiveSmallIntegerField(default=2)
    gain = models.CharField(max_length=8, default="linear")
    matching = models.CharField(max_length=16, choices=Matching.choices, default=Matching.CHUNK)
    pass_threshold = models.FloatField(default=0.7)
    # The K of the verdict and of drift, taken from the project's settings at creation
    # (null on runs made before it existed: they used 10 when measured, else their largest K).
    headline_k = models.PositiveSmallIntegerField(null=True, blank=True)
    # What was measured: the retriever's configuration (no secret) and the corpus, at creation.
    retriever_snapshot = models.JSONField(default=dict)
    retriever_fingerprint = models.CharField(max_length=64, blank=True)
    corpus_hash = models.CharField(max_length=71, blank=True)
    corpus_chunks = models.PositiveIntegerField(default=0)
    # The corpus version the run ran against: the live one when it was created (null when the
    # project has none). Built-in retrievers search exactly that corpus; for HTTP retrievers
    # and run files it is assumed, and the report says so.
    corpus_version = models.ForeignKey(
        "annotation.CorpusVersion",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="evaluation_runs",
    )
    # How the built-in retriever's index cut the texts (the project's tokenizer when the run
    # was made; "" for HTTP retrievers and run files): runs compare only under one tokenizer.
    tokenizer = models.CharField(max_length=16, blank=True, default="")
    state = models.CharField(max_length=16, choices=RunState.choices, default=RunState.QUEUED)
    error = models.TextField(blank=True)
    total = models.PositiveIntegerField(default=0)
    failed_queries = models.PositiveIntegerField(default=0)
    batch_size = models.PositiveIntegerField(default=200)
    lanes = models.PositiveSmallIntegerField(default=2)
    lease_seconds = models.PositiveIntegerField(default=60)
    trigger = models.CharField(max_length=16, default="web")  # web, api, cli, schedule
    # Whether the version's machine grades (provenance "machine") count as judged; when not,
    # those chunks score as unjudged. Stated on the report.
    machine_grades = models.BooleanField(default=True)
    # The HTTP judge of open answers this run asked (null: the rules score every answer), and
    # what it answered (`goldsmith.answers.judge.JudgeResults.to_json`: its identity as
    # configured and every score and reason), kept so that the report is recomputed without
    # calling it again.
    answer_judge = models.ForeignKey(
        "AnswerJudge", null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    judge_results = models.JSONField(default=dict, blank=True, encoder=StrictJSONEncoder)
    report = models.JSONField(default=dict, blank=True, encoder=StrictJSONEncoder)
    # pass / warn / fail against the project's targets and floors ("" until finished).
    verdict = models.CharField(max_length=8, blank=True, default="")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["retriever", "state", "created_at"])]

    def __str__(self) -> str:
        return f"run {self.pk} of {self.retriever_id} ({self.state})"

    @property
    def tokenizer_label(self) -> str:
        """The run's tokenizer in words ("" when it has none)."""
        from annotation.models import Tokenizer

        return str(dict(Tokenizer.choices).get(self.tokenizer, self.tokenizer))

    @property
    def finished(self) -> bool:
        return self.state in FINISHED_STATES

    @property
    def depth(self) -> int:
        return max(self.ks or [10])


class BatchState(models.TextChoices):
    PENDING = "pending", gettext_lazy("Pending")
    RUNNING = "running", gettext_lazy("Running")
    DONE = "done", gettext_lazy("Done")


class RunBatch(models.Model):
    """A slice of a run's queries. A worker claims it with a conditional UPDATE that sets a
    lease (`lease_owner`, `lease_expires_at`) and renews the lease while it works; a batch whose
    lease expired (its worker died) is claimable again, and the watchdog re-sends it."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="batches")
    index = models.PositiveIntegerField()
    query_ids = models.JSONField(default=list)
    state = models.CharField(max_length=16, choices=BatchState.choices, default=BatchState.PENDING)
    lease_owner = models.CharField(max_length=64, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    dispatched_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="runbatch_unique")]
        ordering = ["run", "index"]
        indexes = [models.Index(fields=["state", "lease_expires_at"])]

    def __str__(self) -> str:
        return f"batch {self.index} of run {self.run_id} ({self.state})"


class QueryResult(models.Model):
    """What the retriever answered for one golden query of a run: upserted, so a batch that runs
    twice leaves one row. `error` is set when the query failed after its retries."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="results")
    query_id = models.CharField(max_length=255)
    ranked_ids = models.JSONField(default=list)
    scores = models.JSONField(default=list)
    doc_ids = models.JSONField(default=list, blank=True)
    snippets = models.JSONField(default=list, blank=True)
    # The other stages of a RAG pipeline (docs/formats.md, "stages"): the first-stage
    # candidates (ids and scores; null: the retriever has no first stage), the contexts given
    # to the model ([{"id", "text"}]; null: the top K of the list) and the response.
    candidates = models.JSONField(null=True, blank=True, default=None)
    candidate_scores = models.JSONField(default=list, blank=True)
    contexts = models.JSONField(null=True, blank=True, default=None)
    response = models.TextField(null=True, blank=True)  # noqa: DJ001
    latency_ms = models.FloatField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    batch = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "query_id"], name="queryresult_unique")
        ]

    def __str__(self) -> str:
        return f"{self.run_id}/{self.query_id}"


class Baseline(models.Model):
    """The run a retriever's later runs are checked against."""

    retriever = models.OneToOneField(Retriever, on_delete=models.CASCADE, related_name="baseline")
    run = models.ForeignKey(EvaluationRun, on_delete=models.PROTECT, related_name="+")
    set_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    set_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"baseline of {self.retriever_id}: run {self.run_id}"


class DriftAlert(models.Model):
    """Drift rules that fired for a run, and what changed since the baseline
    (``golden_set``, ``retriever_config``, ``corpus``)."""

    run = models.OneToOneField(EvaluationRun, on_delete=models.CASCADE, related_name="drift_alert")
    baseline_run = models.ForeignKey(
        EvaluationRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    fired = models.JSONField(default=list)
    changed = models.JSONField(default=list)
    newly_failing = models.JSONField(default=list)
    webhook_status = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"drift alert for run {self.run_id}"


class JudgeEndpoint(AuthHeaderFields):
    """How to call an HTTP machine judge (`annotation.MachineJudge` of kind ``http``). Like a
    retriever's: `config` holds the settings of `goldsmith.judges.HttpJudgeConfig` and never
    the auth header, whose value is stored encrypted (or read on the worker from an exposed
    environment variable)."""

    judge = models.OneToOneField(
        "annotation.MachineJudge", on_delete=models.CASCADE, related_name="endpoint"
    )
    config = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"endpoint of judge {self.judge_id}"


class JudgingScope(models.TextChoices):
    ALL = "all", gettext_lazy("Every candidate")
    NEW = "new", gettext_lazy("Candidates this judge has not graded")
    UNJUDGED = "unjudged", gettext_lazy("Candidates no person has graded")


class JudgingJob(Made):
    """One pass of a machine judge over the project's candidates in `scope`, run by a Celery
    worker in batches; each batch's grades are saved (upserted) before the next is asked for,
    and `done` / `failed` count the candidates so far. Safe to run twice: a second pass
    re-grades and replaces."""

    judge = models.ForeignKey(
        "annotation.MachineJudge", on_delete=models.CASCADE, related_name="jobs"
    )
    scope = models.CharField(max_length=16, choices=JudgingScope.choices, default=JudgingScope.ALL)
    state = models.CharField(max_length=16, choices=RunState.choices, default=RunState.QUEUED)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"judging job {self.pk} of judge {self.judge_id} ({self.state})"

    @property
    def finished(self) -> bool:
        return self.state in FINISHED_STATES


class AnswerJudge(AuthHeaderFields, Made):
    """An HTTP judge of open answers (`goldsmith.answers.judge.HttpAnswerJudge`), registered
    like a retriever. `config` holds the URL and how to call it (the settings of
    `goldsmith.answers.judge.AnswerJudgeConfig` but its identity); `name`, `model`,
    `prompt_version` and `temperature` are the identity a run records, as configured. The auth
    header's value is stored encrypted (or read on the worker from an exposed environment
    variable), never in `config`."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="answer_judges")
    name = models.CharField(max_length=100)
    config = models.JSONField(default=dict, blank=True)
    model = models.CharField(max_length=200, blank=True)
    prompt_version = models.CharField(max_length=200, blank=True)
    temperature = models.FloatField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="answer_judge_unique_name")
        ]
        ordering = ["project", "name"]

    def __str__(self) -> str:
        return self.name

    @property
    def url(self) -> str:
        return str(self.config.get("url", ""))
