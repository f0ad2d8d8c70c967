"""Uploaded files, written once to a temporary file for the readers that take a path.

Every page and API view that receives a file goes through :func:`upload_file`: the golden-set
import, the pooled runs, the retrievers' run files, and the corpus and query-log uploads that a
worker imports later. It writes the upload to the uploads folder (``VAR_DIR/uploads``) under a
name of its own (the upload's extension kept, not its name: a long name in some scripts would
exceed the file system's limit), refuses a file larger than the upload limit, and removes the
copy when the block ends, or, for a background import, when the import has read it.

An error raised inside the block about the copy (a :class:`~goldsmith.formats.FormatError`
or an intake :class:`~goldsmith.intake.readers.ReadError`) is raised again naming the file as
it was uploaded, with its line (``gold.jsonl:2: …``, and the member of a zip:
``beir.zip:qrels/test.tsv:3: …``): no error shows a server-side path. Copies can be nested (a
TREC import's qrels, topics and corpus); each names its own file.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from django.conf import settings
from django.utils.translation import gettext

from annotation.services.progress import uploads_dir
from goldsmith.formats import FormatError
from goldsmith.intake.limits import UploadLimits
from goldsmith.intake.readers import ReadError
from goldsmith.text import Text


class Upload(Protocol):
    """What an upload offers: Django's uploaded files (and `django.core.files.File`)."""

    @property
    def name(self) -> str | None: ...

    def chunks(self, chunk_size: int | None = None) -> Iterable[bytes]: ...


class UploadRefused(ValueError):
    """An upload refused before any reader saw it; the message names the upload."""


def upload_limits() -> UploadLimits:
    """The bounds every reader of an uploaded file applies while it streams (settings
    GOLDSMITH_UPLOAD_MAX_LINE_BYTES, _MAX_UNPACKED_BYTES and _MAX_ZIP_RATIO). An upload itself
    is at most GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES long, as a zip unpacks to at most that."""
    return UploadLimits(
        max_line_bytes=settings.GOLDSMITH_UPLOAD_MAX_LINE_BYTES,
        max_unpacked_bytes=settings.GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES,
        max_zip_ratio=settings.GOLDSMITH_UPLOAD_MAX_ZIP_RATIO,
    )


def upload_name(upload: Upload) -> str:
    """The name an upload was sent under (its last path part), "upload" without one."""
    return Path(str(upload.name or "")).name or "upload"


@contextmanager
def upload_file(upload: Upload, *, keep: bool = False) -> Iterator[Path]:
    """`upload` written to a temporary file, whose path the block reads.

    The file is removed when the block ends, or with ``keep=True`` only when the block raises:
    a background import takes the path and deletes the file once it has read it
    (`annotation.services.imports.import_run`). Raises :class:`UploadRefused` for a file over
    the upload limit, before the block runs; errors the block raises about the file name the
    upload instead of the copy (see the module's docstring)."""
    name = upload_name(upload)
    path = _write(upload, name, upload_limits().max_unpacked_bytes)
    try:
        yield path
    except (FormatError, ReadError) as error:
        path.unlink(missing_ok=True)
        raise _named(error, path, name) from None
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    if not keep:
        path.unlink(missing_ok=True)


def _write(upload: Upload, name: str, limit: int) -> Path:
    too_large = UploadRefused(
        gettext(
            "%(name)s: the file is larger than %(limit)s bytes "
            "(GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES)"
        )
        % {"name": name, "limit": f"{limit:,}"}
    )
    size = getattr(upload, "size", None)
    if isinstance(size, int) and size > limit:
        raise too_large
    suffix = Path(name).suffix.lower()
    suffix = suffix if suffix[1:].isalnum() and len(suffix) <= 10 else ""
    path = uploads_dir() / f"{uuid.uuid4().hex}{suffix}"
    written = 0
    try:
        with path.open("xb") as out:
            for piece in upload.chunks():
                written += len(piece)
                if written > limit:
                    raise too_large
                out.write(piece)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path


def _named(error: FormatError | ReadError, path: Path, name: str) -> ValueError:
    if isinstance(error, FormatError):
        return error.named(path, name)
    at = str(path)
    if error.filename != at and not error.filename.startswith(at + ":"):
        return error
    # A reader's own sentence (a Text) names no path: kept as it is, it stays translatable.
    reason = error.reason if isinstance(error.reason, Text) else error.reason.replace(at, name)
    return ReadError(name + error.filename[len(at) :], error.line, reason)
