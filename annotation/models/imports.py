"""What the two kinds of import share (a corpus file, a query log): the file, its progress while
a worker reads it, and how it ended. `annotation.services.imports` runs both kinds."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy

from annotation.models.accounts import acting_user


class ImportStatus(models.TextChoices):
    QUEUED = "queued", gettext_lazy("Queued")
    RUNNING = "running", gettext_lazy("Running")
    DONE = "done", gettext_lazy("Done")
    FAILED = "failed", gettext_lazy("Failed")


# What a running import is doing, in words. The worker writes the code (annotation.services);
# the page says these words and gives them all to its script (static/js/import-progress.js) in
# data-phase-* attributes. A code without words is shown as nothing, never as the code.
PHASE_WORDS = {
    "starting": gettext_lazy("Preparing the import"),
    "reading": gettext_lazy("Reading the file"),
    "importing": gettext_lazy("Reading and storing the chunks"),
    "grouping": gettext_lazy("Grouping near-duplicate queries"),
    "storing": gettext_lazy("Storing the queries"),
}


class ImportJob(models.Model):
    """One import of an uploaded or named file. A failed import stores nothing but its row,
    with `error` as ``FILE:LINE: reason``. Each kind adds its project and its own figures."""

    filename = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64, blank=True)
    status = models.CharField(
        max_length=16, choices=ImportStatus.choices, default=ImportStatus.QUEUED
    )
    phase = models.CharField(max_length=32, blank=True)
    # Written with every progress update while running; a running import whose heartbeat is
    # old lost its worker (see `imports_watchdog`).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    bytes_total = models.BigIntegerField(default=0)
    bytes_read = models.BigIntegerField(default=0)
    records = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    # The tokenizer this import chose for its project from its texts' language ('' when it
    # chose none: not the project's first import, or a lead had chosen).
    tokenizer_detected = models.CharField(max_length=16, blank=True)
    upload_path = models.CharField(max_length=500, blank=True)  # temporary; deleted after
    created_by = acting_user()
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]

    PHASES = PHASE_WORDS

    def __str__(self) -> str:
        return f"{self.filename} ({self.status})"

    @property
    def phase_words(self) -> str:
        """The phase of a running import in words ("" once it ended)."""
        ended = self.status in (ImportStatus.DONE, ImportStatus.FAILED)
        return "" if ended else PHASE_WORDS.get(self.phase, "")

    @property
    def progress(self) -> float:
        if self.status == ImportStatus.DONE:
            return 1.0
        return min(self.bytes_read / self.bytes_total, 1.0) if self.bytes_total else 0.0
