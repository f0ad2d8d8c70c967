"""RAGAS datasets (JSONL): a golden set's questions, reference answers and reference contexts,
and for a run the contexts it retrieved and its response, one ``SingleTurnSample`` per line.

Columns (RAGAS's ``SingleTurnSample`` names; docs/formats.md, "RAGAS dataset"):
``user_input`` (the question), ``reference`` (the reference answer, or null),
``reference_context_ids`` (the chunks the key facts link to, else the query's relevant chunks:
every one of them, with or without text), ``reference_contexts`` (the texts of those that have
one, in the same order) and, for a run, ``retrieved_contexts``, ``retrieved_context_ids`` (the
top K contexts) and ``response``. Goldsmith adds ``query_id`` first, which RAGAS ignores, so
that an import keeps the query ids. Answer types and key facts do not travel in this format
(the native JSONL carries them).

Only JSON Lines is written: it is what RAGAS's own loaders read (``EvaluationDataset.from_jsonl``,
``from_hf_dataset(load_dataset("json", ...))``). No CSV is: RAGAS reads a CSV through pandas or
``datasets``, whose cells are strings, and its sample model refuses a string where a list of
contexts belongs (its own ``to_csv`` output does not load back either). For the same reason no
cell is neutralised for spreadsheets here: the file is for programs, and a leading ``'`` would
reach every one of them as part of the text.

Pure module (the standard library only). The reader raises FormatError naming file, line and
field.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from goldsmith.answers.model import AnswerKey, StagedQuery
from goldsmith.formats import FormatError
from goldsmith.formats.common import dumps
from goldsmith.formats.jsonl import LineCheck, json_lines

GOLDEN_COLUMNS: tuple[str, ...] = (
    "query_id", "user_input", "reference", "reference_contexts", "reference_context_ids",
)  # fmt: skip
RUN_COLUMNS: tuple[str, ...] = ("retrieved_contexts", "retrieved_context_ids", "response")


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
    text or None, grade)``: reference context ids are the chunks the key facts link to (in fact
    order, once each), else the chunks graded ≥ ``relevance_threshold``, every one of them (so
    RAGAS's ID-based context recall counts the same chunks ours does); reference contexts are
    the texts of those that have one, in the same order. With a ``run``, its top ``k``
    contexts and its response are added (a query missing from the run gets empty contexts and
    a null response). A key without query text is a ValueError (``user_input`` is required)."""
    staged = None if run is None else {s.query_id: s for s in run}
    rows: list[RagasRow] = []
    for key in keys:
        if not key.query:
            raise ValueError(f"query {key.query_id!r} has no text (user_input is required)")
        judged = chunks.get(key.query_id, ())
        text_of = {cid: text for cid, text, _ in judged}
        linked = list(dict.fromkeys(c for f in key.facts for c in f.chunk_ids))
        ids = linked or [cid for cid, _, g in judged if g >= relevance_threshold]
        row = RagasRow(
            query_id=key.query_id,
            user_input=key.query,
            reference=key.reference_answer,
            reference_contexts=tuple(t for c in ids if (t := text_of.get(c))),
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
    """Samples from a RAGAS JSONL file (``query_id`` optional; unknown keys ignored, as
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

    # A reference chunk without text has its id only, so the two lists may differ in length.
    ref_ids, ref_texts = ids("reference_context_ids"), texts("reference_contexts")
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
