"""RAGAS-style datasets (JSONL and CSV): a golden set's questions, reference answers and
reference contexts, and for a run the contexts it retrieved and its response.

Columns (RAGAS's ``SingleTurnSample`` names; docs/formats.md, "RAGAS-style dataset"):
``user_input`` (the question), ``reference`` (the reference answer, or null),
``reference_contexts`` (texts of the chunks the key facts link to, else of the query's relevant
chunks), ``reference_context_ids`` (their chunk ids) and, for a run, ``retrieved_contexts``,
``retrieved_context_ids`` (the top K contexts) and ``response``. Goldsmith adds ``query_id``
first, which RAGAS ignores, so that an import keeps the query ids. Answer types and key facts do
not travel in this format (the native JSONL carries them).

In CSV, list columns hold a JSON array, an empty cell is null, and a text cell that a
spreadsheet would run as a formula (it starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
return, after any ``'``) is written with one more leading ``'``, which the reader takes off:
safe to open in a spreadsheet, and read back exactly.

Pure module (the standard library only). Readers raise FormatError naming file, line and field.
"""

from __future__ import annotations

import ast
import csv
import io
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from goldsmith.answers.model import AnswerKey, StagedQuery
from goldsmith.formats import FormatError
from goldsmith.formats.common import decode_utf8, dumps
from goldsmith.formats.jsonl import LineCheck, json_lines
from goldsmith.formats.spreadsheets import FORMULA_START

GOLDEN_COLUMNS: tuple[str, ...] = (
    "query_id", "user_input", "reference", "reference_contexts", "reference_context_ids",
)  # fmt: skip
RUN_COLUMNS: tuple[str, ...] = ("retrieved_contexts", "retrieved_context_ids", "response")
_LISTS = frozenset(
    {"reference_contexts", "reference_context_ids", "retrieved_contexts", "retrieved_context_ids"}
)


@dataclass(frozen=True)
class RagasRow:
    """One sample. The run fields are None in a golden-set-only dataset."""

    query_id: str | None
    user_input: str
    reference: str | None = None
    reference_contexts: tuple[str, ...] = ()
    reference_context_ids: tuple[str, ...] = ()
    retrieved_contexts: tuple[str, ...] | None = None
    retrieved_context_ids: tuple[str, ...] | None = None
    response: str | None = None

    @property
    def has_run(self) -> bool:
        return self.retrieved_contexts is not None

    def to_json(self, with_run: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "query_id": self.query_id,
            "user_input": self.user_input,
            "reference": self.reference,
            "reference_contexts": list(self.reference_contexts),
            "reference_context_ids": list(self.reference_context_ids),
        }
        if with_run:
            out["retrieved_contexts"] = list(self.retrieved_contexts or ())
            out["retrieved_context_ids"] = list(self.retrieved_context_ids or ())
            out["response"] = self.response
        return out

    def answer_key(self, query_id: str) -> AnswerKey:
        """The answer key this sample carries (no type, no facts: RAGAS has none)."""
        return AnswerKey(query_id=query_id, reference_answer=self.reference, query=self.user_input)


def ragas_rows(
    keys: Sequence[AnswerKey],
    chunks: Mapping[str, Sequence[tuple[str, str | None, int]]],
    run: Iterable[StagedQuery] | None = None,
    *,
    k: int = 5,
    relevance_threshold: int = 2,
) -> list[RagasRow]:
    """The samples of ``keys``. ``chunks`` maps a query id to its judged chunks ``(chunk id,
    text or None, grade)``: reference contexts are the chunks the key facts link to (in fact
    order, once each), else the chunks graded ≥ ``relevance_threshold``; a chunk without text
    is left out. With a ``run``, its top ``k`` contexts and its response are added (a query
    missing from the run gets empty contexts and a null response). A key without query text is
    a ValueError (``user_input`` is required)."""
    staged = None if run is None else {s.query_id: s for s in run}
    rows: list[RagasRow] = []
    for key in keys:
        if not key.query:
            raise ValueError(f"query {key.query_id!r} has no text (user_input is required)")
        judged = chunks.get(key.query_id, ())
        text_of = {cid: text for cid, text, _ in judged}
        linked = list(dict.fromkeys(c for f in key.facts for c in f.chunk_ids))
        ids = linked or [cid for cid, _, g in judged if g >= relevance_threshold]
        ids = [c for c in ids if text_of.get(c)]
        row = RagasRow(
            query_id=key.query_id,
            user_input=key.query,
            reference=key.reference_answer,
            reference_contexts=tuple(text_of[c] or "" for c in ids),
            reference_context_ids=tuple(ids),
        )
        if staged is not None:
            s = staged.get(key.query_id)
            ctx = () if s is None else s.contexts_at(k)
            row = replace(
                row,
                retrieved_contexts=tuple(c.text for c in ctx),
                retrieved_context_ids=tuple(c.id for c in ctx),
                response=None if s is None else s.response,
            )
        rows.append(row)
    return rows


# --------------------------------------------------------------------------------------------
# JSONL


def ragas_jsonl_lines(rows: Iterable[RagasRow]) -> Iterator[str]:
    """One JSON object per sample, the columns in the order of ``GOLDEN_COLUMNS`` (then
    ``RUN_COLUMNS`` when the first row has run fields; every row must agree)."""
    with_run: bool | None = None
    for r in rows:
        if with_run is None:
            with_run = r.has_run
        elif with_run != r.has_run:
            raise ValueError("every sample must have run fields, or none")
        yield dumps(r.to_json(with_run)) + "\n"


def read_ragas_jsonl(path: str | Path) -> list[RagasRow]:
    """Samples from a RAGAS-style JSONL file (``query_id`` optional; unknown keys ignored, as
    RAGAS ignores them)."""
    rows: list[RagasRow] = []
    lines: list[int] = []
    for lineno, value in json_lines(path):
        chk = LineCheck(path, lineno)
        obj = chk.obj(value, "line")
        chk.keys(obj, {"user_input"}, set(obj), "line")
        rows.append(_row(chk, obj))
        lines.append(lineno)
    return _checked(path, rows, lines)


def _row(chk: LineCheck, obj: Mapping[str, Any]) -> RagasRow:
    user = obj["user_input"]
    if not isinstance(user, str) or not user:
        raise chk.fail("user_input must be a non-empty string")
    qid = obj.get("query_id")
    run = any(obj.get(c) is not None for c in RUN_COLUMNS)

    def texts(name: str) -> tuple[str, ...]:
        items = chk.array(obj.get(name) or [], name)
        for i, t in enumerate(items):
            if not isinstance(t, str):
                raise chk.fail(f"{name}[{i}] must be a string")
        return tuple(items)

    def ids(name: str) -> tuple[str, ...]:
        return tuple(
            chk.ident(v, f"{name}[{i}]") for i, v in enumerate(chk.array(obj.get(name) or [], name))
        )

    ref_ids, ref_texts = ids("reference_context_ids"), texts("reference_contexts")
    if ref_ids and len(ref_ids) != len(ref_texts):
        raise chk.fail("reference_context_ids and reference_contexts differ in length")
    got_ids = ids("retrieved_context_ids") if run else None
    got_texts = texts("retrieved_contexts") if run else None
    if got_ids and got_texts is not None and len(got_ids) != len(got_texts):
        raise chk.fail("retrieved_context_ids and retrieved_contexts differ in length")
    return RagasRow(
        query_id=None if qid is None else chk.ident(qid, "query_id"),
        user_input=user,
        reference=chk.opt_str(obj.get("reference"), "reference"),
        reference_contexts=ref_texts,
        reference_context_ids=ref_ids,
        retrieved_contexts=got_texts,
        retrieved_context_ids=got_ids,
        response=chk.opt_str(obj.get("response"), "response") if run else None,
    )


def _checked(path: str | Path, rows: list[RagasRow], lines: list[int]) -> list[RagasRow]:
    """The rows, unless a query id appears twice or the rows disagree on the run fields."""
    seen: set[str] = set()
    for n, r in zip(lines, rows, strict=True):
        if r.has_run != rows[0].has_run:
            raise FormatError(path, n, "every sample must have run fields, or none")
        if r.query_id is not None:
            if r.query_id in seen:
                raise FormatError(path, n, f"query {r.query_id!r} appears twice")
            seen.add(r.query_id)
    return rows


def ragas_answer_keys(rows: Sequence[RagasRow]) -> tuple[AnswerKey, ...]:
    """Answer keys of imported samples; a sample without ``query_id`` is ``q1``, ``q2``... by
    its position."""
    return tuple(r.answer_key(r.query_id or f"q{n}") for n, r in enumerate(rows, 1))


# --------------------------------------------------------------------------------------------
# CSV


def _escape(text: str) -> str:
    rest = text.lstrip("'")
    return "'" + text if rest.startswith(FORMULA_START) else text


def _unescape(text: str) -> str:
    return text[1:] if text.startswith("'") and text.lstrip("'").startswith(FORMULA_START) else text


def ragas_csv_pieces(rows: Iterable[RagasRow]) -> Iterator[str]:
    """The CSV file (header row, then one row per sample; ``\\r\\n`` line ends)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    header_done = False
    for r in _consistent(rows):
        obj = r.to_json(r.has_run)
        if not header_done:
            w.writerow(list(obj))
            header_done = True
        w.writerow(
            [
                ""
                if v is None
                else (dumps(v) if isinstance(v, list) else _escape(v) if isinstance(v, str) else v)
                for v in obj.values()
            ]
        )
        yield out.getvalue()
        out.seek(0)
        out.truncate()
    if not header_done:
        w.writerow(GOLDEN_COLUMNS)
        yield out.getvalue()


def _consistent(rows: Iterable[RagasRow]) -> Iterator[RagasRow]:
    with_run: bool | None = None
    for r in rows:
        if with_run is None:
            with_run = r.has_run
        elif with_run != r.has_run:
            raise ValueError("every sample must have run fields, or none")
        yield r


def _list_cell(chk: LineCheck, name: str, cell: str) -> Any:
    """A JSON array, or a Python list literal as pandas writes one (``['a', 'b']``, what a
    dataset saved with ``DataFrame.to_csv`` holds)."""
    try:
        return json.loads(cell)
    except ValueError:
        pass
    try:
        value = ast.literal_eval(cell)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise chk.fail(f"{name} must be a JSON array of strings") from None
    if not isinstance(value, list):
        raise chk.fail(f"{name} must be a JSON array of strings")
    return value


def read_ragas_csv(path: str | Path) -> list[RagasRow]:
    """Samples from a RAGAS-style CSV file (the columns above; ``query_id`` and the run
    columns optional; other columns ignored)."""
    with open(path, "rb") as f:
        text = decode_utf8(path, f.read())
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header is None:
        raise FormatError(path, 1, "empty file: expected a header row")
    if "user_input" not in header:
        raise FormatError(path, 1, "the header has no user_input column")
    rows: list[RagasRow] = []
    lines: list[int] = []
    for record in reader:
        line = reader.line_num
        lines.append(line)
        if len(record) != len(header):
            raise FormatError(path, line, f"expected {len(header)} cells, found {len(record)}")
        chk = LineCheck(path, line)
        obj: dict[str, Any] = {}
        for name, cell in zip(header, record, strict=True):
            if cell == "":
                obj[name] = None
            elif name in _LISTS:
                obj[name] = _list_cell(chk, name, cell)
            else:
                obj[name] = _unescape(cell)
        rows.append(_row(chk, obj))
    return _checked(path, rows, lines)
