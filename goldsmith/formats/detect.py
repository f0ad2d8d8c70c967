"""Which format a file is in, and judgments or ranked lists read from a file of any format.

Pure module, no Django (see docs/formats.md, "Common rules").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from goldsmith.formats import FormatError
from goldsmith.formats.goldset import GOLDSET_FORMAT, goldset_judgments, read_goldset
from goldsmith.formats.jsonl import read_jsonl_qrels, read_jsonl_run
from goldsmith.formats.trec import read_trec_qrels, read_trec_run
from goldsmith.metrics import JudgmentColumns, RankingColumns
from goldsmith.text import say

FileFormat = Literal["trec", "jsonl", "goldset"]


def detect_format(path: str | Path) -> FileFormat:
    """``goldset`` if the first non-blank line is a goldset header, ``jsonl`` if it starts with
    ``{``, otherwise ``trec``."""
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
                return "jsonl"
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
