"""Frozen golden-set versions: immutable copies of approved queries and their final grades.

GoldenSetVersion ──< GoldenItem (one approved query, copied) ──< GoldenJudgment (graded chunk)

Every row is written once, when the version is frozen or imported, and never again: the model
and queryset refuse updates and deletes (`FrozenVersionError`), the admin is read-only, the API
has no write method for them, and on PostgreSQL triggers reject UPDATE and DELETE. Items and
judgments are copies, not foreign keys to queries and chunks, so that deleting or editing those
cannot reach a frozen version; the project is PROTECTed, so deleting it fails loudly.
"""

from __future__ import annotations

from typing import Any, NoReturn

from django.db import models
from django.utils.translation import gettext_lazy

from annotation.models.projects import Project


class FrozenVersionError(Exception):
    """Something tried to change or delete a frozen golden-set version or one of its rows."""


def _refuse(what: str) -> NoReturn:
    raise FrozenVersionError(
        # A guard for code, not a sentence for users (who never reach it): English, like logs.
        f"golden-set versions are frozen: {what} is not allowed (freeze a new version instead)"
    )


class FrozenQuerySet(models.QuerySet):
    """Reads and inserts only: `update`, `bulk_update` and `delete` raise."""

    def update(self, **kwargs: Any) -> NoReturn:
        _refuse(f"updating {self.model._meta.verbose_name_plural}")

    def bulk_update(self, objs: Any, fields: Any, batch_size: int | None = None) -> NoReturn:
        _refuse(f"updating {self.model._meta.verbose_name_plural}")

    def delete(self) -> NoReturn:
        _refuse(f"deleting {self.model._meta.verbose_name_plural}")

    delete.queryset_only = True  # type: ignore[attr-defined]  # Django's marker that a manager does not get this method


class FrozenModel(models.Model):
    """A row that can be inserted once and then only read."""

    objects = FrozenQuerySet.as_manager()

    class Meta:
        abstract = True
        base_manager_name = "objects"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            _refuse(f"changing a saved {self._meta.verbose_name}")
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        _refuse(f"deleting a {self._meta.verbose_name}")


class VersionOrigin(models.TextChoices):
    FROZEN = "frozen", gettext_lazy("Frozen from approved queries")
    IMPORTED = "imported", gettext_lazy("Imported from a file")


class GoldenSetVersion(FrozenModel):
    """One frozen version (``v1``, ``v2``, …) of a project's golden set.

    `content_hash` is ``sha256:<hex>`` of the canonical serialization of its queries
    (`goldsmith.formats.goldset.goldset_content_hash`): equal content gives an equal hash,
    whatever the label, note or date. `header` is the native file's header line, fixed at
    creation, so that an export is byte-identical every time (and after an import into another
    project).
    """

    project = models.ForeignKey(
        Project, on_delete=models.PROTECT, related_name="golden_set_versions"
    )
    label = models.CharField(max_length=40)
    note = models.TextField(blank=True)
    content_hash = models.CharField(max_length=71)
    parent = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="children"
    )
    origin = models.CharField(max_length=16, choices=VersionOrigin.choices)
    source_name = models.CharField(max_length=255, blank=True)  # imported file's name
    # A copy of the username, not a foreign key: deleting a user must not touch the version.
    created_by = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField()
    query_count = models.PositiveIntegerField()
    judgment_count = models.PositiveIntegerField()
    counts = models.JSONField(default=dict)
    agreement_summary = models.JSONField(default=dict)
    guideline_version = models.PositiveIntegerField(null=True, blank=True)
    sampling_provenance = models.JSONField(default=list)
    filters = models.JSONField(default=dict)
    split_seed = models.BigIntegerField(null=True, blank=True)
    test_share = models.FloatField(null=True, blank=True)
    header = models.JSONField(default=dict)
    # The corpus version its judgments were made on (the live one at the freeze), and that
    # version's content hash; an imported version keeps the hash its file names, if any.
    corpus_version = models.ForeignKey(
        "annotation.CorpusVersion",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="golden_set_versions",
    )
    corpus_hash = models.CharField(max_length=71, blank=True)

    class Meta(FrozenModel.Meta):
        constraints = [
            models.UniqueConstraint(fields=["project", "label"], name="goldenset_unique_label")
        ]
        ordering = ["project", "-created_at", "-id"]
        verbose_name = gettext_lazy("golden-set version")

    def __str__(self) -> str:
        return f"{self.label} ({self.content_hash[:19]})"

    @property
    def short_hash(self) -> str:
        """``sha256:`` and the first 12 hex digits, for file names and tight layouts."""
        return self.content_hash[:19]


class GoldenItem(FrozenModel):
    """One query of a frozen version, copied. `query_id` is the external id that exports use
    and that survives export → import; `position` is the query's rank in query_id order."""

    # No index of its own: the unique (version, query_id) index serves lookups by version.
    version = models.ForeignKey(
        GoldenSetVersion, on_delete=models.PROTECT, related_name="items", db_index=False
    )
    position = models.PositiveIntegerField()
    query_id = models.CharField(max_length=255)
    text = models.TextField()
    # null and "" are different values of the native format (and of the content hash).
    category = models.CharField(max_length=255, null=True, blank=True)  # noqa: DJ001
    stratum = models.CharField(max_length=255, null=True, blank=True)  # noqa: DJ001
    weight = models.FloatField(default=1.0)
    split = models.CharField(max_length=32, null=True, blank=True)  # noqa: DJ001
    reference_answer = models.TextField(null=True, blank=True)  # noqa: DJ001
    # The rest of the answer key (written, and hashed, only when set): covered by the same
    # triggers as every column of the row.
    answer_type = models.CharField(max_length=16, null=True, blank=True)  # noqa: DJ001
    choices = models.JSONField(default=list)
    reference_facts = models.JSONField(default=list)  # [{"text": ..., "chunk_ids": [...]}]
    # Further reference answers, `reference_answers` in the file after the primary one
    # (written, and hashed, only when there are some: older versions keep their hash).
    reference_alternatives = models.JSONField(default=list)

    class Meta(FrozenModel.Meta):
        constraints = [
            models.UniqueConstraint(fields=["version", "query_id"], name="goldenitem_unique_qid"),
            models.UniqueConstraint(fields=["version", "position"], name="goldenitem_unique_pos"),
        ]
        ordering = ["version", "position"]
        verbose_name = gettext_lazy("golden item")

    def __str__(self) -> str:
        return f"{self.query_id}: {self.text[:60]}"


class GoldenJudgment(FrozenModel):
    """A graded chunk of a golden item: the chunk's ids, span and text at freeze time, its final
    grade and how it was reached (unanimous, majority, adjudicated; empty when imported)."""

    # No index of its own: the unique (item, chunk_id) index serves lookups by item. No database
    # constraint either: PostgreSQL would check each of a large freeze's rows at commit (≈ 3 s
    # for 300 000 judgments, see docs/benchmarks.md); the freeze inserts judgments only under
    # the items it just inserted, and the triggers forbid deleting items, so none can dangle.
    item = models.ForeignKey(
        GoldenItem,
        on_delete=models.PROTECT,
        related_name="judgments",
        db_index=False,
        db_constraint=False,
    )
    position = models.PositiveIntegerField()
    chunk_id = models.CharField(max_length=255)
    doc_id = models.CharField(max_length=255, null=True, blank=True)  # noqa: DJ001
    start = models.PositiveIntegerField(null=True, blank=True)
    end = models.PositiveIntegerField(null=True, blank=True)
    text = models.TextField(null=True, blank=True)  # noqa: DJ001
    grade = models.SmallIntegerField()
    provenance = models.CharField(max_length=32, null=True, blank=True)  # noqa: DJ001

    class Meta(FrozenModel.Meta):
        constraints = [
            models.UniqueConstraint(fields=["item", "chunk_id"], name="goldenjudgment_unique")
        ]
        ordering = ["item", "position"]
        verbose_name = gettext_lazy("golden judgment")

    def __str__(self) -> str:
        return f"{self.chunk_id}={self.grade}"
