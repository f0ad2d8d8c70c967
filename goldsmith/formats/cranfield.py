"""The Cranfield collection's SMART files turned into importer input: pure, no Django.

`cran.all.1400` records (``.I``, ``.T``, ``.A``, ``.B``, ``.W``) become whole documents
(doc_id = the ``.I`` number, title = ``.T``, text = ``.W``, which already starts with the
title; authors and bibliography go to metadata). The empty documents 471 and 995 are kept
(with empty text), because 995 is judged for one query. `cran.qry` (CRLF line endings) becomes a
query log whose records carry their position (1..225), which is the qid used by `cranqrel`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

_FIELDS = {".T": "title", ".A": "authors", ".B": "bibliography", ".W": "text"}


def _records(path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    current_id: str | None = None
    fields: dict[str, list[str]] = {}
    name: str | None = None
    with path.open(encoding="utf-8", newline=None) as handle:
        for raw in handle:
            line = raw.rstrip("\r\n")
            if line.startswith(".I "):
                if current_id is not None:
                    yield current_id, {k: " ".join(v).strip() for k, v in fields.items()}
                current_id, fields, name = line[3:].strip(), {}, None
            elif line.strip() in _FIELDS:
                name = _FIELDS[line.strip()]
                fields.setdefault(name, [])
            elif name is not None:
                fields[name].append(line.strip())
    if current_id is not None:
        yield current_id, {k: " ".join(v).strip() for k, v in fields.items()}


def cranfield_documents(path: Path) -> Iterator[dict[str, object]]:
    for doc_id, fields in _records(path):
        yield {
            "doc_id": doc_id,
            "title": fields.get("title", ""),
            "text": fields.get("text", ""),
            "metadata": {
                "authors": fields.get("authors", ""),
                "bibliography": fields.get("bibliography", ""),
            },
        }


def cranfield_queries(path: Path) -> Iterator[dict[str, object]]:
    for position, (number, fields) in enumerate(_records(path), 1):
        yield {
            "query": fields.get("text", ""),
            "category": "cranfield",
            "qid": position,
            "number": number,
        }


def write_jsonl(records: Iterator[dict[str, object]], out: Path) -> int:
    count = 0
    with out.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            count += 1
    return count
