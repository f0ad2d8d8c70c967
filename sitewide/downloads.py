"""Download file names, built safely from whatever a name holds.

A name stored before names were checked (or any text) may hold line breaks, quotes, slashes
or other scripts; written raw into ``Content-Disposition`` a line break made every download of
a run's report answer 500. :func:`attachment` keeps printable characters (any script), turns
the rest and path separators into ``_``, and lets Django quote it (``filename="…"`` for plain
ASCII, RFC 5987 ``filename*=utf-8''…`` otherwise).
"""

from __future__ import annotations

import re
import unicodedata

from django.utils.http import content_disposition_header

_UNSAFE = re.compile(r'[/\\\s"]+')


def file_name(name: str, fallback: str = "download") -> str:
    """`name` as a file name: one line, no path separators or quotes, at most 150 characters."""
    printable = "".join(
        c if unicodedata.category(c)[0] not in "CZ" or c == " " else " " for c in name
    )
    cleaned = _UNSAFE.sub("_", printable).strip("._") or fallback
    return cleaned[:150]


def attachment(stem: str, extension: str) -> str:
    """The ``Content-Disposition`` value of a download named `stem`.`extension` (the stem
    made safe first; the extension is the server's own, e.g. "csv")."""
    return content_disposition_header(as_attachment=True, filename=f"{file_name(stem)}.{extension}")
