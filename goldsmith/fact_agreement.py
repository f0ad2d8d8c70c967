"""Agreement on key facts: how far annotators who wrote a query's key facts independently
support them with the same chunks (docs/design.md "Reference answers written by annotators").

Pure module, no Django. A fact is given by its supporting chunk ids (its text is not compared:
two people word the same fact differently). Definitions:

- A fact's *support* is the set of its chunk ids (order and repeats do not matter). A fact with
  no chunk is unsupported and never matches.
- Two annotators' facts A and B are matched one to one on identical non-empty supports:
  ``matched = Σ_s min(#A with support s, #B with support s)``. The pair's *distinct facts* are
  ``|A| + |B| − matched`` (a matched pair is one fact), and its fact agreement is
  ``matched / distinct``, undefined (None) when neither wrote a fact.
- A query's fact agreement pools the pairs of its annotators who wrote a draft:
  ``Σ matched / Σ distinct`` over the pairs (for two annotators, the pair's figure); a query
  with fewer than two drafts has none.
- A project's pools its queries the same way, so a query with many facts weighs more.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

Support = frozenset[str]


@dataclass(frozen=True)
class FactAgreement:
    """Matched facts over distinct facts, summed over annotator pairs (and queries)."""

    matched: int = 0
    distinct: int = 0
    queries: int = 0  # queries with at least two drafts that went into the sums

    @property
    def value(self) -> float | None:
        return self.matched / self.distinct if self.distinct else None

    def __add__(self, other: FactAgreement) -> FactAgreement:
        return FactAgreement(
            self.matched + other.matched,
            self.distinct + other.distinct,
            self.queries + other.queries,
        )


def supports(facts: Iterable[Sequence[str]]) -> list[Support]:
    """Each fact's support, from its chunk ids."""
    return [frozenset(chunk_ids) for chunk_ids in facts]


def matched_pairs(a: Sequence[Support], b: Sequence[Support]) -> list[tuple[int, int]]:
    """The one-to-one matching of A's facts to B's by identical non-empty support, as
    (index in A, index in B): the k-th fact of A with a support meets the k-th of B with it."""
    waiting: dict[Support, list[int]] = {}
    for j, support in enumerate(b):
        if support:
            waiting.setdefault(support, []).append(j)
    out: list[tuple[int, int]] = []
    for i, support in enumerate(a):
        queue = waiting.get(support)
        if queue:
            out.append((i, queue.pop(0)))
    return out


def pair_agreement(a: Sequence[Support], b: Sequence[Support]) -> FactAgreement:
    """Two annotators' facts on one query."""
    count_a = Counter(s for s in a if s)
    count_b = Counter(s for s in b if s)
    matched = sum(min(n, count_b[s]) for s, n in count_a.items())
    return FactAgreement(matched=matched, distinct=len(a) + len(b) - matched)


def query_agreement(drafts: Mapping[str, Sequence[Support]]) -> FactAgreement:
    """One query's fact agreement over the annotators who wrote a draft (name → supports);
    ``queries`` is 1 when there were at least two drafts, else 0 (and the sums are 0)."""
    names = sorted(drafts)
    if len(names) < 2:
        return FactAgreement()
    total = FactAgreement(queries=1)
    for x, y in itertools.combinations(names, 2):
        total = total + pair_agreement(drafts[x], drafts[y])
    return total


def project_agreement(per_query: Iterable[FactAgreement]) -> FactAgreement:
    """The pooled fact agreement of a project's queries."""
    total = FactAgreement()
    for figure in per_query:
        total = total + figure
    return total
