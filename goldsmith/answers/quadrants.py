"""The four-quadrant diagnosis: context recall against answer correctness, per query.

Pure module. A query is placed when both its context recall and its correctness are scored;
"high" means at or above the threshold (within ``goldsmith.bands.TOLERANCE``). Both thresholds
default to the pass threshold used for retrieval (0.7, ``goldsmith.bands.Targets``) and can be
edited. Each quadrant comes with what to look at (the issue's advice, in plain words).

When the run's faithfulness is scored, each quadrant also lists its *unfaithful* queries (the
response says what its contexts do not: faithfulness below the correctness threshold) with
what to look at for them: with the context found, the prompt or the model, not retrieval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from goldsmith.bands import TOLERANCE, Targets
from goldsmith.text import Text, say

DEFAULT_THRESHOLD = Targets().pass_threshold

QUADRANTS: tuple[str, ...] = (
    "low_recall_low_correctness",
    "low_recall_high_correctness",
    "high_recall_low_correctness",
    "high_recall_high_correctness",
)
TITLES: dict[str, Text] = {
    "low_recall_low_correctness": say("Context missed, answer wrong"),
    "low_recall_high_correctness": say("Context missed, answer right"),
    "high_recall_low_correctness": say("Context found, answer wrong"),
    "high_recall_high_correctness": say("Context found, answer right"),
}
ADVICE: dict[str, Text] = {
    "low_recall_low_correctness": say(
        "Retrieval is the first suspect: look at chunking, query rewriting, the top-K given to "
        "the model, the reranker, and whether the golden set covers these questions."
    ),
    "low_recall_high_correctness": say(
        "Right without the key facts in context: the question may be too easy (the model "
        "knows the answer), or the reference facts are incomplete or linked to the wrong chunks."
    ),
    "high_recall_low_correctness": say(
        "Generation is the suspect: the facts were in context but the answer missed them. Look "
        "at the prompt, how the answer integrates several facts, and hallucinated details."
    ),
    "high_recall_high_correctness": say(
        "Working: keep these as regression cases, and look here for the hard cases worth "
        "adding to the golden set."
    ),
}

UNFAITHFUL_ADVICE: dict[str, Text] = {
    "low_recall_low_correctness": say(
        "The answer says what its contexts do not: with the key facts missing, the model "
        "filled the gap itself. Fix retrieval first, and have the prompt tell the model to say "
        "when the contexts do not hold the answer."
    ),
    "low_recall_high_correctness": say(
        "Right, but not from its contexts: the model answered from what it knows. Retrieval "
        "missed the facts; the answer will not hold for what the model does not know."
    ),
    "high_recall_low_correctness": say(
        "Context found, answer unfaithful: the prompt or the model, not retrieval. Look at the "
        "grounding instructions, the temperature and the model, and at the claims listed."
    ),
    "high_recall_high_correctness": say(
        "Right, yet it claims more than its contexts hold: the prompt or the model adds "
        "details; check the claims listed before they turn wrong."
    ),
}


@dataclass(frozen=True)
class Quadrants:
    """Queries by high/low context recall × high/low correctness.

    ``counts`` and ``queries`` are keyed by :data:`QUADRANTS`; ``by_category`` holds the counts
    per category ("(none)" for a query without one); ``unplaced`` lists queries that lack one of
    the two scores. ``unfaithful`` (when faithfulness was given) maps each quadrant to its
    placed queries whose faithfulness is below ``faithfulness_threshold``."""

    recall_metric: str
    correctness_metric: str
    recall_threshold: float
    correctness_threshold: float
    counts: Mapping[str, int]
    queries: Mapping[str, tuple[str, ...]]
    by_category: Mapping[str, Mapping[str, int]]
    unplaced: tuple[str, ...]
    unfaithful: Mapping[str, tuple[str, ...]] | None = None
    faithfulness_threshold: float | None = None

    def to_json(self) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if self.unfaithful is not None:
            extra = {
                "faithfulness_threshold": self.faithfulness_threshold,
                "unfaithful": {q: list(v) for q, v in self.unfaithful.items()},
                "unfaithful_advice": dict(UNFAITHFUL_ADVICE),
            }
        return {
            "recall_metric": self.recall_metric,
            "correctness_metric": self.correctness_metric,
            "recall_threshold": self.recall_threshold,
            "correctness_threshold": self.correctness_threshold,
            "counts": dict(self.counts),
            "queries": {q: list(v) for q, v in self.queries.items()},
            "by_category": {c: dict(v) for c, v in self.by_category.items()},
            "unplaced": list(self.unplaced),
            "titles": dict(TITLES),
            "advice": dict(ADVICE),
            **extra,
        }


def quadrant_of(recall: float, correctness: float, rt: float, ct: float) -> str:
    """The quadrant name of one query's two scores."""
    r = "high_recall" if recall >= rt - TOLERANCE else "low_recall"
    c = "high_correctness" if correctness >= ct - TOLERANCE else "low_correctness"
    return f"{r}_{c}"


def quadrants(
    query_ids: Sequence[str],
    recall: Sequence[float],
    correctness: Sequence[float],
    *,
    categories: Sequence[str | None] | None = None,
    recall_threshold: float = DEFAULT_THRESHOLD,
    correctness_threshold: float = DEFAULT_THRESHOLD,
    recall_metric: str = "context_recall",
    correctness_metric: str = "answer_correctness",
    faithfulness: Sequence[float | None] | None = None,
    faithfulness_threshold: float | None = None,
) -> Quadrants:
    """Place every query whose two values are numbers (NaN or None: unplaced). With
    ``faithfulness`` (per query, NaN or None where not scored), list each quadrant's queries
    whose faithfulness is below ``faithfulness_threshold`` (default: the correctness one)."""
    for name, t in (("recall", recall_threshold), ("correctness", correctness_threshold)):
        if not 0.0 <= t <= 1.0:
            raise ValueError(f"the {name} threshold must be between 0 and 1, not {t}")
    cats = list(categories) if categories is not None else [None] * len(query_ids)
    placed: dict[str, list[str]] = {q: [] for q in QUADRANTS}
    per_cat: dict[str, dict[str, int]] = {}
    unplaced: list[str] = []
    ft = correctness_threshold if faithfulness_threshold is None else faithfulness_threshold
    faithful = list(faithfulness) if faithfulness is not None else [None] * len(query_ids)
    unfaithful: dict[str, list[str]] = {q: [] for q in QUADRANTS}
    for q, r, c, cat, f in zip(query_ids, recall, correctness, cats, faithful, strict=True):
        if r is None or c is None or r != r or c != c:
            unplaced.append(q)
            continue
        name = quadrant_of(r, c, recall_threshold, correctness_threshold)
        placed[name].append(q)
        if f is not None and f == f and f < ft - TOLERANCE:
            unfaithful[name].append(q)
        bucket = per_cat.setdefault(cat or "(none)", dict.fromkeys(QUADRANTS, 0))
        bucket[name] += 1
    return Quadrants(
        recall_metric=recall_metric,
        correctness_metric=correctness_metric,
        recall_threshold=recall_threshold,
        correctness_threshold=correctness_threshold,
        counts={q: len(v) for q, v in placed.items()},
        queries={q: tuple(v) for q, v in placed.items()},
        by_category=dict(sorted(per_cat.items())),
        unplaced=tuple(unplaced),
        unfaithful=(None if faithfulness is None else {q: tuple(v) for q, v in unfaithful.items()}),
        faithfulness_threshold=None if faithfulness is None else ft,
    )
