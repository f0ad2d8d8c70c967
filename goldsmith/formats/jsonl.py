"""JSON Lines runs and qrels, and the field checks every JSON Lines reader uses.

- run: one ``{"query_id": ..., "results": [{"id": ..., "score": ...}, ...]}`` per line;
- qrels: one ``{"query_id": ..., "judgments": [{"id": ..., "grade": ...}, ...]}`` per line.

Pure module: numpy and the standard library, no Django. Every problem raises
:class:`~goldsmith.formats.FormatError` (``FILE:LINE: what is wrong``); see docs/formats.md.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from goldsmith.formats import FormatError
from goldsmith.formats.common import bytes_array
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

    def keys(self, obj: dict[str, Any], required: set[str], allowed: set[str], what: str) -> None:
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
        chk.keys(obj, {"query_id", "judgments"}, {"query_id", "judgments"}, "line")
        qid = chk.ident(obj["query_id"], "query_id")
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
