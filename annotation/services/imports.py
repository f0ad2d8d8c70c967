"""The life of an import (corpus or query log), shared by both kinds.

An upload is written to the uploads folder (`annotation.services.uploads.upload_file`, kept for
the worker) and its record queued; a worker claims the record (`import_claim`: a second
delivery of the task does nothing) and runs it (`import_run`): the file's sha256 and size, the
kind's own work, then done or failed with a reason a user can act on, and the uploaded copy
deleted either way. While it runs, every progress update is also a heartbeat;
`imports_watchdog` fails the imports whose worker died.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext

from annotation.models import CorpusImport, ImportJob, ImportStatus, QueryLog
from annotation.selectors.languages import user_language_of
from annotation.services.progress import ProgressCallback, ProgressWriter
from annotation.services.uploads import Upload, upload_file, upload_name
from goldsmith.intake.readers import ReadError
from sitewide.i18n import localize

logger = logging.getLogger(__name__)
Record = TypeVar("Record", bound=ImportJob)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def upload_accept(create: Callable[..., Record], *, upload: Upload, **settings: Any) -> Record:
    """Store an uploaded file, record its import with `create` (`corpus_import_create`,
    `query_log_create`, which check `settings`) and queue it for a worker after the commit.
    Raises ReadError/ValueError (nothing stored) for a file it cannot take."""
    from annotation.tasks import corpus_import_execute, query_log_import_execute

    with upload_file(upload, keep=True) as path:
        record = create(filename=upload_name(upload), upload_path=path, **settings)
    task = query_log_import_execute if isinstance(record, QueryLog) else corpus_import_execute
    task.delay_on_commit(record.pk, language=translation.get_language())
    return record


def import_claim(model: type[ImportJob], pk: int) -> bool:
    """Take a queued import; False if another run already took it (tasks may run twice)."""
    return (
        model.objects.filter(pk=pk, status=ImportStatus.QUEUED).update(
            status=ImportStatus.RUNNING, phase="starting", heartbeat_at=timezone.now()
        )
        == 1
    )


def import_run(
    record: Record,
    *,
    path: Path | None,
    on_progress: ProgressCallback | None,
    work: Callable[[Path, ProgressWriter], Any],
    user_errors: tuple[type[Exception], ...] = (ReadError,),
) -> Record:
    """Claim and run a queued import of `path` (or of its stored upload, deleted afterwards).
    `work` does the kind's own part; it raises one of `user_errors` (its message names the
    file, line and field) for a file it cannot take, and stores nothing then. Any other
    exception is logged and the import fails as an internal error."""
    model = type(record)
    if not import_claim(model, record.pk):
        return record
    source = Path(path or record.upload_path)
    progress = ProgressWriter(model, record.pk, on_progress)
    try:
        record.sha256 = file_sha256(source)
        record.bytes_total = source.stat().st_size
        record.save(update_fields=["sha256", "bytes_total"])
        work(source, progress)
        record.status, record.phase = ImportStatus.DONE, "done"
        record.bytes_read = record.bytes_total
    except user_errors as error:
        record.status, record.error, record.phase = ImportStatus.FAILED, localize(error), "failed"
    except Exception as error:
        logger.exception("%s %s failed", model._meta.verbose_name, record.pk)
        record.status, record.phase = ImportStatus.FAILED, "failed"
        record.error = gettext("%(file)s: internal error (%(error)s)") % {
            "file": record.filename,
            "error": type(error).__name__,
        }
    finally:
        progress.close()
        if record.upload_path:
            Path(record.upload_path).unlink(missing_ok=True)
            record.upload_path = ""
    record.finished_at = timezone.now()
    record.save()
    return record


def imports_watchdog(*, stale_after: float | None = None) -> list[str]:
    """Fail the imports whose worker died: still "running", but no progress written for
    `stale_after` seconds (setting GOLDSMITH_IMPORT_STALE_SECONDS, default 600). Their
    transaction was rolled back with the worker's connection, so nothing of them is stored;
    the record says so and the uploaded file is deleted. Returns the failed imports' names."""
    if stale_after is None:
        stale_after = float(settings.GOLDSMITH_IMPORT_STALE_SECONDS)
    now = timezone.now()
    failed: list[str] = []
    for model in (CorpusImport, QueryLog):
        stale = model.objects.filter(
            status=ImportStatus.RUNNING, heartbeat_at__lt=now - timedelta(seconds=stale_after)
        ).select_related("created_by")
        for record in stale:
            when = timezone.localtime(record.heartbeat_at).strftime("%Y-%m-%d %H:%M:%S")
            # In the language the uploader chose for the interface (English when they chose
            # none: the upload's request language is not stored with the record).
            uploader = record.created_by
            with translation.override(user_language_of(uploader) if uploader else None):
                error = gettext(
                    "%(file)s: the worker stopped during the import (no progress since "
                    "%(when)s); nothing of this file was stored: import it again"
                ) % {"file": record.filename, "when": when}
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
