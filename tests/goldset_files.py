"""Golden-set files for tests, written by the one writer (`goldset_lines`) with the header an
export carries: the content hash and the counts of the queries given."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from goldsmith.formats.goldset import GoldenQuery, goldset_content_hash, goldset_lines


def goldset_text(project: str, label: str, queries: Iterable[GoldenQuery], **header: Any) -> str:
    """The native file of `queries` (written in query_id order); `header` adds header keys."""
    ordered = sorted(queries, key=lambda q: q.query_id)
    head = {
        "project": project,
        "label": label,
        "content_hash": goldset_content_hash(ordered),
        "query_count": len(ordered),
        "judgment_count": sum(len(q.judgments) for q in ordered),
        **header,
    }
    return "".join(goldset_lines(head, ordered))
