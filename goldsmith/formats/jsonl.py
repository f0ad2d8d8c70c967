"""JSON Lines runs and qrels, and the field checks every JSON Lines reader uses.

- run: one ``{"query_id": ..., "results": [{"id": ..., "score": ...}, ...]}`` per line, and
  optionally every stage: ``candidates`` (first stage, same shape), ``contexts``
  (``[{"id", "text"}]``) and ``response`` (:func:`read_jsonl_stages`, :func:`jsonl_run_lines`);
- qrels: one ``{"query_id": ..., "judgments": [{"id": ..., "grade": ...}, ...]}`` per line, and
  optionally ``query``, ``category`` and the answer fields ``reference_answer``,
  ``answer_type``, ``choices``, ``reference_facts`` (:func:`read_jsonl_qrels_rows`,
  :func:`jsonl_qrels_lines`).

Pure module: numpy and the standard library, no Django. Every problem raises
:class:`~goldsmith.formats.FormatError` (``FILE:LINE: what is wrong``); see docs/formats.md.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np

from goldsmith.answers import values as answer_values
from goldsmith.answers.model import (
    ANSWER_TYPES,
    CLOSED_TYPES,
    AnswerKey,
    AnswerType,
    Context,
    KeyFact,
    RankedItem,
    StagedQuery,
)
from goldsmith.formats import FormatError
from goldsmith.formats.common import bytes_array, dumps
from goldsmith.metrics import JudgmentColumns, RankingColumns
from goldsmith.text import say


def json_lines(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) of every non-blank line."""
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise FormatError(
                    path, lineno, say("invalid UTF-8 at byte %(byte)s", byte=e.start + 1)
                ) from None
            if not text.strip():
                continue
            try:
                yield lineno, json.loads(text, parse_constant=_no_constant)
            except RecursionError:
                raise FormatError(path, lineno, say("JSON nested too deeply")) from None
            except json.JSONDecodeError as e:
                raise FormatError(
                    path,
                    lineno,
                    say("invalid JSON: %(msg)s (column %(colno)s)", msg=e.msg, colno=e.colno),
                ) from None
            except ValueError as e:  # e.g. an integer literal over Python's digit limit
                raise FormatError(
                    path, lineno, say("invalid JSON: %(error)s", error=str(e))
                ) from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


class LineCheck:
    """Field checks for one JSON object, raising FormatError at its line."""

    def __init__(self, path: str | Path, lineno: int) -> None:
        self.path, self.lineno = path, lineno

    def fail(self, message: str) -> FormatError:
        return FormatError(self.path, self.lineno, message)

    def obj(self, value: Any, what: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(say("%(what)s must be a JSON object", what=what))
        return value

    def keys(
        self, obj: dict[str, Any], required: AbstractSet[str], allowed: AbstractSet[str], what: str
    ) -> None:
        missing = sorted(required - obj.keys())
        if missing:
            raise self.fail(
                say("%(what)s is missing %(names)s", what=what, names=", ".join(map(repr, missing)))
            )
        extra = sorted(obj.keys() - allowed)
        if extra:
            raise self.fail(say("%(what)s has unknown key %(value)r", what=what, value=extra[0]))

    def ident(self, value: Any, what: str) -> str:
        """A non-empty string id (integers are accepted and turned into strings)."""
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str) or not value:
            raise self.fail(say("%(what)s must be a non-empty string", what=what))
        if "\x00" in value:
            raise self.fail(say("%(what)s: ids may not contain NUL characters", what=what))
        return value

    def opt_str(self, value: Any, what: str) -> str | None:
        if value is not None and not isinstance(value, str):
            raise self.fail(say("%(what)s must be a string or null", what=what))
        return value

    def int_(self, value: Any, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(say("%(what)s %(value)r is not an integer", what=what, value=value))
        return value

    def opt_int(self, value: Any, what: str) -> int | None:
        return None if value is None else self.int_(value, what)

    def number(self, value: Any, what: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(say("%(what)s %(value)r is not a number", what=what, value=value))
        x = float(value)
        if not math.isfinite(x):
            raise self.fail(
                say("%(what)s %(value)r is not a finite number", what=what, value=value)
            )
        return x

    def array(self, value: Any, what: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(say("%(what)s must be a JSON array", what=what))
        return value


def read_jsonl_run(path: str | Path, require_scores: bool = False) -> RankingColumns:
    """JSONL run: ``{"query_id", "results": [{"id", "score"?}, ...]}`` per line, best first.
    Extra keys are ignored (retriever output often carries text); a query may appear once."""
    qids: list[str] = []
    seen: set[str] = set()
    counts: list[int] = []
    ids: list[bytes] = []
    scores: list[float] = []
    for lineno, value in json_lines(path):
        chk = LineCheck(path, lineno)
        obj = chk.obj(value, "line")
        chk.keys(obj, {"query_id", "results"}, set(obj), "line")
        qid = chk.ident(obj["query_id"], "query_id")
        if qid in seen:
            raise chk.fail(say("query %(qid)r appears twice", qid=qid))
        seen.add(qid)
        results = chk.array(obj["results"], "results")
        for i, item in enumerate(results):
            res = chk.obj(item, f"results[{i}]")
            chk.keys(res, {"id"}, set(res), f"results[{i}]")
            ids.append(chk.ident(res["id"], f"results[{i}].id").encode("utf-8"))
            if "score" in res and res["score"] is not None:
                scores.append(chk.number(res["score"], f"results[{i}].score"))
            elif require_scores:
                raise chk.fail(say("results[%(i)s] has no score (needed to order by score)", i=i))
            else:
                scores.append(math.nan)
        qids.append(qid)
        counts.append(len(results))
    n = len(ids)
    sizes = np.array(counts, dtype=np.int64)
    ranks = np.arange(n, dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes) + 1
    return RankingColumns(
        query_ids=tuple(qids),
        qidx=np.repeat(np.arange(len(qids), dtype=np.int64), counts),
        ids=bytes_array(ids),
        scores=np.array(scores, dtype=np.float64),
        ranks=ranks.astype(np.int64),
    )


def read_jsonl_qrels(path: str | Path) -> JudgmentColumns:
    """JSONL qrels: ``{"query_id", "judgments": [{"id", "grade"}, ...]}`` per line. A query with
    an empty list is still a golden query (it has no relevant chunk)."""
    qids: list[str] = []
    seen: set[str] = set()
    counts: list[int] = []
    ids: list[bytes] = []
    grades: list[int] = []
    for lineno, value in json_lines(path):
        chk = LineCheck(path, lineno)
        obj = chk.obj(value, "line")
        chk.keys(obj, {"query_id", "judgments"}, QRELS_KEYS, "line")
        qid = chk.ident(obj["query_id"], "query_id")
        if len(obj) > 2:
            answer_key(chk, obj, qid)  # validated here too: qrels are one file, read strictly
        if qid in seen:
            raise chk.fail(say("query %(qid)r appears twice", qid=qid))
        seen.add(qid)
        docs: set[str] = set()
        items = chk.array(obj["judgments"], "judgments")
        for i, item in enumerate(items):
            j = chk.obj(item, f"judgments[{i}]")
            chk.keys(j, {"id", "grade"}, {"id", "grade"}, f"judgments[{i}]")
            doc = chk.ident(j["id"], f"judgments[{i}].id")
            if doc in docs:
                raise chk.fail(
                    say("duplicate judgment for query %(qid)r, id %(doc)r", qid=qid, doc=doc)
                )
            docs.add(doc)
            ids.append(doc.encode("utf-8"))
            grades.append(chk.int_(j["grade"], "grade"))
        qids.append(qid)
        counts.append(len(items))
    if not qids:
        raise FormatError(path, 1, say("no judgments in file"))
    return JudgmentColumns(
        query_ids=tuple(qids),
        qidx=np.repeat(np.arange(len(qids), dtype=np.int64), counts),
        ids=bytes_array(ids),
        grades=np.array(grades, dtype=np.int64),
    )


# --------------------------------------------------------------------------------------------
# Answers: the fields a golden query may carry about its answer (qrels and golden sets alike)

ANSWER_KEYS = frozenset(
    {"reference_answer", "reference_answers", "answer_type", "choices", "reference_facts"}
)
QRELS_KEYS = frozenset({"query_id", "judgments", "query", "category"}) | ANSWER_KEYS
_FACT_KEYS = {"text", "chunk_ids"}


def answer_key(chk: LineCheck, obj: dict[str, Any], qid: str) -> AnswerKey:
    """The answer fields of a query line, checked: ``reference_answer`` (string or null),
    ``answer_type`` (one of ``ANSWER_TYPES``; a closed type needs a reference answer that
    states a value of that type), ``choices`` (for ``choice`` only: two or more distinct
    strings, the reference answer one of them), ``reference_facts`` (``[{"text",
    "chunk_ids"}]``, chunk ids distinct within a fact). ``query`` and ``category`` are taken
    when present. ``reference_answers`` (a list of distinct non-empty strings) gives several
    reference answers, the first the primary one: ``reference_answer``, when also given, must
    be that first one."""
    ref = chk.opt_str(obj.get("reference_answer"), "reference_answer")
    alternatives: tuple[str, ...] = ()
    if obj.get("reference_answers") is not None:
        refs = chk.array(obj["reference_answers"], "reference_answers")
        if not refs:
            raise chk.fail("reference_answers must hold at least one answer")
        for i, r in enumerate(refs):
            if not isinstance(r, str) or not r.strip():
                raise chk.fail(f"reference_answers[{i}] must be a non-empty string")
            if r in refs[:i]:
                raise chk.fail(f"reference_answers[{i}]: {r!r} appears twice")
        if ref is not None and ref != refs[0]:
            raise chk.fail(
                f"reference_answer {ref!r} must be the first of reference_answers ({refs[0]!r})"
            )
        ref, alternatives = refs[0], tuple(refs[1:])
    raw_type = obj.get("answer_type")
    kind: AnswerType | None = None
    if raw_type is not None:
        if raw_type not in ANSWER_TYPES:
            known = ", ".join(ANSWER_TYPES)
            raise chk.fail(f"answer_type {raw_type!r} is not one of {known}")
        kind = cast(AnswerType, raw_type)
    choices: tuple[str, ...] = ()
    if obj.get("choices") is not None:
        if kind != "choice":
            raise chk.fail('choices are only for "answer_type": "choice"')
        items = chk.array(obj["choices"], "choices")
        for i, c in enumerate(items):
            if not isinstance(c, str) or not c.strip():
                raise chk.fail(f"choices[{i}] must be a non-empty string")
        normal = [answer_values.normalise_choice(c) for c in items]
        if len(set(normal)) != len(normal):
            raise chk.fail("choices must differ (after case and spaces are ignored)")
        choices = tuple(items)
    if kind in CLOSED_TYPES:
        _check_closed(chk, kind, ref, choices)
    facts: list[KeyFact] = []
    for i, item in enumerate(chk.array(obj.get("reference_facts") or [], "reference_facts")):
        what = f"reference_facts[{i}]"
        fact = chk.obj(item, what)
        if "chunks" in fact and "chunk_ids" not in fact:
            raise chk.fail(f"{what} has unknown key 'chunks' (the key is 'chunk_ids')")
        chk.keys(fact, {"text"}, _FACT_KEYS, what)
        text = fact["text"]
        if not isinstance(text, str) or not text.strip():
            raise chk.fail(f"{what}.text must be a non-empty string")
        ids: list[str] = []
        for j, cid in enumerate(chk.array(fact.get("chunk_ids") or [], f"{what}.chunk_ids")):
            ident = chk.ident(cid, f"{what}.chunk_ids[{j}]")
            if ident in ids:
                raise chk.fail(f"{what}.chunk_ids: {ident!r} appears twice")
            ids.append(ident)
        facts.append(KeyFact(text, tuple(ids)))
    return AnswerKey(
        query_id=qid,
        reference_answer=ref,
        answer_type=kind,
        choices=choices,
        facts=tuple(facts),
        query=chk.opt_str(obj.get("query"), "query"),
        category=chk.opt_str(obj.get("category"), "category"),
        alternatives=alternatives,
    )


def _check_closed(
    chk: LineCheck, kind: AnswerType, ref: str | None, choices: tuple[str, ...]
) -> None:
    if ref is None:
        raise chk.fail(f"answer_type {kind} needs a reference_answer")
    if kind == "number" and not answer_values.number_answer(ref):
        raise chk.fail(f"reference_answer {ref!r} states no number (answer_type number)")
    if kind == "date" and not answer_values.dates(ref):
        raise chk.fail(f"reference_answer {ref!r} states no date the rules read (answer_type date)")
    if kind == "boolean" and answer_values.polarity(ref) is None:
        raise chk.fail(f"reference_answer {ref!r} is not yes or no (answer_type boolean)")
    if kind == "choice":
        if len(choices) < 2:
            raise chk.fail("answer_type choice needs choices: a list of at least two")
        if len(answer_values.chosen(ref, choices)) != 1:
            raise chk.fail(f"reference_answer {ref!r} is not one of the choices")


def answer_json(key: AnswerKey) -> dict[str, Any]:
    """The answer fields as a query line writes them: each only when set, in the order
    ``reference_answer``, ``reference_answers`` (only with further references: every
    reference, the primary first), ``answer_type``, ``choices``, ``reference_facts``."""
    out: dict[str, Any] = {}
    if key.reference_answer is not None:
        out["reference_answer"] = key.reference_answer
    if key.alternatives:
        out["reference_answers"] = list(key.references)
    if key.answer_type is not None:
        out["answer_type"] = key.answer_type
    if key.choices:
        out["choices"] = list(key.choices)
    if key.facts:
        out["reference_facts"] = [
            {"text": f.text, "chunk_ids": list(f.chunk_ids)} for f in key.facts
        ]
    return out


@dataclass(frozen=True)
class QrelsRow:
    """One line of JSONL qrels: the judgments (``(chunk id, grade)`` in file order) and what the
    line says about the query and its answer (an :class:`AnswerKey`, empty when nothing)."""

    query_id: str
    judgments: tuple[tuple[str, int], ...]
    answer: AnswerKey


def read_jsonl_qrels_rows(path: str | Path) -> list[QrelsRow]:
    """JSONL qrels with everything a line may carry (see the module docstring), checked as
    :func:`read_jsonl_qrels` checks them."""
    rows: list[QrelsRow] = []
    seen: set[str] = set()
    for lineno, value in json_lines(path):
        chk = LineCheck(path, lineno)
        obj = chk.obj(value, "line")
        chk.keys(obj, {"query_id", "judgments"}, QRELS_KEYS, "line")
        qid = chk.ident(obj["query_id"], "query_id")
        if qid in seen:
            raise chk.fail(f"query {qid!r} appears twice")
        seen.add(qid)
        judged: list[tuple[str, int]] = []
        docs: set[str] = set()
        for i, item in enumerate(chk.array(obj["judgments"], "judgments")):
            j = chk.obj(item, f"judgments[{i}]")
            chk.keys(j, {"id", "grade"}, {"id", "grade"}, f"judgments[{i}]")
            doc = chk.ident(j["id"], f"judgments[{i}].id")
            if doc in docs:
                raise chk.fail(f"duplicate judgment for query {qid!r}, id {doc!r}")
            docs.add(doc)
            judged.append((doc, chk.int_(j["grade"], "grade")))
        rows.append(QrelsRow(qid, tuple(judged), answer_key(chk, obj, qid)))
    if not rows:
        raise FormatError(path, 1, "no judgments in file")
    return rows


def jsonl_qrels_lines(rows: Iterable[QrelsRow]) -> Iterator[str]:
    """JSONL qrels, one line per row: ``query_id``, then ``query`` and ``category`` when set,
    ``judgments``, then the answer fields when set (:func:`answer_json`). What
    :func:`read_jsonl_qrels_rows` reads back is written again byte for byte."""
    for r in rows:
        obj: dict[str, Any] = {"query_id": r.query_id}
        if r.answer.query is not None:
            obj["query"] = r.answer.query
        if r.answer.category is not None:
            obj["category"] = r.answer.category
        obj["judgments"] = [{"id": c, "grade": g} for c, g in r.judgments]
        obj.update(answer_json(r.answer))
        yield dumps(obj) + "\n"


# --------------------------------------------------------------------------------------------
# Runs with every stage


def _ranked(chk: LineCheck, value: Any, what: str) -> tuple[RankedItem, ...]:
    out: list[RankedItem] = []
    for i, item in enumerate(chk.array(value, what)):
        res = chk.obj(item, f"{what}[{i}]")
        chk.keys(res, {"id"}, set(res), f"{what}[{i}]")
        score = res.get("score")
        out.append(
            RankedItem(
                id=chk.ident(res["id"], f"{what}[{i}].id"),
                score=None if score is None else chk.number(score, f"{what}[{i}].score"),
                text=chk.opt_str(res.get("text"), f"{what}[{i}].text"),
            )
        )
    return tuple(out)


def read_jsonl_stages(path: str | Path) -> list[StagedQuery]:
    """A JSONL run with every stage it carries: ``results`` (required), ``candidates``,
    ``contexts`` (``[{"id", "text"}]``), ``response`` (string or null). Result entries keep
    ``id``, ``score`` and ``text``; other keys are ignored, as :func:`read_jsonl_run` does."""
    out: list[StagedQuery] = []
    seen: set[str] = set()
    for lineno, value in json_lines(path):
        chk = LineCheck(path, lineno)
        obj = chk.obj(value, "line")
        chk.keys(obj, {"query_id", "results"}, set(obj), "line")
        qid = chk.ident(obj["query_id"], "query_id")
        if qid in seen:
            raise chk.fail(f"query {qid!r} appears twice")
        seen.add(qid)
        contexts: tuple[Context, ...] | None = None
        if obj.get("contexts") is not None:
            items: list[Context] = []
            for i, item in enumerate(chk.array(obj["contexts"], "contexts")):
                c = chk.obj(item, f"contexts[{i}]")
                chk.keys(c, {"id", "text"}, set(c), f"contexts[{i}]")
                text = c["text"]
                if not isinstance(text, str):
                    raise chk.fail(f"contexts[{i}].text must be a string")
                items.append(Context(chk.ident(c["id"], f"contexts[{i}].id"), text))
            contexts = tuple(items)
        candidates = obj.get("candidates")
        out.append(
            StagedQuery(
                query_id=qid,
                results=_ranked(chk, obj["results"], "results"),
                candidates=None if candidates is None else _ranked(chk, candidates, "candidates"),
                contexts=contexts,
                response=chk.opt_str(obj.get("response"), "response"),
            )
        )
    return out


def _ranked_json(items: tuple[RankedItem, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for r in items:
        entry: dict[str, Any] = {"id": r.id}
        if r.score is not None:
            entry["score"] = r.score
        if r.text is not None:
            entry["text"] = r.text
        out.append(entry)
    return out


def jsonl_run_lines(run: Iterable[StagedQuery]) -> Iterator[str]:
    """A JSONL run, one line per query: ``query_id``, ``results``, then ``candidates``,
    ``contexts`` and ``response`` when present. What :func:`read_jsonl_stages` reads back is
    written again byte for byte."""
    for s in run:
        obj: dict[str, Any] = {"query_id": s.query_id, "results": _ranked_json(s.results)}
        if s.candidates is not None:
            obj["candidates"] = _ranked_json(s.candidates)
        if s.contexts is not None:
            obj["contexts"] = [{"id": c.id, "text": c.text} for c in s.contexts]
        if s.response is not None:
            obj["response"] = s.response
        yield dumps(obj) + "\n"
