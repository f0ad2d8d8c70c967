"""Pool bias: how much of a golden set a retriever helped build.

Pure module. A golden set is judged on pools: the union of the top K of several retrievers
(annotation's pool sources). A retriever scored on pools it contributed to is favoured over
one that did not: every chunk it found in its own top K was put before the annotators, while
a new retriever's finds may be unjudged (scored as not relevant). The report names it:

- ``share`` = (judged candidates some pool source of this retriever found) / (judged
  candidates some pool source found), over the (query, chunk) pairs of the golden set that
  have a final grade; a judged pair no pool source found (its origin unknown) is left out;
- a comparison warns when two runs' shares differ by more than :data:`GAP_POINTS` percentage
  points (20: one run's retriever built a fifth more of the judged pool than the other's).

Without pool data (a golden set read from files, the command line) there is no share: the
callers say nothing rather than 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from goldsmith.bands import TOLERANCE

GAP_POINTS = 20  # percentage points between two runs' shares that a comparison warns about


@dataclass(frozen=True)
class PoolShare:
    """``own`` of the ``judged`` candidates came from the retriever's own pool ``sources``."""

    own: int
    judged: int
    sources: tuple[str, ...]

    @property
    def share(self) -> float | None:
        return self.own / self.judged if self.judged else None

    def to_json(self) -> dict[str, Any]:
        return {
            "own": self.own,
            "judged": self.judged,
            "share": self.share,
            "sources": list(self.sources),
        }


def pool_share(
    judged: Iterable[tuple[str, str]],
    own: Iterable[tuple[str, str]],
    sources: Iterable[str] = (),
) -> PoolShare:
    """The share of the ``judged`` (query id, chunk id) pairs that are among ``own`` (the
    pairs the retriever's pool ``sources`` put in the pools). Pairs count once."""
    judged_set = set(judged)
    mine = set(own)
    return PoolShare(
        own=len(judged_set & mine), judged=len(judged_set), sources=tuple(sorted(set(sources)))
    )


def pool_gap(
    a: Mapping[str, Any] | None, b: Mapping[str, Any] | None, points: float = GAP_POINTS
) -> dict[str, Any] | None:
    """Two runs' pool shares side by side (``{"a", "b", "gap", "threshold", "warn"}``, shares
    and gap as fractions, threshold in points); None when either has no share (no pool data:
    nothing to say). ``warn`` when the shares differ by more than ``points`` points (a gap of
    exactly the threshold does not warn)."""
    sa = None if a is None else a.get("share")
    sb = None if b is None else b.get("share")
    if sa is None or sb is None:
        return None
    gap = float(sb) - float(sa)
    return {
        "a": float(sa),
        "b": float(sb),
        "gap": gap,
        "threshold": points,
        "warn": abs(gap) * 100 > points + TOLERANCE,
    }
