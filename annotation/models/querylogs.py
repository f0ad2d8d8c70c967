from __future__ import annotations

from django.db import models
from django.db.models.functions import MD5
from django.utils.translation import gettext_lazy

from annotation.models.imports import ImportJob
from annotation.models.projects import Project


class ScrubPattern(models.Model):
    """A project-defined kind of personal data, replaced by ``<NAME>`` in imported queries."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="scrub_patterns")
    name = models.CharField(max_length=40)
    pattern = models.CharField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="scrubpattern_unique_name")
        ]
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name}={self.pattern}"


class QueryLog(ImportJob):
    """One imported query-log file. The raw file is not kept: only its sha256, its report and
    its distinct (scrubbed, normalised) queries.

    `report` holds the import's figures: lines, records, distinct queries, near-duplicate
    groups, scrubbed counts by kind, and the clusters' names.
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="query_logs")
    lines = models.PositiveIntegerField(default=0)
    volume = models.BigIntegerField(default=0)  # sum of counts
    distinct = models.PositiveIntegerField(default=0)
    near_duplicate_threshold = models.FloatField(default=0.85)
    clusters = models.PositiveSmallIntegerField(default=12)
    scrubbed = models.JSONField(default=dict, blank=True)  # kind -> replacements
    report = models.JSONField(default=dict, blank=True)

    @property
    def scrubbed_total(self) -> int:
        return sum(int(v) for v in self.scrubbed.values())


class LogQuery(models.Model):
    """A distinct query of a log (exact duplicates after normalisation merged).

    `text` is the scrubbed display text of its most frequent spelling; user and session ids are
    never stored, only how many distinct keyed hashes of them were seen. Near-duplicates share
    `near_group` (the id-independent ordinal of the group's most frequent variant in the log);
    the group's most frequent variant is its representative and carries the group's volume.
    """

    log = models.ForeignKey(QueryLog, on_delete=models.CASCADE, related_name="queries")
    normalized = models.TextField()
    text = models.TextField()
    count = models.PositiveIntegerField(default=1)
    first_seen = models.DateTimeField(null=True, blank=True)
    last_seen = models.DateTimeField(null=True, blank=True)
    category = models.CharField(max_length=120, blank=True)
    feedback = models.JSONField(default=dict, blank=True)  # label -> count
    negative = models.PositiveIntegerField(default=0)  # lines with a negative signal
    users = models.PositiveIntegerField(default=0)
    sessions = models.PositiveIntegerField(default=0)
    rank = models.PositiveIntegerField(default=0)  # 0 = most frequent in the log
    band = models.CharField(max_length=8, blank=True)  # head / torso / tail
    cluster = models.PositiveSmallIntegerField(default=0)
    near_group = models.PositiveIntegerField(default=0)
    is_representative = models.BooleanField(default=True)
    group_volume = models.PositiveIntegerField(default=1)
    group_size = models.PositiveIntegerField(default=1)

    class Meta:
        constraints = [
            # On a hash: a btree entry holds ~2,700 bytes, less than a long query (and the
            # normalised text itself would be a second copy of every query in the index).
            models.UniqueConstraint(
                models.F("log"), MD5("normalized"), name="logquery_unique_normalized_md5"
            )
        ]
        indexes = [
            models.Index(fields=["log", "rank"]),
            models.Index(fields=["log", "near_group"]),
        ]
        ordering = ["log", "rank"]
        verbose_name_plural = gettext_lazy("log queries")

    def __str__(self) -> str:
        return self.text[:80]
