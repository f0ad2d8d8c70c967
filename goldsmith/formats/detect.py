"""Which format a file is in, and judgments or ranked lists read from a file of any format.

Pure module, no Django (see docs/formats.md, "Common rules").
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from goldsmith.formats import FormatError
from goldsmith.formats.goldset import GOLDSET_FORMAT, goldset_judgments, read_goldset
from goldsmith.formats.jsonl import read_jsonl_qrels, read_jsonl_run
from goldsmith.formats.trec import read_trec_qrels, read_trec_run
from goldsmith.metrics import JudgmentColumns, RankingColumns
from goldsmith.text import say

FileFormat = Literal["trec", "jsonl", "goldset"]


def _trec_shaped(line: bytes) -> bool:
    """Whether a line reads as a TREC qrels line (query, iteration, doc, integer grade) or run
    line (query, Q0, doc, integer rank, number score, tag): a query id may begin with ``{``."""
    fields = line.split()
    try:
        if len(fields) == 4:
            int(fields[3])
        elif len(fields) == 6:
            int(fields[3]), float(fields[4])
        else:
            return False
    except ValueError:
        return False
    return True


def detect_format(path: str | Path) -> FileFormat:
    """``goldset`` if the first non-blank line is a goldset header, ``jsonl`` if it starts with
    ``{`` (and, when it is no JSON, does not read as a TREC line), otherwise ``trec``."""
    with open(path, "rb") as f:
        for raw in f:
            line = raw.strip()
            if not line:
                continue
            if not line.startswith(b"{"):
                return "trec"
            try:
                head = json.loads(line)
            except (ValueError, RecursionError):
                return "trec" if _trec_shaped(line) else "jsonl"
            is_goldset = isinstance(head, dict) and head.get("format") == GOLDSET_FORMAT
            return "goldset" if is_goldset else "jsonl"
    return "trec"


def read_qrels(path: str | Path, fmt: FileFormat | None = None) -> JudgmentColumns:
    """Judgments from a TREC qrels, JSONL qrels or goldset file (detected when ``fmt`` is None)."""
    fmt = fmt or detect_format(path)
    if fmt == "trec":
        return read_trec_qrels(path)
    if fmt == "jsonl":
        return read_jsonl_qrels(path)
    return goldset_judgments(read_goldset(path))


def read_run(
    path: str | Path, fmt: Literal["trec", "jsonl"] | None = None, *, require_scores: bool = False
) -> RankingColumns:
    """Ranked results from a TREC or JSONL run (detected when ``fmt`` is None)."""
    if fmt is None:
        detected = detect_format(path)
        if detected == "goldset":
            raise FormatError(path, 1, say("this is a golden set, not a run"))
        fmt = detected
    return read_trec_run(path) if fmt == "trec" else read_jsonl_run(path, require_scores)


@dataclass(frozen=True)
class RepeatedId:
    """An id a run lists again for the same query: at ``line``, already at ``first_line`` (the
    same line in a JSONL run, whose list is one line)."""

    query_id: str
    id: str
    line: int
    first_line: int


def run_repeats(
    path: str | Path, fmt: Literal["trec", "jsonl"], queries: Collection[str] | None = None
) -> list[RepeatedId]:
    """Every repeated (query, id) of a run that its reader accepted, in file order, for the
    ``queries`` given (all when None). Scoring counts an id once, at its first place in the
    ranking (docs/formats.md, "TREC run"); this finds the lines to name in the warning. It
    reads the file again line by line, so callers ask only when the join found repeats."""
    wanted = None if queries is None else set(queries)
    first: dict[tuple[str, str], int] = {}
    out: list[RepeatedId] = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if fmt == "trec":
                toks = line.split()
                if not toks or toks[0].startswith("#"):
                    continue
                pairs = [(toks[0], toks[2])]
            else:
                if not line.strip():
                    continue
                obj = json.loads(line)
                qid = str(obj["query_id"])
                pairs = [(qid, str(r["id"])) for r in obj["results"]]
                first.clear()  # a query is on one line only (the reader refuses it twice)
            for pair in pairs:
                if wanted is not None and pair[0] not in wanted:
                    continue
                if pair in first:
                    out.append(RepeatedId(pair[0], pair[1], lineno, first[pair]))
                else:
                    first[pair] = lineno
    return out


def repeats_warning(path: str | Path, repeats: list[RepeatedId]) -> str:
    """One line for a person: where the first repeat is, what scoring does, how many (the
    command line's words: English)."""
    r = repeats[0]
    where = "earlier on this line" if r.line == r.first_line else f"first on line {r.first_line}"
    queries = len({x.query_id for x in repeats})
    return (
        f"{path}:{r.line}: id {r.id!r} is listed again for query {r.query_id!r} ({where}): "
        "an id counts once, at its first place in the ranking, so later copies are dropped "
        f"(copies dropped: {len(repeats)}, in queries: {queries}; trec_eval refuses such a file)"
    )
