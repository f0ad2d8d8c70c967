"""The labels CSV that `goldsmith agreement` reads: one annotator's label for one item per row
(see docs/formats.md, "Labels CSV"). Pure module: the standard library, no Django."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from goldsmith.formats import FormatError
from goldsmith.text import say


@dataclass(frozen=True)
class LabelRow:
    """One annotator's label for one item; ``group`` (e.g. the query) is optional."""

    item: str
    annotator: str
    label: int
    group: str | None = None


def read_labels_csv(path: str | Path) -> list[LabelRow]:
    """CSV with a header naming ``item``, ``annotator``, ``label`` and optionally ``group``
    (other columns are ignored). Labels are integers; (group, item, annotator) is unique."""
    rows: list[LabelRow] = []
    seen: dict[tuple[str | None, str, str], int] = {}

    def lines() -> Iterator[str]:
        with open(path, "rb") as f:
            for lineno, raw in enumerate(f, 1):
                try:
                    yield raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
                except UnicodeDecodeError as e:
                    raise FormatError(
                        path, lineno, say("invalid UTF-8 at byte %(byte)s", byte=e.start + 1)
                    ) from None

    reader = csv.reader(lines(), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise FormatError(path, 1, say("empty file: expected a header item,annotator,label"))
        cols = [h.strip().lower() for h in header]
        for need in ("item", "annotator", "label"):
            if need not in cols:
                raise FormatError(path, 1, say("missing column %(need)r in the header", need=need))
        if len(set(cols)) != len(cols):
            raise FormatError(path, 1, say("repeated column name in the header"))
        i_item, i_ann, i_lab = cols.index("item"), cols.index("annotator"), cols.index("label")
        i_grp = cols.index("group") if "group" in cols else None
        for rec in reader:
            lineno = reader.line_num
            if not any(c.strip() for c in rec):
                continue
            if len(rec) != len(cols):
                msg = say(
                    "expected %(expected)s fields, found %(found)s",
                    expected=len(cols),
                    found=len(rec),
                )
                raise FormatError(path, lineno, msg)
            item, ann, lab = rec[i_item].strip(), rec[i_ann].strip(), rec[i_lab].strip()
            group = rec[i_grp].strip() if i_grp is not None else None
            if not item or not ann:
                raise FormatError(path, lineno, say("item and annotator may not be empty"))
            body = lab[1:] if lab.startswith("-") else lab
            if not (body.isascii() and body.isdigit()) or len(lab) > 18:
                raise FormatError(path, lineno, say("label %(lab)r is not an integer", lab=lab))
            key = (group, item, ann)
            if key in seen:
                msg = say(
                    ("annotator %(ann)r labels item %(item)r twice (first on line %(first)s)"),
                    ann=ann,
                    item=item,
                    first=seen[key],
                )
                raise FormatError(path, lineno, msg)
            seen[key] = lineno
            rows.append(LabelRow(item, ann, int(lab), group))
    except csv.Error as e:
        raise FormatError(path, reader.line_num, say("bad CSV: %(error)s", error=str(e))) from None
    if not rows:
        raise FormatError(path, 1, say("no labels in file"))
    return rows
