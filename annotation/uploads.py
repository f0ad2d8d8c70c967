"""Uploads read in the request by readers that take a path (golden sets, run files).

:func:`upload_copy` writes an upload to a private temporary folder and yields the copy's path.
A :class:`~goldsmith.formats.FormatError` raised inside the block about that copy is raised
again naming the file as it was uploaded, with its line (``gold.jsonl:2: …``, and the member
of a zip: ``beir.zip:qrels/test.tsv:3: …``): no error shows a server-side path. Copies can be
nested (a TREC import's qrels, topics and corpus); each names its own file. The copy is removed
when the block ends.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from goldsmith.formats import FormatError


def upload_name(upload: Any) -> str:
    """The name an upload was sent under (its last path part), "upload" without one."""
    return Path(str(getattr(upload, "name", "") or "")).name or "upload"


@contextmanager
def upload_copy(upload: Any) -> Iterator[Path]:
    """A temporary copy of `upload` (anything with ``name`` and ``chunks()``, as Django's
    uploaded files). The copy keeps the upload's extension, not its name: a long name in
    some scripts would exceed the file system's limit."""
    name = upload_name(upload)
    suffix = Path(name).suffix.lower()
    suffix = suffix if suffix[1:].isalnum() and len(suffix) <= 10 else ""
    with tempfile.TemporaryDirectory(prefix="goldsmith-upload-") as folder:
        path = Path(folder) / f"upload{suffix}"
        with path.open("wb") as out:
            for piece in upload.chunks():
                out.write(piece)
        try:
            yield path
        except FormatError as error:
            raise error.named(path, name) from None
