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
