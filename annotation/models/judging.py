"""Pools, assignments, judgments, agreement and adjudication: the judging part of the process.

Candidate ──< CandidateSource >── PoolSource       (which retrievers found it, at which rank)
Query ──< Assignment (annotator, queue order, progress)
Candidate ──< Judgment (annotator, grade)           one per (candidate, annotator)
Query ──< QueryAnnotation (annotator: flags, note, seconds)
Assignment ──< VisitTime (seconds of one visit of the annotation page, stored once)
Query ── QueryAgreement (cached per-query statistics and flag reasons)
Query ── QueryReview (state, optimistic-lock version, adjudication reason, approval)
Candidate ── Resolution (final grade, provenance)
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy

from annotation.models.accounts import acting_user
from annotation.models.corpus import Chunk
from annotation.models.projects import Project
from annotation.models.queries import Query

GRADE_CHOICES = [(2, "2 relevant"), (1, "1 partially relevant"), (0, "0 not relevant")]


class SourceKind(models.TextChoices):
    BM25 = "bm25", gettext_lazy("Built-in BM25")
    TFIDF = "tfidf", gettext_lazy("Built-in TF-IDF")
    RUN = "run", gettext_lazy("Imported run")
    ANNOTATOR = "annotator", gettext_lazy("Added by annotators")


class PoolSource(models.Model):
    """One place candidates come from: a built-in retriever, an imported run, or annotators."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="pool_sources")
    name = models.CharField(max_length=120)
    kind = models.CharField(max_length=16, choices=SourceKind.choices)
    k = models.PositiveIntegerField(default=10)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="poolsource_unique_name")
        ]
        ordering = ["project", "name"]

    def __str__(self) -> str:
        return self.name


class Candidate(models.Model):
    """A (query, chunk) pair shown to annotators.

    `shuffle_key` is a hash of (query, chunk): sorting by it gives a random-looking order that
    is the same for every annotator and every page load, and new candidates fall in between.
    :attr:`graded_text` is the text annotators grade (see `judged_text`).
    """

    query = models.ForeignKey(Query, on_delete=models.CASCADE, related_name="candidates")
    chunk = models.ForeignKey(Chunk, on_delete=models.CASCADE, related_name="candidates")
    shuffle_key = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    # The chunk's text and span as graded, kept when a corpus re-import changed the chunk's
    # text after someone graded this candidate (null: the chunk's own text is what is graded).
    # Annotators of the query keep seeing it and a freeze copies it, so that grades, agreement
    # and span matching stay about the text that was graded.
    judged_text = models.TextField(null=True, blank=True)  # noqa: DJ001
    judged_start = models.PositiveIntegerField(null=True, blank=True)
    judged_end = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["query", "chunk"], name="candidate_unique_chunk")
        ]
        indexes = [models.Index(fields=["query", "shuffle_key"])]

    def __str__(self) -> str:
        return f"{self.query_id}/{self.chunk_id}"

    @property
    def graded_text(self) -> str:
        return self.judged_text if self.judged_text is not None else self.chunk.text


class CandidateSource(models.Model):
    """Source `source` found the candidate at `rank` (1-based; null when added by hand)."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="sources")
    source = models.ForeignKey(PoolSource, on_delete=models.CASCADE, related_name="hits")
    rank = models.PositiveIntegerField(null=True, blank=True)
    added_by = acting_user()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["candidate", "source"], name="candsource_unique")
        ]

    def __str__(self) -> str:
        return f"{self.candidate_id}@{self.source_id}#{self.rank}"


class AssignmentStatus(models.TextChoices):
    PENDING = "pending", gettext_lazy("To do")
    STARTED = "started", gettext_lazy("Started")
    DONE = "done", gettext_lazy("Done")


class Assignment(models.Model):
    """Query `query` is in `annotator`'s queue at position `order`."""

    query = models.ForeignKey(Query, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    order = models.PositiveIntegerField()
    status = models.CharField(
        max_length=16, choices=AssignmentStatus.choices, default=AssignmentStatus.PENDING
    )
    judged = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    assigned_at = models.DateTimeField(auto_now_add=True)
    done_at = models.DateTimeField(null=True, blank=True)
    # The one more annotator a flagged query got before going to a lead (escalation).
    escalation = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["query", "annotator"], name="assignment_unique")
        ]
        indexes = [models.Index(fields=["annotator", "order"])]
        ordering = ["annotator", "order"]

    def __str__(self) -> str:
        return f"{self.annotator_id} → {self.query_id}"


class Guideline(models.Model):
    """The project's annotation guidelines (Markdown); each edit is a new version."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="guidelines")
    version = models.PositiveIntegerField()
    markdown = models.TextField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "version"], name="guideline_unique_version")
        ]
        ordering = ["project", "-version"]

    def __str__(self) -> str:
        return f"v{self.version}"


class JudgingOrder(models.TextChoices):
    """The order the annotator was following when they gave a grade (goldsmith.judging_order),
    kept so that a study of order effects is possible later."""

    UNKNOWN = "", gettext_lazy("Not recorded")
    LIKELY = "likely", gettext_lazy("Most likely relevant first")
    PLAIN = "plain", gettext_lazy("The pool's plain order")
    CHECK = "check", gettext_lazy("Drawn at random for the stop estimate")


class Judgment(models.Model):
    """One annotator's grade for one candidate, under guideline version `guideline_version`,
    given while following `order`."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="judgments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="judgments"
    )
    grade = models.PositiveSmallIntegerField(choices=GRADE_CHOICES)
    note = models.TextField(blank=True, default="")
    guideline_version = models.PositiveIntegerField(null=True, blank=True)
    order = models.CharField(
        max_length=8, choices=JudgingOrder.choices, blank=True, default=JudgingOrder.UNKNOWN
    )
    # Made by a rule on the annotator's behalf (the demo's first round), not by the person:
    # shown as such wherever grades are counted; the annotator's own save clears it.
    simulated = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["candidate", "annotator"], name="judgment_unique"),
            models.CheckConstraint(condition=models.Q(grade__lte=2), name="judgment_grade_0_2"),
        ]

    def __str__(self) -> str:
        return f"{self.annotator_id}:{self.candidate_id}={self.grade}"


class QueryAnnotation(models.Model):
    """An annotator's per-query flags, note and time spent."""

    query = models.ForeignKey(Query, on_delete=models.CASCADE, related_name="annotations")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="query_annotations"
    )
    ambiguous = models.BooleanField(default=False)
    no_answer = models.BooleanField(default=False)
    personal_data = models.BooleanField(default=False)
    not_a_query = models.BooleanField(default=False)
    note = models.TextField(blank=True, default="")
    seconds_spent = models.FloatField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    FLAGS = ("ambiguous", "no_answer", "personal_data", "not_a_query")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["query", "annotator"], name="queryannotation_unique")
        ]

    def __str__(self) -> str:
        return f"{self.annotator_id} on {self.query_id}"

    def flag_names(self) -> list[str]:
        return [flag for flag in self.FLAGS if getattr(self, flag)]


class VisitTime(models.Model):
    """The time one visit of the annotation page spent on an assignment's query.

    The page makes up a visit id when it loads and reports the visit's total so far with it;
    one row per (assignment, visit) makes a report sent twice (as the page unloads, then again
    from its outbox) count once. `QueryAnnotation.seconds_spent` is the sum over visits."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="visits")
    visit = models.CharField(max_length=64)
    seconds = models.FloatField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assignment", "visit"], name="visittime_unique")
        ]

    def __str__(self) -> str:
        return f"{self.assignment_id}/{self.visit}: {self.seconds:.1f}s"


class QueryAgreement(models.Model):
    """Agreement statistics of one query, recomputed when its judgments change.

    Kappas are null when undefined (every label identical: the query is unanimous).
    """

    query = models.OneToOneField(Query, on_delete=models.CASCADE, related_name="agreement")
    n_annotators = models.PositiveSmallIntegerField(default=0)
    n_items = models.PositiveIntegerField(default=0)
    kappa = models.FloatField(null=True, blank=True)
    kappa_linear = models.FloatField(null=True, blank=True)
    raw_agreement = models.FloatField(null=True, blank=True)
    ac1 = models.FloatField(null=True, blank=True)
    # Gwet's AC2 with linear weights over the grades 0, 1, 2 (a flag coefficient a lead may pick)
    ac2_linear = models.FloatField(null=True, blank=True)
    flagged = models.BooleanField(default=False)
    flag_reasons = models.JSONField(default=list, blank=True)
    # Digest of the grades the statistics were computed from: a project-wide recomputation
    # reuses the statistics of a query whose grades did not change.
    signature = models.CharField(max_length=32, blank=True, default="")
    computed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"agreement of {self.query_id}"


class ReviewState(models.TextChoices):
    OPEN = "open", gettext_lazy("Being annotated")
    ESCALATED = "escalated", gettext_lazy("Waiting for one more annotator")
    FLAGGED = "flagged", gettext_lazy("Needs adjudication")
    RESOLVED = "resolved", gettext_lazy("Resolved")
    APPROVED = "approved", gettext_lazy("Approved")


class AdjudicationReason(models.TextChoices):
    GUIDELINE_GAP = "guideline_gap", gettext_lazy("Guideline gap")
    ANNOTATOR_ERROR = "annotator_error", gettext_lazy("Annotator error")
    AMBIGUOUS_QUERY = "ambiguous_query", gettext_lazy("Ambiguous query")
    POOL_PROBLEM = "pool_problem", gettext_lazy("Pool problem")


class Escalation(models.TextChoices):
    """Whether a flagged query went to one more annotator before a lead."""

    NONE = "", gettext_lazy("Not escalated")
    ESCALATED = "escalated", gettext_lazy("Given to one more annotator")
    NO_ANNOTATOR = "no_annotator", gettext_lazy("No other annotator could take it")


class QueryReview(models.Model):
    """Where a query stands after annotation. `version` grows with every change: a write that
    names an older version is refused (HTTP 409), so two leads cannot overwrite each other."""

    query = models.OneToOneField(Query, on_delete=models.CASCADE, related_name="review")
    state = models.CharField(max_length=16, choices=ReviewState.choices, default=ReviewState.OPEN)
    version = models.PositiveIntegerField(default=1)
    reason = models.CharField(max_length=32, choices=AdjudicationReason.choices, blank=True)
    reason_note = models.TextField(blank=True, default="")
    escalation = models.CharField(
        max_length=16, choices=Escalation.choices, blank=True, default=Escalation.NONE
    )
    adjudicated_by = acting_user()
    adjudicated_at = models.DateTimeField(null=True, blank=True)
    approved_by = acting_user()
    approved_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["state"])]

    def __str__(self) -> str:
        return f"{self.query_id}: {self.state} v{self.version}"


class Provenance(models.TextChoices):
    UNANIMOUS = "unanimous", gettext_lazy("Unanimous")
    MAJORITY = "majority", gettext_lazy("Majority")
    TIE_LOWER = "tie_lower", gettext_lazy("Tie → lower")
    TIE_HIGHER = "tie_higher", gettext_lazy("Tie → higher")
    ADJUDICATED = "adjudicated", gettext_lazy("Adjudicated")
    MACHINE = "machine", gettext_lazy("Machine judge")
    # A grade a refresh kept on a chunk whose text changed only in white space or punctuation,
    # or moved by span onto a live chunk covering the same characters (goldsmith.refresh).
    CARRIED = "carried", gettext_lazy("Carried over (corpus update)")
    # Settled by rule from simulated grades (the demo's): nobody graded these chunks.
    SIMULATED = "simulated", gettext_lazy("Simulated (no person graded it)")


class Resolution(models.Model):
    """The final grade of a candidate and how it was reached."""

    candidate = models.OneToOneField(Candidate, on_delete=models.CASCADE, related_name="resolution")
    grade = models.PositiveSmallIntegerField(choices=GRADE_CHOICES)
    provenance = models.CharField(max_length=16, choices=Provenance.choices)
    reason = models.CharField(max_length=32, choices=AdjudicationReason.choices, blank=True)
    resolved_by = acting_user()
    resolved_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(grade__lte=2), name="resolution_grade_0_2")
        ]

    def __str__(self) -> str:
        return f"{self.candidate_id}={self.grade} ({self.provenance})"
