"""Celery tasks of the annotation app: ids in, one service call, safe to run twice."""

from __future__ import annotations

import socket

from celery import shared_task

from .models import WorkerPing


@shared_task
def worker_ping(token: str) -> None:
    """Record that a worker ran. Running it twice leaves one row."""
    WorkerPing.objects.get_or_create(token=token, defaults={"hostname": socket.gethostname()})
