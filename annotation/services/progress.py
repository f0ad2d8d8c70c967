"""Progress of long imports, stored in the database so that the page can poll it.

An import writes its rows in one transaction (all or nothing), so progress written through
that transaction would stay invisible until the end. On PostgreSQL, progress therefore goes
through a connection of its own (autocommit). SQLite allows one writer at a time, so there
progress is written only outside the import's transaction.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.utils import timezone

ProgressCallback = Callable[[str, int, int], None]  # phase, bytes_read, bytes_total


class ProgressWriter:
    def __init__(
        self,
        model: type[models.Model],
        pk: int,
        on_progress: ProgressCallback | None = None,
        every: float = 0.5,
    ) -> None:
        self.model, self.pk, self.on_progress, self.every = model, pk, on_progress, every
        self.table = model._meta.db_table
        self.last = 0.0
        self.own = (
            connections.create_connection(DEFAULT_DB_ALIAS)
            if connection.vendor == "postgresql"
            else None
        )

    def update(self, *, force: bool = False, **fields: Any) -> None:
        now = time.monotonic()
        if not force and now - self.last < self.every:
            return
        self.last = now
        if self.on_progress is not None and "phase" in fields:
            self.on_progress(
                str(fields["phase"]), int(fields.get("bytes_read", 0)), int(fields.get("total", 0))
            )
        fields.pop("total", None)
        fields["heartbeat_at"] = timezone.now()
        if self.own is not None:
            assignments = ", ".join(f'"{name}" = %s' for name in fields)
            with self.own.cursor() as cursor:
                cursor.execute(
                    f'UPDATE "{self.table}" SET {assignments} WHERE id = %s',
                    [*fields.values(), self.pk],
                )
        elif not connection.in_atomic_block:
            self.model._default_manager.filter(pk=self.pk).update(**fields)

    def close(self) -> None:
        if self.own is not None:
            self.own.close()


def uploads_dir() -> Path:
    """Where uploaded files wait for their import; each is deleted when the import ends."""
    path = Path(settings.VAR_DIR) / "uploads"
    path.mkdir(parents=True, exist_ok=True)
    return path


def imports_watchdog(*, stale_after: float | None = None) -> list[str]:
    """Fail the imports whose worker died: still "running", but no progress written for
    `stale_after` seconds (setting GOLDSMITH_IMPORT_STALE_SECONDS, default 600). Their
    transaction was rolled back with the worker's connection, so nothing of them is stored;
    the record says so and the uploaded file is deleted. Returns the failed imports' names."""
    from datetime import timedelta

    from ..models import CorpusImport, ImportStatus, QueryLog

    if stale_after is None:
        stale_after = float(getattr(settings, "GOLDSMITH_IMPORT_STALE_SECONDS", 600))
    now = timezone.now()
    failed: list[str] = []
    for model in (CorpusImport, QueryLog):
        stale = model.objects.filter(
            status=ImportStatus.RUNNING, heartbeat_at__lt=now - timedelta(seconds=stale_after)
        )
        for record in stale:
            when = timezone.localtime(record.heartbeat_at).strftime("%Y-%m-%d %H:%M:%S")
            error = (
                f"{record.filename}: the worker stopped during the import (no progress since "
                f"{when}); nothing of this file was stored: import it again"
            )
            updated = model.objects.filter(
                pk=record.pk, status=ImportStatus.RUNNING, heartbeat_at=record.heartbeat_at
            ).update(
                status=ImportStatus.FAILED,
                phase="failed",
                error=error,
                finished_at=now,
                upload_path="",
            )
            if updated:
                if record.upload_path:
                    Path(record.upload_path).unlink(missing_ok=True)
                failed.append(f"{model._meta.model_name} #{record.pk}")
    return failed
