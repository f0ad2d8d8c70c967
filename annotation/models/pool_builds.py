"""A lead's request to pool the built-in retrievers, run by a worker so that the request never
waits for it (`annotation.services.pooling.pool_build_queue` and `pool_build_run`)."""

from __future__ import annotations

from django.db import models

from annotation.models.accounts import acting_user
from annotation.models.imports import ImportStatus


class PoolBuild(models.Model):
    """One build: the retrievers asked for, in order, and what each added once it ran
    (``results``: one ``{"source", "queries", "hits", "new_candidates", ...}`` per retriever,
    as `annotation.services.pool_hits.PoolResult`). A project has one queued or running build
    at a time; one whose worker stopped for ``GOLDSMITH_IMPORT_STALE_SECONDS`` is failed."""

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE)
    retrievers = models.JSONField(default=list)
    k = models.PositiveIntegerField()
    status = models.CharField(
        max_length=16, choices=ImportStatus.choices, default=ImportStatus.QUEUED
    )
    results = models.JSONField(default=list)
    error = models.TextField(blank=True)
    created_by = acting_user()
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # Written when the build starts and after each retriever: an old one lost its worker.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"pool build {self.pk} of project {self.project_id} ({self.status})"

    @property
    def progress(self) -> float:
        if self.status == ImportStatus.DONE:
            return 1.0
        return len(self.results) / len(self.retrievers) if self.retrievers else 0.0

    @property
    def running(self) -> bool:
        return self.status in (ImportStatus.QUEUED, ImportStatus.RUNNING)
