from __future__ import annotations

from django.db import models


class WorkerPing(models.Model):
    """Written by the `worker_ping` task: proof that a real worker took a job from the broker."""

    token = models.CharField(max_length=64, unique=True)
    hostname = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.token
