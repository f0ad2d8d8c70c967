from __future__ import annotations

from django.db import models

from annotation.models.accounts import acting_user
from annotation.models.projects import Project
from annotation.models.querylogs import QueryLog


class Sample(models.Model):
    """A reproducible draw of queries from a log, with its provenance.

    The same log (sha256), strategy, parameters and seed give the same queries. `strata` lists
    every stratum with its size, volume, share of traffic, sample size and weight, so that
    metrics can be re-weighted to the whole traffic (see `goldsmith.intake.sampling`).
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="samples")
    log = models.ForeignKey(QueryLog, null=True, on_delete=models.SET_NULL, related_name="samples")
    log_sha256 = models.CharField(max_length=64)
    log_filename = models.CharField(max_length=255)
    strategy = models.CharField(max_length=16)
    by = models.CharField(max_length=32, blank=True)
    allocation = models.CharField(max_length=16)
    seed = models.BigIntegerField()
    n_requested = models.PositiveIntegerField()
    n_chosen = models.PositiveIntegerField(default=0)
    pool_size = models.PositiveIntegerField(default=0)
    excluded = models.PositiveIntegerField(default=0)  # already in the project
    params = models.JSONField(default=dict, blank=True)
    strata = models.JSONField(default=list, blank=True)
    created_by = acting_user()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.strategy} n={self.n_chosen} seed={self.seed}"

    def provenance(self) -> dict[str, object]:
        return {
            "log_sha256": self.log_sha256,
            "log_filename": self.log_filename,
            "strategy": self.strategy,
            "by": self.by,
            "allocation": self.allocation,
            "seed": self.seed,
            "n_requested": self.n_requested,
            "params": self.params,
            "strata": self.strata,
        }
