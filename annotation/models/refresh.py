"""Refreshes: a frozen version re-judged on the current corpus (only what an update touched).

GoldenSetRefresh (base version, the corpus it was opened on) ──< RefreshQuery (a golden query
whose rows change: its held rows, its live query) ──< RefreshCandidate (a live candidate asked
again: changed text, a replacement of a retired chunk, a new pool hit)

A refresh is opened by a lead, its touched queries go through the usual annotation, settling
and approval, and freezing it stores the next version (`annotation.services.refresh`).
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy, pgettext_lazy

from annotation.models.accounts import acting_user
from annotation.models.corpus import CorpusVersion
from annotation.models.goldsets import GoldenSetVersion
from annotation.models.judging import Candidate
from annotation.models.projects import Project
from annotation.models.queries import Query


class RefreshState(models.TextChoices):
    OPEN = "open", gettext_lazy("Being re-judged")
    FROZEN = "frozen", pgettext_lazy("the state of a refresh", "Frozen")
    IDENTICAL = "identical", gettext_lazy("Identical to its version: nothing stored")


class GoldenSetRefresh(models.Model):
    """A refresh of `base` on the corpus whose content hash is `corpus_hash` (the live one when
    it was opened). `counts`: the plan's (`goldsmith.refresh.RefreshPlan.counts`) and the pool
    hits added. `reasons`: why each row of the refreshed version changed, filled at the freeze:
    [{"query_id", "chunk_id", "kind", ...}] with kind one of retired, carried_text,
    carried_span, rejudged (the values a sentence needs, never the sentence)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="refreshes")
    base = models.ForeignKey(GoldenSetVersion, on_delete=models.PROTECT, related_name="refreshes")
    corpus_version = models.ForeignKey(
        CorpusVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    corpus_hash = models.CharField(max_length=71)
    state = models.CharField(max_length=16, choices=RefreshState.choices, default=RefreshState.OPEN)
    result = models.ForeignKey(
        GoldenSetVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    counts = models.JSONField(default=dict)
    reasons = models.JSONField(default=list, blank=True)
    created_by = acting_user()
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["base"],
                condition=models.Q(state="open"),
                name="refresh_one_open_per_version",
            )
        ]

    def __str__(self) -> str:
        return f"refresh of {self.base_id} ({self.state})"


class RefreshQuery(models.Model):
    """A golden query of the base whose rows the refresh changes. `held`: its rows that still
    hold, as the refreshed version stores them ([chunk_id, doc_id, start, end, text, grade,
    provenance]); `live`: the live query re-judged (touched queries with chunks asked)."""

    refresh = models.ForeignKey(GoldenSetRefresh, on_delete=models.CASCADE, related_name="queries")
    golden_query_id = models.CharField(max_length=255)  # the frozen item's query_id
    live = models.ForeignKey(
        Query, null=True, blank=True, on_delete=models.SET_NULL, related_name="refreshes"
    )
    touched = models.BooleanField(default=False)
    held = models.JSONField(default=list)
    dropped = models.JSONField(default=list)  # retired chunk ids nothing carries
    carried = models.JSONField(default=dict)  # new chunk id -> [how, frozen chunk id]

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["refresh", "golden_query_id"], name="refreshquery_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.golden_query_id} in {self.refresh_id}"


class AskedWhy(models.TextChoices):
    CHANGED = "changed", gettext_lazy("Its text changed since it was graded")
    REPLACES = "replaces", gettext_lazy("Replaces a retired chunk")
    POOL = "pool", gettext_lazy("New in a pool retriever's top K")


class RefreshCandidate(models.Model):
    """A live candidate the refresh asks a grade for, and why (`replaces`: the retired chunk)."""

    refresh = models.ForeignKey(
        GoldenSetRefresh, on_delete=models.CASCADE, related_name="candidates"
    )
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="refreshes")
    why = models.CharField(max_length=16, choices=AskedWhy.choices)
    replaces = models.CharField(max_length=255, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["refresh", "candidate"], name="refreshcandidate_unique")
        ]

    def __str__(self) -> str:
        return f"{self.candidate_id} ({self.why}) in {self.refresh_id}"
