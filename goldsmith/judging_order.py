"""The order in which an annotator judges a query's pooled candidates, and when they may stop.

Pure module: numpy only, no Django (docs/design.md, "Judging order").

**The order.** A query's pool (:class:`PooledQuery`) holds its candidates in the pool's plain
order (the stored shuffle) and, for each candidate, the rank at which each source retriever
returned it. :func:`judging_order` puts the candidates this annotator has not judged yet
most-likely-relevant first. The likelihood is a logistic model of "relevant" (grade ≥
``relevant_from``, 1 by default: any gain) on the sources' ranks, one weight per source and rank
band (rank 1, 2, 3, 4–5, 6–10, 11–20, 21–40, deeper), fitted to the final grades of the
project's resolved queries (:func:`priors_from_resolved`) and shrunk toward a fixed
reciprocal-rank prior, so that a project with no resolved query gets a plain rank fusion. Within
the query it adapts as this annotator's grades arrive, in the spirit of move-to-front (Cormack
et al., SIGIR 1998) and MaxMean bandit adjudication (Losada, Parapar & Barreiro, IP&M 2017): one
offset for the query and one per source, fitted to the annotator's own grades on this query and
shrunk toward zero, so a source that keeps yielding relevant chunks gets its next chunks earlier
and one that yields none falls back. When the pool carries its candidates' texts, the order also
follows relevance feedback (Rocchio; continuous active learning, Cormack & Grossman 2014, is the
same idea): a candidate's score adds :data:`FEEDBACK` times its mean TF-IDF cosine similarity to
the candidates this annotator has graded relevant on this query, so what is like the relevant
ones found comes next. On the judging-effort benchmark this moved "95 % of the pool's relevant
found" from 48.6 % to 36.1 % of Cranfield's pool and from 74.3 % to 61.2 % of CISI's.

**Text embeddings (optional, an experiment of issue 22).** When the pool also carries its
candidates' embeddings (:attr:`PooledQuery.vectors`, e.g. a sentence model's; this module
computes none and imports no model), the feedback's likeness adds :data:`SEMANTIC_FEEDBACK`
times their cosine and subtracts :data:`NEGATIVE_FEEDBACK` times the likeness to the candidates
graded not relevant; with the query's embedding (:attr:`PooledQuery.query_vector`) the rank
model gains one feature, the candidate's standardised cosine to the query, its weight fitted to
resolved queries like the others (:attr:`SourcePriors.query`). With all-MiniLM-L6-v2 vectors
(bench/embed_pools.py) this needed 49.3 % of CISI's pool and 36.3 % of Cranfield's for 95 %.

**Blindness is structural.** The functions take only the pool with its sources' ranks and
texts, THIS annotator's own grades on this query, and priors made from final grades of resolved
queries.
There is no argument through which another annotator's grades of an unresolved query could
reach the order.

**The stop estimate** (:func:`stop_estimate`). The model gives every unjudged candidate a
probability of being relevant; the number still unjudged that are relevant is then a sum of
independent Bernoulli draws (Poisson binomial), whose distribution says how likely it is that
at least ``recall_target`` (95 %) of the query's relevant candidates are found
(:attr:`StopEstimate.p_target`). The annotator may stop when that is at least ``confidence``
(:data:`CONFIDENCE`, 70 %): the stop rests on the model alone, no candidate is drawn at random
(:data:`CHECKS` is 0). With ``checks`` > 0 the estimate first asks for that many candidates
drawn uniformly at random from the rest (:attr:`StopEstimate.draw`, a fixed hash-keyed
permutation of the pool that no grade influences); rest × relevant drawn / drawn is an unbiased
estimate of the relevant candidates left at the time of the draw, whatever the model's errors,
and the stop then also needs that check to find no more relevant than the target allows. What
is left is *not judged (stopped)* (:data:`NOT_JUDGED_STOPPED`): unjudged, never a 0.

What the estimate assumes: that the model's probabilities are calibrated for this query (it
was fitted to the project's resolved queries, so a query unlike them is not covered) and that
the candidates are relevant independently of one another given the model. In Goldsmith's order
they are not calibrated but cautious: what the relevance feedback passes over is less often
relevant than the rank model says, so on the judging-effort benchmark (docs/benchmarks.md,
"Session 8") the first point where the model says 70 % leaves recall below 95 % in 8.0 % of
Cranfield's queries and 6.9 % of CISI's, not 30 %. The defaults are the lowest confidence that
kept every target there (≤ 10 % of queries below 95 % true recall, Kendall τ of six systems
≥ 0.9, achieved recall ≥ 95 %) on both collections: it saves 22.0 % and 8.6 % of the
judgments. Random checks cost more than they catch on pools of 40–50 (three draws from a rest
of ~25 rarely see the one relevant candidate left): 0.7 with three checks saved 15.8 % and
4.2 %.

The plain orders a benchmark compares (random, the pool's plain order, round-robin by rank,
reciprocal-rank fusion, move-to-front, MaxMean) are here too, over the same inputs, each taking
a ``judge`` callable that returns the grade of a candidate when the order asks for it (the
adaptive ones ask one at a time).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np
from numpy.typing import NDArray

from goldsmith.intake.tokenizers import HAN, has_han

FloatArray = NDArray[np.float64]

NOT_JUDGED_STOPPED = "not judged (stopped)"
ORDER_LIKELY = "likely"  # most likely relevant first (this module's order)
ORDER_PLAIN = "plain"  # the pool's plain order
ORDER_CHECK = "check"  # a candidate drawn at random for the stop estimate

RELEVANT_FROM = 1
RECALL_TARGET = 0.95
# The stop rule's defaults: the model alone (no random check) at 70 % confidence, the lowest
# confidence that kept every stopping target on both benchmark collections (docs/benchmarks.md).
CONFIDENCE = 0.70
CHECKS = 0

# Rank bands: (first rank, last rank); a rank past the last band falls in the last one.
BANDS: tuple[tuple[int, int], ...] = (
    (1, 1),
    (2, 2),
    (3, 3),
    (4, 5),
    (6, 10),
    (11, 20),
    (21, 40),
    (41, 10**9),
)
PRIOR_INTERCEPT = -3.0
PRIOR_SCALE = 1.5  # prior weight of band b: PRIOR_SCALE / sqrt(its first rank)
PRIOR_STRENGTH = 2.0  # L2 penalty pulling the fitted weights toward the prior
QUERY_SHRINK = 1.0  # prior variance of the query's offset
SOURCE_SHRINK = 0.1  # prior variance of each source's offset on the query (chosen on Cranfield)
# Weight of a candidate's mean cosine similarity (the pool's TF-IDF) to the candidates this
# annotator graded relevant on the query, added to its logit in the order (chosen on both
# benchmark collections from 5, 10, 20, 40, 80, 160: 40 to 160 are within 1 % of each other).
FEEDBACK = 40.0
# With text embeddings (PooledQuery.vectors, e.g. a sentence model's), an experiment of issue 22
# (bench/embed_pools.py, judging_effort_bench.py --embeddings): the weight of the mean cosine of
# the embeddings to the candidates graded relevant, added to FEEDBACK's TF-IDF term, and the
# weight of the same combined likeness to the candidates graded not relevant, subtracted (only
# with embeddings: on TF-IDF alone it was measured worse on Cranfield, docs/benchmarks.md,
# session 7). Chosen on the two benchmark collections. The cosine to the query's embedding is
# not a fixed weight: it is a feature of the rank model, fitted to resolved queries
# (SourcePriors.query).
SEMANTIC_FEEDBACK = 20.0
NEGATIVE_FEEDBACK = 0.75


def band(rank: int) -> int:
    """The index in :data:`BANDS` of a rank (1-based)."""
    if rank < 1:
        raise ValueError(f"a rank starts at 1, not {rank}")
    if rank < len(_BAND_OF):
        return _BAND_OF[rank]
    return len(BANDS) - 1


_BAND_OF = [0] + [
    next(i for i, (_, last) in enumerate(BANDS) if r <= last) for r in range(1, BANDS[-1][0])
]


def prior_weight(b: int) -> float:
    """The weight of rank band `b` before any resolved query: a reciprocal-rank fusion."""
    return PRIOR_SCALE / math.sqrt(BANDS[b][0])


@dataclass(frozen=True)
class PooledQuery:
    """One query's pool: `candidates` in the pool's plain order; `ranks[c][source]` is the rank
    (1-based) at which `source` returned candidate `c` (a candidate no source ranked, e.g. one
    added by hand, has an empty mapping)."""

    query_id: str
    candidates: tuple[str, ...]
    ranks: Mapping[str, Mapping[str, int]]
    texts: Mapping[str, str] = field(default_factory=dict)
    """Each candidate's text (optional): the order then also follows what is like the
    candidates this annotator has graded relevant (:func:`similarities`)."""
    vectors: Mapping[str, Sequence[float]] = field(default_factory=dict)
    """Each candidate's text embedding (optional; one dimension for all, e.g. a sentence
    model's): the order's feedback then also follows their cosine (:func:`vector_similarities`,
    :data:`SEMANTIC_FEEDBACK`, :data:`NEGATIVE_FEEDBACK`). A candidate without one is like none."""
    query_vector: Sequence[float] = ()
    """The query text's embedding in the same space (optional, only with `vectors`): the rank
    model then also reads each candidate's standardised cosine to it (:func:`query_likeness`),
    with the weight fitted to resolved queries (:attr:`SourcePriors.query`)."""

    def __post_init__(self) -> None:
        if len(set(self.candidates)) != len(self.candidates):
            raise ValueError(f"query {self.query_id}: a candidate is listed twice")
        dims = {len(v) for v in self.vectors.values()}
        if len(dims) > 1 or 0 in dims:
            raise ValueError(f"query {self.query_id}: the vectors differ in dimension")
        if self.query_vector and not dims:
            raise ValueError(f"query {self.query_id}: a query vector without candidate vectors")
        if self.query_vector and dims != {len(self.query_vector)}:
            raise ValueError(f"query {self.query_id}: the query vector's dimension differs")
        for what, keyed in (
            ("ranks", self.ranks),
            ("a text", self.texts),
            ("a vector", self.vectors),
        ):
            extra = set(keyed) - set(self.candidates)
            if extra:
                raise ValueError(
                    f"query {self.query_id}: {what} for {sorted(extra)[0]!r}, no candidate"
                )
        for c, by_source in self.ranks.items():
            for source, rank in by_source.items():
                if rank < 1:
                    raise ValueError(f"query {self.query_id}: {source} ranks {c!r} at {rank}")

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(sorted({s for by in self.ranks.values() for s in by}))

    def ranked_by(self, source: str) -> list[str]:
        """The candidates `source` returned, best first (ties by plain order)."""
        place = {c: i for i, c in enumerate(self.candidates)}
        hits = [c for c in self.candidates if source in self.ranks.get(c, {})]
        return sorted(hits, key=lambda c: (self.ranks[c][source], place[c]))


@dataclass(frozen=True)
class ResolvedQuery:
    """A query already resolved in the project: its pool and the final grade of each candidate
    that has one (a candidate left unjudged by a stop has none and is not counted)."""

    pool: PooledQuery
    final_grades: Mapping[str, int]


@dataclass(frozen=True)
class SourcePriors:
    """How good each source has been on resolved queries: a logistic model with a weight per
    rank band shared by every source (``bands``: how much rank matters) and a weight per source
    (``sources``: how much better or worse than the others it has been), with ``intercept``.
    A band or a source never seen gets its prior (:func:`prior_weight`, 0). ``query`` is the
    weight of a candidate's standardised cosine to the query's embedding (pools with
    :attr:`PooledQuery.query_vector`; 0 until resolved queries with one teach it)."""

    intercept: float = PRIOR_INTERCEPT
    bands: Mapping[int, float] = field(default_factory=dict)
    sources: Mapping[str, float] = field(default_factory=dict)
    queries: int = 0
    candidates: int = 0
    relevant_from: int = RELEVANT_FROM
    query: float = 0.0

    def weight(self, source: str, b: int) -> float:
        return self.sources.get(source, 0.0) + self.bands.get(b, prior_weight(b))

    def logit(self, by_source: Mapping[str, int]) -> float:
        return self.intercept + sum(self.weight(s, band(r)) for s, r in by_source.items())


Key = tuple[str, int]  # ("band", b), (source, -1) or QUERY_KEY
QUERY_KEY: Key = ("query", -2)


def pool_query_likeness(pool: PooledQuery) -> FloatArray | None:
    """:func:`query_likeness` of the pool's candidates (a candidate without a vector counts as
    a zero vector), or None when the pool has no query vector."""
    if not pool.query_vector:
        return None
    dim = len(pool.query_vector)
    rows = [pool.vectors.get(c, [0.0] * dim) for c in pool.candidates]
    return query_likeness(rows, pool.query_vector)


def _features(pool: PooledQuery, keys: Mapping[Key, int]) -> FloatArray:
    x = np.zeros((len(pool.candidates), len(keys)))
    for i, c in enumerate(pool.candidates):
        for s, r in pool.ranks.get(c, {}).items():
            x[i, keys[("band", band(r))]] += 1.0
            x[i, keys[(s, -1)]] = 1.0
    toward = pool_query_likeness(pool) if QUERY_KEY in keys else None
    if toward is not None:
        x[:, keys[QUERY_KEY]] = toward
    return x


def priors_from_resolved(
    resolved: Sequence[ResolvedQuery], *, relevant_from: int = RELEVANT_FROM
) -> SourcePriors:
    """Fit the per-source, per-band weights to the final grades of `resolved` queries (MAP
    logistic regression, Gaussian prior centred on :func:`prior_weight`, Newton's method).
    Only final grades are read; unjudged candidates are left out."""
    keys: dict[Key, int] = {("band", b): b for b in range(len(BANDS))}
    for rq in resolved:
        for c in rq.pool.candidates:
            for s in rq.pool.ranks.get(c, {}):
                keys.setdefault((s, -1), len(keys))
    if any(rq.pool.query_vector for rq in resolved):
        keys[QUERY_KEY] = len(keys)
    rows: list[FloatArray] = []
    ys: list[FloatArray] = []
    for rq in resolved:
        x = _features(rq.pool, keys)
        judged = [i for i, c in enumerate(rq.pool.candidates) if c in rq.final_grades]
        if not judged:
            continue
        rows.append(x[judged])
        ys.append(
            np.array(
                [rq.final_grades[rq.pool.candidates[i]] >= relevant_from for i in judged],
                dtype=np.float64,
            )
        )
    if not rows:
        return SourcePriors(relevant_from=relevant_from)
    # Candidates with the same ranks share a row: (pattern → judged, relevant) counts.
    x_all, y_all = np.vstack(rows), np.concatenate(ys)
    patterns, inverse = np.unique(x_all, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    total = np.bincount(inverse, minlength=len(patterns)).astype(np.float64)
    positive = np.asarray(
        np.bincount(inverse, weights=y_all, minlength=len(patterns)), dtype=np.float64
    )
    x = np.hstack([np.ones((len(patterns), 1)), patterns])
    y = positive
    prior = np.array([PRIOR_INTERCEPT] + [prior_weight(b) if b >= 0 else 0.0 for _, b in keys])
    penalty = np.full(len(prior), 1.0 / PRIOR_STRENGTH)
    penalty[0] = 1e-3  # the intercept is free
    w = _newton(x, y, total, prior, penalty)
    return SourcePriors(
        intercept=float(w[0]),
        bands={b: float(w[i + 1]) for (s, b), i in keys.items() if b >= 0},
        sources={s: float(w[i + 1]) for (s, b), i in keys.items() if b == -1},
        query=float(w[keys[QUERY_KEY] + 1]) if QUERY_KEY in keys else 0.0,
        queries=len(rows),
        candidates=len(y_all),
        relevant_from=relevant_from,
    )


def _newton(
    x: FloatArray,
    positive: FloatArray,
    total: FloatArray,
    centre: FloatArray,
    precision: FloatArray,
    *,
    offset: FloatArray | None = None,
    iterations: int = 30,
    start: FloatArray | None = None,
) -> FloatArray:
    """The MAP weights of a binomial logistic model: rows `x` seen `total` times, `positive`
    of them relevant, logit ``offset + x @ w``, Gaussian prior N(`centre`, 1 / `precision`).
    Newton's method with step halving, so it never climbs the objective."""
    off = np.zeros(len(x)) if offset is None else offset

    def objective(w: FloatArray) -> float:
        eta = off + x @ w
        # −log-likelihood: Σ total·log(1 + e^η) − positive·η, plus the prior's penalty.
        nll = float((total * np.logaddexp(0.0, eta) - positive * eta).sum())
        return nll + 0.5 * float((precision * (w - centre) ** 2).sum())

    w = centre.copy() if start is None else start.copy()
    current = objective(w)
    for _ in range(iterations):
        p = _sigmoid(off + x @ w)
        grad = x.T @ (total * p - positive) + precision * (w - centre)
        hess = (x * (total * p * (1 - p))[:, None]).T @ x + np.diag(precision)
        step = np.linalg.solve(hess, grad)
        scale = 1.0
        while scale > 1e-4:
            candidate = w - scale * step
            value = objective(candidate)
            if value <= current + 1e-12:
                break
            scale /= 2
        else:
            break
        w, current = candidate, value
        if float(np.abs(scale * step).max()) < 1e-7:
            break
    return w


def _sigmoid(z: FloatArray) -> FloatArray:
    out: FloatArray = 1.0 / (1.0 + np.exp(-np.clip(z, -35.0, 35.0)))
    return out


def _check_grades(pool: PooledQuery, own_grades: Mapping[str, int]) -> None:
    unknown = set(own_grades) - set(pool.candidates)
    if unknown:
        raise ValueError(f"query {pool.query_id}: {sorted(unknown)[0]!r} is not in the pool")


_TERM = re.compile(f"[{HAN}]+|[^\\W\\d_][^\\W_]+")


def terms(text: str) -> list[str]:
    """A text's terms for :func:`similarities`: lower-cased words of two or more letters or
    digits (starting with a letter), and the character bigrams of a run of Chinese characters
    (a lone character is its own term)."""
    runs: list[str] = _TERM.findall(text.lower())
    if not has_han(text):
        return runs  # no Chinese run: the words are the terms
    out: list[str] = []
    for run in runs:
        if has_han(run[0]):
            out.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
        else:
            out.append(run)
    return out


# A term shared by this many of the pool's texts or more goes into the dense product; a rarer
# shared term adds its pairs of texts one by one (see :func:`similarities`).
DENSE_FROM = 16


def similarities(texts: Sequence[str]) -> FloatArray:
    """The cosine similarity of every pair of `texts` under TF-IDF over these texts alone
    (sublinear term frequency, idf log((n + 1) / (df + 0.5))), with 0 on the diagonal.

    Computed on the texts' terms as sparse rows, numpy only (scipy's import would cost a web
    process's first annotation page a few tenths of a second): each text's distinct terms with
    their weights and its norm from all of them; a term of one text only adds to its own
    diagonal, which is 0, so it is left out; a term shared by :data:`DENSE_FROM` texts or more
    goes into one dense product over those few terms; a rarer shared term adds the products of
    each pair of texts sharing it. Equal, to rounding, to the whole dense TF-IDF matrix times
    its transpose (tests/engine/test_the_judging_order_likeness_is_the_dense_tfidf.py), at a
    fraction of its cost on a pool of 200 (bench/similarities_timing.py)."""
    n = len(texts)
    counted = [Counter(terms(text)) for text in texts]
    column = {t: j for j, t in enumerate(dict.fromkeys(chain.from_iterable(counted)))}
    sizes = [len(c) for c in counted]
    entries = sum(sizes)
    cols = np.fromiter(
        map(column.__getitem__, chain.from_iterable(counted)), dtype=np.intp, count=entries
    )
    tf = np.fromiter(
        chain.from_iterable(c.values() for c in counted), dtype=np.float64, count=entries
    )
    rows = np.repeat(np.arange(n), sizes)
    df = np.bincount(cols, minlength=len(column))
    weight = (1.0 + np.log(tf)) * np.log((n + 1) / (df[cols] + 0.5))
    norm = np.sqrt(np.bincount(rows, weights=weight * weight, minlength=n))
    weight /= np.where(norm == 0, 1.0, norm)[rows]
    # The common shared terms: one dense product over them.
    common = df >= DENSE_FROM
    dense = common[cols]
    x = np.zeros((n, int(common.sum())))
    x[rows[dense], (np.cumsum(common) - 1)[cols[dense]]] = weight[dense]
    sim: FloatArray = x @ x.T
    # The rarer shared terms: for each, every pair (a, b) of the texts holding it, both ways.
    rare = ((df >= 2) & ~common)[cols]
    order = np.argsort(cols[rare], kind="stable")
    term_rows, term_weight = rows[rare][order], weight[rare][order]
    _, first, size = np.unique(cols[rare][order], return_index=True, return_counts=True)
    group = np.repeat(size, size)  # each entry's number of texts sharing its term
    left = np.repeat(np.arange(len(term_rows)), group)
    right = np.repeat(np.repeat(first, size), group) + (
        np.arange(len(left)) - np.repeat(np.cumsum(group) - group, group)
    )
    sim += np.bincount(
        term_rows[left] * n + term_rows[right],
        weights=term_weight[left] * term_weight[right],
        minlength=n * n,
    ).reshape(n, n)
    np.fill_diagonal(sim, 0.0)
    return sim


def _unit_rows(x: FloatArray) -> FloatArray:
    norm = np.linalg.norm(x, axis=-1, keepdims=True)
    out: FloatArray = x / np.where(norm == 0, 1.0, norm)
    return out


def vector_similarities(vectors: Sequence[Sequence[float]]) -> FloatArray:
    """The cosine similarity of every pair of `vectors` (one dimension for all), with 0 on the
    diagonal; a zero vector (no embedding) has 0 to every other."""
    x = _unit_rows(np.asarray(vectors, dtype=np.float64).reshape(len(vectors), -1))
    sim: FloatArray = x @ x.T
    np.fill_diagonal(sim, 0.0)
    return sim


def query_likeness(vectors: Sequence[Sequence[float]], query: Sequence[float]) -> FloatArray:
    """Each vector's cosine to `query`, standardised over the vectors (mean 0, standard
    deviation 1; all 0 when they do not differ), so that its weight does not depend on the
    embedding's scale of cosines."""
    x = _unit_rows(np.asarray(vectors, dtype=np.float64).reshape(len(vectors), -1))
    cos = x @ _unit_rows(np.asarray(query, dtype=np.float64))
    spread = float(cos.std())
    out: FloatArray = (cos - cos.mean()) / spread if spread > 1e-12 else np.zeros(len(cos))
    return out


@dataclass(frozen=True)
class FeedbackWeights:
    """The weights of :meth:`QueryModel.scores`' terms beyond the rank model (the defaults
    are the module's constants; a benchmark may try others)."""

    tfidf: float = FEEDBACK
    semantic: float = SEMANTIC_FEEDBACK
    negative: float = NEGATIVE_FEEDBACK


class QueryModel:
    """The model of one pool under fixed priors: the prior logit of each candidate and which
    sources returned it, computed once; :meth:`probabilities` adds this annotator's grades,
    :meth:`scores` also the likeness to the candidates this annotator graded relevant."""

    def __init__(
        self, pool: PooledQuery, priors: SourcePriors, weights: FeedbackWeights | None = None
    ) -> None:
        w = FeedbackWeights() if weights is None else weights
        self.pool = pool
        self.priors = priors
        self.index = {c: i for i, c in enumerate(pool.candidates)}
        self.base = np.array([priors.logit(pool.ranks.get(c, {})) for c in pool.candidates])
        toward = pool_query_likeness(pool)
        if toward is not None and priors.query:
            self.base = self.base + priors.query * toward
        sources = pool.sources
        column = {s: 1 + i for i, s in enumerate(sources)}
        # Offsets: column 0 the query's, then one per source (1 where the source returned c).
        self.z = np.zeros((len(pool.candidates), 1 + len(sources)))
        self.z[:, 0] = 1.0
        for i, c in enumerate(pool.candidates):
            for s in pool.ranks.get(c, {}):
                self.z[i, column[s]] = 1.0
        self.precision = np.full(1 + len(sources), 1.0 / SOURCE_SHRINK)
        self.precision[0] = 1.0 / QUERY_SHRINK
        self._last: tuple[tuple[tuple[str, int], ...], FloatArray] | None = None
        self.similar: FloatArray | None = None
        if pool.texts:
            self.similar = similarities([pool.texts.get(c, "") for c in pool.candidates])
        # The feedback's likeness: FEEDBACK × TF-IDF cosine + SEMANTIC_FEEDBACK × the
        # embeddings' cosine.
        self.semantic: FloatArray | None = None
        self.negative = 0.0
        self.likeness: FloatArray | None = None
        if self.similar is not None:
            self.likeness = w.tfidf * self.similar
        if pool.vectors:
            dim = len(next(iter(pool.vectors.values())))
            rows = [pool.vectors.get(c, [0.0] * dim) for c in pool.candidates]
            self.semantic = vector_similarities(rows)
            semantic = w.semantic * self.semantic
            self.likeness = semantic if self.likeness is None else self.likeness + semantic
            self.negative = w.negative

    def offsets(self, own_grades: Mapping[str, int]) -> FloatArray:
        """The query's and each source's offset, MAP-fitted to `own_grades` (Newton)."""
        _check_grades(self.pool, own_grades)
        delta = np.zeros(self.z.shape[1])
        if not own_grades:
            return delta
        seen = tuple(own_grades.items())
        if self._last is not None and self._last[0] == seen:
            return self._last[1]
        judged = [self.index[c] for c in own_grades]
        rel = self.priors.relevant_from
        y = np.array([g >= rel for g in own_grades.values()], dtype=np.float64)
        delta = _newton(
            self.z[judged],
            y,
            np.ones(len(y)),
            np.zeros(len(delta)),
            self.precision,
            offset=self.base[judged],
            start=None if self._last is None else self._last[1],
        )
        self._last = (seen, delta)
        return delta

    def probabilities(self, own_grades: Mapping[str, int]) -> FloatArray:
        """P(relevant) of every candidate, in the pool's plain order."""
        return _sigmoid(self.base + self.z @ self.offsets(own_grades))

    def scores(self, own_grades: Mapping[str, int]) -> FloatArray:
        """The order's score of every candidate, in the pool's plain order: the logit of
        :meth:`probabilities` plus :data:`FEEDBACK` × its mean similarity to the candidates
        this annotator graded relevant on this query (relevance feedback: what is like the
        relevant ones found is judged next; nothing when the pool has no texts). With the
        candidates' embeddings (:attr:`PooledQuery.vectors`) the similarity also counts
        :data:`SEMANTIC_FEEDBACK` × their cosine, the mean likeness to the candidates graded
        not relevant is subtracted (:data:`NEGATIVE_FEEDBACK` times). These terms move the
        order only; the stop estimate reads :meth:`probabilities` (where the cosine to the
        query's embedding is, as a fitted feature of the rank model)."""
        out: FloatArray = self.base + self.z @ self.offsets(own_grades)
        if self.likeness is None:
            return out
        rel = self.priors.relevant_from
        found = [self.index[c] for c, g in own_grades.items() if g >= rel]
        if found:
            out = out + self.likeness[:, found].mean(axis=1)
        missed = [self.index[c] for c, g in own_grades.items() if g < rel]
        if missed and self.negative:
            out = out - self.negative * self.likeness[:, missed].mean(axis=1)
        return out

    def order(self, own_grades: Mapping[str, int]) -> list[str]:
        """The unjudged candidates, highest :meth:`scores` first (ties in plain order)."""
        score = self.scores(own_grades)
        rest = [i for i, c in enumerate(self.pool.candidates) if c not in own_grades]
        rest.sort(key=lambda i: (-round(float(score[i]), 9), i))
        return [self.pool.candidates[i] for i in rest]


def relevance_probabilities(
    pool: PooledQuery, own_grades: Mapping[str, int], priors: SourcePriors
) -> dict[str, float]:
    """P(relevant) of every candidate of `pool` given the sources' ranks, `priors` and this
    annotator's own grades on this query (a query offset and one offset per source, MAP-fitted
    to those grades and shrunk toward 0). Judged candidates keep their model probability too."""
    probs = QueryModel(pool, priors).probabilities(own_grades)
    return {c: float(p) for c, p in zip(pool.candidates, probs, strict=True)}


def judging_order(
    pool: PooledQuery, own_grades: Mapping[str, int], priors: SourcePriors
) -> list[str]:
    """The candidates this annotator has not judged yet, most likely relevant first (ties in
    the pool's plain order). Its inputs are the whole of what it may learn from: the pool and
    its sources' ranks, this annotator's own grades on this query, and priors fitted to final
    grades of resolved queries (:func:`priors_from_resolved`)."""
    return QueryModel(pool, priors).order(own_grades)


# --------------------------------------------------------------------------------------------
# Knowing when to stop


def check_permutation(pool: PooledQuery) -> list[str]:
    """A fixed random permutation of the pool, keyed by a hash of the query and the candidate,
    from which the stop estimate's random checks are drawn: no grade and no order influences
    it, so its first unjudged candidates are a uniform draw from the unjudged rest."""

    def key(c: str) -> bytes:
        return hashlib.sha256(f"goldsmith-check:{pool.query_id}:{c}".encode()).digest()

    return sorted(pool.candidates, key=key)


def poisson_binomial(probs: Sequence[float]) -> FloatArray:
    """``out[k]`` = P(exactly k of independent events with these probabilities happen)."""
    out = np.zeros(len(probs) + 1)
    out[0] = 1.0
    for i, p in enumerate(probs):
        out[1 : i + 2] = out[1 : i + 2] * (1 - p) + out[: i + 1] * p
        out[0] *= 1 - p
    return out


def allowed_missing(found: int, recall_target: float = RECALL_TARGET) -> int:
    """The most relevant candidates that may be left unfound with `found` found while recall
    stays ≥ `recall_target`: the largest m with found / (found + m) ≥ target."""
    if found <= 0:
        return 0
    m = math.floor(found * (1 - recall_target) / recall_target + 1e-9)
    return max(m, 0)


@dataclass(frozen=True)
class StopEstimate:
    """Where the judging of one query stands, for one annotator.

    ``expected_remaining`` is the model's mean number of relevant candidates among the unjudged
    (the sum of their probabilities); ``p_target`` the model's probability that ≥ ``target``
    of the relevant candidates are found. ``checked`` candidates were drawn at random from the
    rest, ``checked_relevant`` of them relevant; ``sampled_remaining`` is the unbiased estimate
    rest × relevant drawn / drawn (None before any draw). ``draw`` names the candidates to judge
    next as the random check (empty when none is needed now). ``may_stop``: the rule holds."""

    found: int
    judged: int
    unjudged: int
    expected_remaining: float
    p_target: float
    checked: int
    checked_relevant: int
    sampled_remaining: float | None
    draw: tuple[str, ...]
    may_stop: bool
    target: float = RECALL_TARGET
    confidence: float = CONFIDENCE
    checks: int = CHECKS
    """How many random checks the rule asks for (0: the model alone decides)."""

    @property
    def estimated_recall(self) -> float | None:
        """found / (found + expected remaining); None when nothing relevant is expected."""
        total = self.found + self.expected_remaining
        return None if total <= 0 else self.found / total


def stop_estimate(
    pool: PooledQuery,
    own_grades: Mapping[str, int],
    priors: SourcePriors,
    *,
    checked: Collection[str] = (),
    recall_target: float = RECALL_TARGET,
    confidence: float = CONFIDENCE,
    checks: int = CHECKS,
) -> StopEstimate:
    """The stop estimate of this annotator on this query. `checked` names the candidates of
    `own_grades` that were judged as random draws (:attr:`StopEstimate.draw`)."""
    return estimate_with(
        QueryModel(pool, priors),
        own_grades,
        checked=checked,
        recall_target=recall_target,
        confidence=confidence,
        checks=checks,
    )


def estimate_with(
    model: QueryModel,
    own_grades: Mapping[str, int],
    *,
    checked: Collection[str] = (),
    recall_target: float = RECALL_TARGET,
    confidence: float = CONFIDENCE,
    checks: int = CHECKS,
) -> StopEstimate:
    """:func:`stop_estimate` on a model already built for the pool and priors."""
    pool = model.pool
    _check_grades(pool, own_grades)
    if not set(checked) <= set(own_grades):
        raise ValueError(f"query {pool.query_id}: a checked candidate has no grade")
    rel = model.priors.relevant_from
    probs = dict(zip(pool.candidates, model.probabilities(own_grades).tolist(), strict=True))
    rest = [c for c in pool.candidates if c not in own_grades]
    found = sum(1 for g in own_grades.values() if g >= rel)
    dist = poisson_binomial([probs[c] for c in rest])
    allowed = allowed_missing(found, recall_target)
    p_target = float(dist[: allowed + 1].sum()) if found > 0 else float(dist[0])
    expected = float(sum(probs[c] for c in rest))
    n_checked = len(checked)
    hits = sum(1 for c in checked if own_grades[c] >= rel)
    sampled = None
    if n_checked:
        # The draws were taken from the rest as it was then: the rest now plus the drawn.
        sampled = (len(rest) + n_checked) * hits / n_checked
    model_says = p_target >= confidence or not rest
    draw: tuple[str, ...] = ()
    if model_says and rest and n_checked < checks:
        pending = [c for c in check_permutation(pool) if c not in own_grades]
        draw = tuple(pending[: checks - n_checked])
    sample_says = checks == 0 or (sampled is not None and sampled <= allowed)
    may_stop = not rest or (model_says and not draw and sample_says)
    return StopEstimate(
        found=found,
        judged=len(own_grades),
        unjudged=len(rest),
        expected_remaining=expected,
        p_target=p_target,
        checked=n_checked,
        checked_relevant=hits,
        sampled_remaining=sampled,
        draw=draw,
        may_stop=may_stop,
        target=recall_target,
        confidence=confidence,
        checks=checks,
    )


def stopped_candidates(pool: PooledQuery, own_grades: Mapping[str, int]) -> dict[str, str]:
    """Every candidate a stop leaves unjudged, marked :data:`NOT_JUDGED_STOPPED` (never 0)."""
    _check_grades(pool, own_grades)
    return {c: NOT_JUDGED_STOPPED for c in pool.candidates if c not in own_grades}


# --------------------------------------------------------------------------------------------
# The orders a benchmark compares. Each returns the candidates in the order judged; `judge`
# gives a candidate's grade when an adaptive order asks for it.

Judge = Callable[[str], int]


def random_order(pool: PooledQuery, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [pool.candidates[i] for i in rng.permutation(len(pool.candidates))]


def plain_order(pool: PooledQuery) -> list[str]:
    return list(pool.candidates)


def round_robin_order(pool: PooledQuery) -> list[str]:
    """Every source's rank 1 (sources by name), then every rank 2, …; each candidate once; the
    candidates no source ranked at the end in plain order."""
    lists = [pool.ranked_by(s) for s in pool.sources]
    out: dict[str, None] = {}
    for depth in range(max((len(x) for x in lists), default=0)):
        for x in lists:
            if depth < len(x):
                out.setdefault(x[depth])
    for c in pool.candidates:
        out.setdefault(c)
    return list(out)


def fusion_order(pool: PooledQuery, k: int = 60) -> list[str]:
    """Reciprocal-rank fusion, fixed: Σ 1 / (k + rank) over the sources, ties in plain order."""
    score = {c: sum(1.0 / (k + r) for r in pool.ranks.get(c, {}).values()) for c in pool.candidates}
    place = {c: i for i, c in enumerate(pool.candidates)}
    return sorted(pool.candidates, key=lambda c: (-score[c], place[c]))


def move_to_front_order(
    pool: PooledQuery, judge: Judge, relevant_from: int = RELEVANT_FROM
) -> list[str]:
    """Move-to-front (Cormack, Palmer & Clarke 1998): take the next unjudged candidate of the
    source at the front of the queue; a relevant one keeps the source there, a non-relevant one
    sends it to the back. Candidates no source ranked come last."""
    lists = {s: pool.ranked_by(s) for s in pool.sources}
    queue = list(pool.sources)
    done: dict[str, int] = {}
    pos = dict.fromkeys(queue, 0)
    while queue:
        s = queue[0]
        while pos[s] < len(lists[s]) and lists[s][pos[s]] in done:
            pos[s] += 1
        if pos[s] >= len(lists[s]):
            queue.pop(0)
            continue
        c = lists[s][pos[s]]
        done[c] = judge(c)
        if done[c] < relevant_from:
            queue.append(queue.pop(0))
    return list(done) + [c for c in pool.candidates if c not in done]


def maxmean_order(pool: PooledQuery, judge: Judge, relevant_from: int = RELEVANT_FROM) -> list[str]:
    """MaxMean (Losada, Parapar & Barreiro 2017): each source is an arm; its mean is
    (1 + relevant) / (2 + judged) over the candidates of its list already judged (by any arm);
    the arm with the largest mean (ties: the source first by name) gives its next unjudged
    candidate. Candidates no source ranked come last."""
    lists = {s: pool.ranked_by(s) for s in pool.sources}
    done: dict[str, int] = {}
    pos = dict.fromkeys(lists, 0)
    while True:
        best: tuple[float, str] | None = None
        for s, x in lists.items():
            while pos[s] < len(x) and x[pos[s]] in done:
                pos[s] += 1
            if pos[s] >= len(x):
                continue
            seen = [done[c] for c in x if c in done]
            mean = (1 + sum(1 for g in seen if g >= relevant_from)) / (2 + len(seen))
            if best is None or mean > best[0]:
                best = (mean, s)
        if best is None:
            break
        c = lists[best[1]][pos[best[1]]]
        done[c] = judge(c)
    return list(done) + [c for c in pool.candidates if c not in done]


def goldsmith_order(
    pool: PooledQuery, judge: Judge, priors: SourcePriors, weights: FeedbackWeights | None = None
) -> list[str]:
    """This module's order followed to the end: after each grade, the most likely relevant of
    the rest (:func:`judging_order`) is judged next."""
    grades: dict[str, int] = {}
    model = QueryModel(pool, priors, weights)
    while len(grades) < len(pool.candidates):
        c = model.order(grades)[0]
        grades[c] = judge(c)
    return list(grades)
