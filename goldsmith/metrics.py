"""Retrieval metrics over graded judgments: the one implementation every Goldsmith surface uses.

Pure module: numpy only, no Django. The web app, the Celery workers and the ``goldsmith`` command
line call these functions, so a number in the browser equals the number a CI job computes.

Inputs are judgments ``{query_id: {chunk_id: grade}}`` and ranked results
``{query_id: [chunk_id, ...]}`` (or ``[(chunk_id, score), ...]``), or their column forms
(:class:`JudgmentColumns`, :class:`RankingColumns`, as the readers of :mod:`goldsmith.formats`
return them).
:func:`prepare` joins them into an :class:`EvalArrays`: a grade matrix ``float[queries, depth]``
(NaN where the chunk at that rank is unjudged or the list has ended) plus every query's judged
grades sorted descending. All metrics are then computed for all queries at once, by cumulative
sums along the rank axis (in row blocks, to bound memory).

Conventions (docs/design.md, "Metric conventions"); ``rel_i`` = 1 when the chunk at rank ``i`` has
grade ≥ ``relevance_threshold`` (unjudged counts as not relevant), ``R`` = number of judged chunks
of the query with grade ≥ threshold, ``n`` = number of (deduplicated) results returned:

- ``recall@K`` = Σ_{i≤K} rel_i / R;  ``precision@K`` = Σ_{i≤K} rel_i / K (always K, even if n < K);
  ``hit@K`` = 1 if Σ_{i≤K} rel_i > 0;  ``f1@K`` = 2PR / (P + R) (0 when P + R = 0).
- ``precision`` (no cut-off) = Σ_{i≤n} rel_i / n, relevant retrieved over retrieved (trec_eval's
  ``set_P``), 0 when nothing was returned; ``f1`` = 2PR / (P + R) with that P and R = ``recall``
  (trec_eval's ``set_F``, β = 1), 0 when nothing relevant was returned. ``recall``, ``precision``
  and ``f1`` without a cut-off use the whole list held (all of it, unless :func:`prepare` was
  given a ``depth``).
- ``mrr@K`` = 1 / rank of the first relevant chunk if that rank ≤ K, else 0 (``mrr``: no cut).
- ``map@K`` = Σ_{i≤K} rel_i · precision@i / R (divides by R, as trec_eval's map_cut);
  ``map``: no cut.
- ``r_precision`` = Σ_{i≤R} rel_i / R.
- ``ndcg@K`` = DCG@K / IDCG@K with DCG@K = Σ_{i≤K} gain(g_i) / log2(i + 1); gain(g) = g
  ("linear", trec_eval's default) or 2^g − 1 ("exp"); negative grades and unjudged chunks gain 0.
  IDCG@K uses ALL judged grades of the query sorted descending (not only the retrieved ones), and
  does not depend on the relevance threshold. IDCG = 0 gives 0. ``ndcg``: no cut.
- ``judged@K`` = judged chunks among the top min(K, n) / min(K, n); 0 when nothing was returned.
- ``pass@K`` = 1 if recall@K ≥ pass_threshold (0.7 by default); its mean is the pass rate.
- A query with R = 0 ("no relevant chunk") is left out of every mean and listed separately
  (``no_relevant="exclude"``, the default) or scored like trec_eval (``"zero"``).
- A judged query missing from the run scores 0 on every metric and stays in the means. Run
  queries without judgments are ignored and listed. In trec_eval's terms this default
  (``convention="goldsmith"``) is neither trec_eval's default nor its ``-c``: the means are
  over the queries with a relevant chunk, those missing from the run scoring 0.
  ``convention="trec_eval"`` averages as trec_eval does by default: over the run's queries that
  have a judgment in the qrels (relevant or not; one without a relevant chunk scores 0, as
  trec_eval's measures give), leaving out the golden queries missing from the run;
  ``"trec_eval-c"`` as ``trec_eval -c``: over every query with a judgment, one missing from the
  run scoring 0. Both score the queries without a relevant chunk whatever ``no_relevant``
  says.
- Duplicate ids in one list count once, at their first position; later copies are dropped and
  the list closes up.
- ``order="rank"`` keeps the order the retriever returned (TREC: rank column, then file order);
  ``order="score"`` sorts by score descending, ties broken by chunk id in descending byte order
  (trec_eval's ``comp_sim_docno`` rule), so results match trec_eval exactly.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from goldsmith import stats
from goldsmith.bands import TOLERANCE
from goldsmith.text import say

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]
BytesArray = NDArray[np.bytes_]

Order = Literal["rank", "score"]
Gain = Literal["linear", "exp"]
NoRelevant = Literal["exclude", "zero"]
Convention = Literal["goldsmith", "trec_eval", "trec_eval-c"]
CONVENTIONS: tuple[Convention, ...] = ("goldsmith", "trec_eval", "trec_eval-c")

DEFAULT_METRICS: tuple[str, ...] = (
    "recall@5",
    "recall@10",
    "precision@5",
    "hit@5",
    "mrr@10",
    "ndcg@10",
    "map@100",
    "pass@10",
    "judged@10",
)
# Families that may be written without a cut-off (then they use the whole list).
_NO_CUT_OK = frozenset({"recall", "precision", "f1", "hit", "mrr", "ndcg", "map", "r_precision"})
_FAMILIES = frozenset(
    {"recall", "precision", "hit", "mrr", "ndcg", "map", "r_precision", "f1", "judged", "pass"}
)
_METRIC_RE = re.compile(r"^([a-z_0-9]+?)(?:@([1-9][0-9]*))?$")
# Row blocks keep every temporary at about this many cells (8 bytes each).
_BLOCK_CELLS = 2_000_000


# --------------------------------------------------------------------------------------------
# Settings and metric names


@dataclass(frozen=True)
class EvalSettings:
    """How a run is scored. Defaults are the conventions of docs/design.md."""

    relevance_threshold: int = 2
    gain: Gain = "linear"
    pass_threshold: float = 0.7
    order: Order = "rank"
    no_relevant: NoRelevant = "exclude"
    convention: Convention = "goldsmith"

    def __post_init__(self) -> None:
        if self.convention not in CONVENTIONS:
            raise ValueError(
                f"convention must be one of {', '.join(CONVENTIONS)}, not {self.convention!r}"
            )
        if self.gain not in ("linear", "exp"):
            raise ValueError(f"gain must be 'linear' or 'exp', not {self.gain!r}")
        if self.order not in ("rank", "score"):
            raise ValueError(f"order must be 'rank' or 'score', not {self.order!r}")
        if self.no_relevant not in ("exclude", "zero"):
            raise ValueError(f"no_relevant must be 'exclude' or 'zero', not {self.no_relevant!r}")
        if not 0.0 <= self.pass_threshold <= 1.0:
            raise ValueError(f"pass_threshold must be in [0, 1], not {self.pass_threshold}")

    def as_dict(self) -> dict[str, Any]:
        """The settings as a dict; ``convention`` only when it is not the default (stored
        reports and their comparisons keep the keys they had)."""
        out = asdict(self)
        if self.convention == "goldsmith":
            del out["convention"]
        return out

    def means_over(self) -> str:
        """Which queries the means are over, in trec_eval's terms (every report says it)."""
        if self.convention == "trec_eval":
            return (
                "trec_eval's default: the run's queries with a judgment (relevant or not), "
                "golden queries missing from the run left out"
            )
        if self.convention == "trec_eval-c":
            return (
                "trec_eval -c: every query with a judgment (relevant or not), one missing "
                "from the run scoring 0"
            )
        without = "left out" if self.no_relevant == "exclude" else "scoring 0"
        return (
            f"Goldsmith's default, neither trec_eval's default nor -c: queries without a "
            f"relevant chunk {without}, golden queries missing from the run scoring 0"
        )


@dataclass(frozen=True)
class Metric:
    """A parsed metric name such as ``ndcg@10`` (family ``ndcg``, k 10) or ``mrr`` (k None)."""

    family: str
    k: int | None

    @property
    def name(self) -> str:
        return self.family if self.k is None else f"{self.family}@{self.k}"


def parse_metric(name: str) -> Metric:
    """Parse ``family[@K]``; raises ValueError with a readable reason."""
    m = _METRIC_RE.match(name.strip().lower())
    if m is None or m.group(1) not in _FAMILIES:
        known = ", ".join(sorted(_FAMILIES))
        raise ValueError(f"unknown metric {name!r} (known: {known}, most with @K)")
    family, k = m.group(1), (int(m.group(2)) if m.group(2) else None)
    if family == "r_precision" and k is not None:
        raise ValueError("r_precision takes no cut-off")
    if k is None and family not in _NO_CUT_OK:
        raise ValueError(f"metric {family!r} needs a cut-off, e.g. {family}@10")
    return Metric(family, k)


# --------------------------------------------------------------------------------------------
# Inputs


@dataclass(frozen=True)
class JudgmentColumns:
    """Judgments as columns. ``query_ids`` are the golden queries (queries with no judgment at
    all may be listed too); row ``i`` says chunk ``ids[i]`` of query ``query_ids[qidx[i]]`` has
    grade ``grades[i]``. ``ids`` are UTF-8 bytes (numpy ``S`` array). (query, id) is unique."""

    query_ids: tuple[str, ...]
    qidx: IntArray
    ids: BytesArray
    grades: IntArray


@dataclass(frozen=True)
class RankingColumns:
    """Ranked results as columns; row ``i`` is chunk ``ids[i]`` returned for query
    ``query_ids[qidx[i]]`` with ``scores[i]`` (NaN when absent) at ``ranks[i]`` (retriever rank
    or position in the list). Rows of one query need not be contiguous or sorted."""

    query_ids: tuple[str, ...]
    qidx: IntArray
    ids: BytesArray
    scores: FloatArray
    ranks: IntArray
    run_id: str | None = None
    id_hash: NDArray[np.uint64] | None = None  # id_hash(ids), when the reader computed it


def _encode_ids(ids: Sequence[str]) -> BytesArray:
    raw = [i.encode("utf-8") for i in ids]
    # numpy S arrays drop trailing NUL bytes, which would merge "a" and "a\0".
    if any(b"\x00" in r for r in raw):
        raise ValueError("chunk ids may not contain NUL characters")
    return np.array(raw, dtype=np.bytes_) if raw else np.zeros(0, dtype="S1")


def judgments_from_mapping(judgments: Mapping[str, Mapping[str, int]]) -> JudgmentColumns:
    """``{query_id: {chunk_id: grade}}`` → columns (every key is a golden query)."""
    qids = tuple(judgments)
    counts = [len(judgments[q]) for q in qids]
    ids = [c for q in qids for c in judgments[q]]
    grades = [int(g) for q in qids for g in judgments[q].values()]
    return JudgmentColumns(
        query_ids=qids,
        qidx=np.repeat(np.arange(len(qids), dtype=np.int64), counts),
        ids=_encode_ids(ids),
        grades=np.array(grades, dtype=np.int64),
    )


def ranking_from_mapping(
    results: Mapping[str, Sequence[str] | Sequence[tuple[str, float]]],
) -> RankingColumns:
    """``{query_id: [chunk_id, ...]}`` or ``{query_id: [(chunk_id, score), ...]}`` → columns."""
    qids = tuple(results)
    ids: list[str] = []
    scores: list[float] = []
    ranks: list[int] = []
    counts: list[int] = []
    for q in qids:
        items: Sequence[str | tuple[str, float]] = results[q]
        counts.append(len(items))
        for pos, item in enumerate(items, 1):
            if isinstance(item, str):
                ids.append(item)
                scores.append(math.nan)
            else:
                ids.append(item[0])
                scores.append(float(item[1]))
            ranks.append(pos)
    return RankingColumns(
        query_ids=qids,
        qidx=np.repeat(np.arange(len(qids), dtype=np.int64), counts),
        ids=_encode_ids(ids),
        scores=np.array(scores, dtype=np.float64),
        ranks=np.array(ranks, dtype=np.int64),
    )


@dataclass(frozen=True)
class EvalArrays:
    """A run joined with the judgments, ready for vectorised scoring.

    ``grades[q, i]``: grade of the chunk at rank i+1 of query q (NaN: unjudged, or past the end
    of the list); ``lengths[q]``: results returned after dropping duplicates (0: missing from the
    run); ``ideal[q]``: all judged grades of q sorted descending, NaN-padded."""

    query_ids: tuple[str, ...]
    grades: FloatArray
    lengths: IntArray
    ideal: FloatArray
    in_run: BoolArray
    not_in_judgments: tuple[str, ...]
    # Judged queries whose list named an id more than once (the later copies were dropped).
    repeated_in: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------
# Joining judgments and rankings (exact, vectorised: 64-bit hashes, every match verified)

_U = np.uint64


def _mix(h: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """splitmix64 finaliser (a new array); numpy uint64 arithmetic wraps modulo 2^64."""
    h = h ^ (h >> _U(30))
    h *= _U(0xBF58476D1CE4E5B9)
    h ^= h >> _U(27)
    h *= _U(0x94D049BB133111EB)
    h ^= h >> _U(31)
    return h


def id_hash(ids: BytesArray) -> NDArray[np.uint64]:
    """64-bit hash of each id's bytes, the same whatever the width of the array holding it
    (:func:`hash_words` of the ids in 8-byte words). Equal ids hash equal; callers verify every
    match on the bytes themselves."""
    n, width = len(ids), ids.dtype.itemsize
    words = max(-(-width // 8), 1)
    if width == 8 * words and ids.flags.c_contiguous:
        return hash_words(ids.view(np.uint64).reshape(n, words))
    buf = np.zeros((n, words * 8), dtype=np.uint8)
    buf[:, :width] = np.ascontiguousarray(ids).view(np.uint8).reshape(n, width)
    return hash_words(buf.view(np.uint64))


def hash_words(words: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """The hash of ids given as ``uint64[n, k]`` words, NUL-padded (a numpy ``S`` array's
    bytes): the sum of each word mixed and weighted by its place, mixed again. A word of
    padding mixes to 0 and adds nothing, so an id hashes alike in a file whose longest id is 3
    bytes and in one whose longest is 200."""
    x = _mix(words)
    h = np.zeros(len(x), dtype=np.uint64)
    for j in range(x.shape[1]):  # column by column: numpy is slow along a short axis
        h += x[:, j] * _U((2 * j + 1) * 0x9E3779B97F4A7C15 % (1 << 64))
    return _mix(h)


def pair_hash(qidx: IntArray, ids: BytesArray) -> NDArray[np.uint64]:
    """Hash of (query index, id); equal pairs hash equal."""
    return _mix(id_hash(ids) ^ (qidx.astype(np.uint64) * _U(0xD6E8FEB86659FD93)))


def _pair_key(qidx: IntArray, hashes: NDArray[np.uint64], n_queries: int) -> NDArray[np.uint64]:
    """Key whose high bits are the query index and low bits the id hash, so keys sort by query
    (rows already grouped by query make searchsorted cache-friendly)."""
    qbits = max(int(n_queries).bit_length(), 1)
    return (qidx.astype(np.uint64) << _U(64 - qbits)) | (hashes >> _U(qbits))


def trec_eval_scores(scores: Sequence[float] | NDArray[Any]) -> NDArray[np.float32]:
    """Scores as trec_eval compares them. It keeps a result's score in a C ``float`` (32 bits),
    so scores that differ only beyond that precision tie, and are then ordered by docno
    (1.00000001 and 1.0; 1e-300 and 0.0), and a score beyond its range is infinite. Every
    ordering that claims to be trec_eval's compares these, never the 64-bit scores."""
    with np.errstate(over="ignore"):
        return np.asarray(scores, dtype=np.float64).astype(np.float32)


def _ranking_order(
    qidx: IntArray, scores: FloatArray, ranks: IntArray, ids: BytesArray, order: Order
) -> tuple[IntArray, IntArray] | None:
    """Rows to move to put them in (query, ranking) order, as (dst, src): new[dst] = old[src];
    None when already in order. By score, scores compare at trec_eval's precision
    (:func:`trec_eval_scores`)."""
    n = len(qidx)
    if n < 2:
        return None
    dq = np.diff(qidx)
    if order == "rank":
        if bool(((dq > 0) | ((dq == 0) & (np.diff(ranks) >= 0))).all()):
            return None
        return np.arange(n), np.lexsort((ranks, qidx))  # stable: equal ranks keep file order
    held = trec_eval_scores(scores)
    # Neighbours compared, not subtracted: two scores that are infinite in 32 bits tie.
    perm: IntArray | None = None
    if not bool(((dq > 0) | ((dq == 0) & (held[1:] <= held[:-1]))).all()):
        perm = np.lexsort((-held, qidx))
        dq = np.diff(qidx[perm])
        held = held[perm]
    tie = (dq == 0) & (held[1:] == held[:-1])
    if not bool(tie.any()):
        return None if perm is None else (np.arange(n), perm)
    # Ties in (query, score): order each tied run by id, descending bytewise (trec_eval).
    in_tie = np.zeros(n, dtype=bool)
    in_tie[:-1] |= tie
    in_tie[1:] |= tie
    rows = np.flatnonzero(in_tie)
    src = rows if perm is None else perm[rows]
    run_start = np.ones(len(rows), dtype=bool)
    run_start[1:] = ~tie[rows[1:] - 1]
    _, id_rank = np.unique(ids[src], return_inverse=True)
    src = src[np.lexsort((-id_rank.ravel(), np.cumsum(run_start)))]
    if perm is None:
        return rows, src
    perm[rows] = src
    return np.arange(n), perm


def _reorder(
    x: NDArray[Any], move: tuple[IntArray, IntArray] | None, in_place: bool = False
) -> NDArray[Any]:
    """``x`` with ``move`` applied (new[dst] = old[src]). A partial move (ties reordered inside
    their query) copies only the moved rows when ``in_place``, writing into ``x`` itself;
    otherwise into a copy of the whole column (on 10 M ids of 64 bytes, 610 MB more)."""
    if move is None:
        return x
    dst, src = move
    if len(dst) == len(x):
        return x[src]
    out = x if in_place else x.copy()
    out[dst] = x[src]  # x[src] is read into a new array before the assignment writes
    return out


def prepare(
    judgments: JudgmentColumns | Mapping[str, Mapping[str, int]],
    ranking: RankingColumns | Mapping[str, Sequence[str] | Sequence[tuple[str, float]]],
    *,
    order: Order = "rank",
    depth: int | None = None,
    consume: bool = False,
) -> EvalArrays:
    """Join a ranking with judgments into an :class:`EvalArrays`.

    ``depth`` keeps only the first ``depth`` results of each list (after ordering and dropping
    duplicates); pass the largest cut-off when no uncut metric is needed, to save memory.
    ``consume``: the caller hands ``ranking``'s columns over and will not read them again, so
    ties ordered by score may be reordered inside them instead of in copies (``goldsmith
    eval``: the id column is most of a run's memory).

    How the join works, all vectorised: each row gets a 64-bit key (query index in the high
    bits, a hash of the id below); the keys are laid out as a ``[query, rank]`` matrix and each
    row of it is sorted (short rows: cheap). Equal neighbours reveal duplicate ids; each
    judgment is then found by a binary search in its query's row, and every hit is verified
    against the real (query, id) bytes, so hash collisions cannot change a result."""
    if not isinstance(judgments, JudgmentColumns):
        judgments = judgments_from_mapping(judgments)
    if not isinstance(ranking, RankingColumns):
        ranking = ranking_from_mapping(ranking)
    if order == "score" and bool(np.isnan(ranking.scores).any()):
        raise ValueError("order 'score' needs a score for every result")
    n_queries = len(judgments.query_ids)
    where = {q: i for i, q in enumerate(judgments.query_ids)}
    to_gold = np.array([where.get(q, -1) for q in ranking.query_ids], dtype=np.int64)
    not_judged = tuple(q for q, g in zip(ranking.query_ids, to_gold, strict=True) if g < 0)
    in_run = np.zeros(n_queries, dtype=bool)
    in_run[to_gold[to_gold >= 0]] = True

    gq = to_gold[ranking.qidx] if len(ranking.qidx) else np.zeros(0, dtype=np.int64)
    ids, scores, ranks = ranking.ids, ranking.scores, ranking.ranks
    hashes_given = ranking.id_hash is not None
    hashes = ranking.id_hash if ranking.id_hash is not None else id_hash(ids)
    del ranking  # let the caller's columns go as soon as they are not needed
    owned = consume or bool(not_judged)  # the filtered columns below are new arrays
    if not_judged:
        keep = gq >= 0
        gq, ids, scores, ranks, hashes = (
            gq[keep],
            ids[keep],
            scores[keep],
            ranks[keep],
            hashes[keep],
        )
    move = _ranking_order(gq, scores, ranks, ids, order)
    del scores, ranks
    if move is not None and len(move[0]) == len(gq):
        gq = gq[move[1]]  # a partial move only reorders ties inside one query: gq unchanged
    hashes_owned = owned or not hashes_given
    ids, hashes = _reorder(ids, move, owned), _reorder(hashes, move, hashes_owned)
    keys = _pair_key(gq, hashes, n_queries)
    del hashes
    grades, lengths, suspect = _join(judgments, gq, ids, keys, n_queries, depth)
    repeated: tuple[str, ...] = ()
    if suspect.any():
        before = np.bincount(gq, minlength=n_queries)
        gq, ids, keys = _drop_duplicates(gq, ids, keys, suspect)
        lost = np.flatnonzero(np.bincount(gq, minlength=n_queries) < before)
        repeated = tuple(judgments.query_ids[int(q)] for q in lost)
        grades, lengths, suspect = _join(judgments, gq, ids, keys, n_queries, depth)
        if suspect.any():  # a true 64-bit collision inside one list: exact slow join
            grade_col = _dict_join(judgments, gq, ids)
            pos, _ = _positions(gq, n_queries)
            keep = pos < grades.shape[1]
            grades[:] = np.nan
            grades[gq[keep], pos[keep]] = grade_col[keep]
    return EvalArrays(
        query_ids=tuple(judgments.query_ids),
        grades=grades,
        lengths=lengths if depth is None else np.minimum(lengths, depth),
        ideal=_ideal(judgments, n_queries),
        in_run=in_run,
        not_in_judgments=not_judged,
        repeated_in=repeated,
    )


def ranked_lists(
    ranking: RankingColumns,
    query_ids: Collection[str],
    *,
    order: Order = "rank",
    depth: int | None = None,
) -> dict[str, list[str]]:
    """Each query of ``query_ids`` that the run lists → its ids in the order :func:`prepare`
    scores them (``order``'s rule), first occurrences only, the first ``depth`` of them (all
    when None). A query the run lists with no result maps to ``[]``.

    For the reports that need a query's ranked ids themselves (the ids not in the corpus):
    :func:`prepare` keeps grades only."""
    if order == "score" and bool(np.isnan(ranking.scores).any()):
        raise ValueError("order 'score' needs a score for every result")
    wanted = [(i, q) for i, q in enumerate(ranking.query_ids) if q in query_ids]
    out: dict[str, list[str]] = {q: [] for _, q in wanted}
    if not wanted or len(ranking.qidx) == 0:
        return out
    keep_query = np.zeros(len(ranking.query_ids), dtype=bool)
    keep_query[[i for i, _ in wanted]] = True
    keep = keep_query[ranking.qidx]
    qidx, ids = ranking.qidx[keep], ranking.ids[keep]
    move = _ranking_order(qidx, ranking.scores[keep], ranking.ranks[keep], ids, order)
    if move is not None and len(move[0]) == len(qidx):
        qidx = qidx[move[1]]
    ids = _reorder(ids, move)
    bounds = np.searchsorted(qidx, np.arange(len(ranking.query_ids) + 1))
    for i, q in wanted:
        listed: list[bytes] = ids[bounds[i] : bounds[i + 1]].tolist()
        head = listed if depth is None else listed[:depth]
        if len(set(head)) < len(head):
            head = list(dict.fromkeys(listed))[:depth]  # a repeat: the first copies count
        out[q] = [c.decode("utf-8") for c in head]
    return out


_SENTINEL = np.iinfo(np.uint64).max  # pads key rows; _pair_key never produces it


def _join(
    judgments: JudgmentColumns,
    gq: IntArray,
    ids: BytesArray,
    keys: NDArray[np.uint64],
    n_queries: int,
    depth: int | None,
) -> tuple[FloatArray, IntArray, BoolArray]:
    """(grade matrix, list lengths, queries whose list holds two equal keys).

    Rows are grouped by query in ranking order. In blocks of queries, the keys are laid out
    as a ``[query, rank]`` matrix whose rows are sorted; each judgment of those queries is
    binary-searched in its row and every hit is checked against the real id bytes."""
    lengths = np.bincount(gq, minlength=n_queries).astype(np.int64)
    starts = np.cumsum(lengths) - lengths
    full = max(int(lengths.max()) if n_queries else 0, 1)
    width = full if depth is None else max(min(full, depth), 1)
    grades = np.full((n_queries, width), np.nan)
    suspect = np.zeros(n_queries, dtype=bool)
    jq = judgments.qidx
    jorder = np.argsort(jq, kind="stable")
    jbounds = np.searchsorted(jq[jorder], np.arange(n_queries + 1))
    jkeys = _pair_key(jq, id_hash(judgments.ids), n_queries)
    step = max(1, _BLOCK_CELLS // full)
    for lo in range(0, n_queries, step):
        hi = min(lo + step, n_queries)
        r0, r1 = int(starts[lo]), int(starts[hi - 1] + lengths[hi - 1])
        q = gq[r0:r1] - lo
        mat = np.full((hi - lo, full), _SENTINEL, dtype=np.uint64)
        mat[q, np.arange(r0, r1) - starts[gq[r0:r1]]] = keys[r0:r1]
        order = np.argsort(mat, axis=1)
        srt = np.take_along_axis(mat, order, axis=1)
        del mat
        suspect[lo:hi] = ((srt[:, 1:] == srt[:, :-1]) & (srt[:, 1:] != _SENTINEL)).any(axis=1)
        js = jorder[jbounds[lo] : jbounds[hi]]
        jrow, jk = jq[js] - lo, jkeys[js]
        left = np.zeros(len(js), dtype=np.int64)
        right = lengths[jq[js]].copy()
        for _ in range(full.bit_length()):
            mid = (left + right) >> 1
            go = (left < right) & (srt[jrow, np.minimum(mid, full - 1)] < jk)
            left = np.where(go, mid + 1, left)
            right = np.where(go | (left >= right), right, mid)
        at = np.minimum(left, full - 1)
        hit = np.flatnonzero((left < lengths[jq[js]]) & (srt[jrow, at] == jk))
        pos = order[jrow[hit], at[hit]]
        qq = jq[js[hit]]
        ok = (ids[starts[qq] + pos] == judgments.ids[js[hit]]) & (pos < width)
        grades[qq[ok], pos[ok]] = judgments.grades[js[hit][ok]]
    return grades, lengths, suspect


def _drop_duplicates(
    gq: IntArray, ids: BytesArray, keys: NDArray[np.uint64], suspect: BoolArray
) -> tuple[IntArray, BytesArray, NDArray[np.uint64]]:
    """Keep the first occurrence of each (query, id) in the suspect queries (rows are in
    ranking order); decided exactly, on the id bytes."""
    drop = np.zeros(len(gq), dtype=bool)
    seen: dict[int, set[bytes]] = {}
    for row in np.flatnonzero(suspect[gq]):
        bag = seen.setdefault(int(gq[row]), set())
        doc = bytes(ids[row])
        drop[row] = doc in bag
        bag.add(doc)
    keep = ~drop
    return gq[keep], ids[keep], keys[keep]


def _dict_join(judgments: JudgmentColumns, gq: IntArray, ids: BytesArray) -> FloatArray:
    lookup = {
        (int(q), bytes(i)): float(g)
        for q, i, g in zip(judgments.qidx, judgments.ids, judgments.grades, strict=True)
    }
    return np.array([lookup.get((int(q), bytes(i)), np.nan) for q, i in zip(gq, ids, strict=True)])


def _positions(gq: IntArray, n_queries: int) -> tuple[IntArray, IntArray]:
    """0-based position of each row within its query (rows grouped by query, in order)."""
    lengths = np.bincount(gq, minlength=n_queries).astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    return np.arange(len(gq), dtype=np.int64) - starts[gq], lengths


def _ideal(judgments: JudgmentColumns, n_queries: int) -> FloatArray:
    """Each query's judged grades sorted descending, NaN-padded: ``float[queries, max_judged]``."""
    counts = np.bincount(judgments.qidx, minlength=n_queries) if n_queries else np.zeros(0)
    width = max(int(counts.max()) if len(counts) else 0, 1)
    ideal = np.full((n_queries, width), np.nan)
    if len(judgments.qidx):
        srt = np.lexsort((-judgments.grades, judgments.qidx))
        q = judgments.qidx[srt]
        pos, _ = _positions(q, n_queries)
        ideal[q, pos] = judgments.grades[srt]
    return ideal


# --------------------------------------------------------------------------------------------
# Scoring


@dataclass(frozen=True)
class EvalResult:
    """Per-query values of ``metrics`` for every golden query.

    ``values[q, m]`` is NaN for a query left out of the means (``included[q]`` False: it has no
    relevant chunk). Queries missing from the run are included and score 0."""

    settings: EvalSettings
    metrics: tuple[str, ...]
    query_ids: tuple[str, ...]
    values: FloatArray
    included: BoolArray
    no_relevant: tuple[str, ...]
    missing_from_run: tuple[str, ...]
    not_in_judgments: tuple[str, ...]

    def column(self, metric: str) -> FloatArray:
        """Values of one metric over the included queries, in ``query_ids`` order."""
        col: FloatArray = self.values[self.included, self.metrics.index(metric)]
        return col

    def per_query(self) -> dict[str, dict[str, float]]:
        """``{query_id: {metric: value}}`` for the included queries."""
        rows = self.values[self.included].tolist()
        qids = [q for q, inc in zip(self.query_ids, self.included, strict=True) if inc]
        return {
            q: dict(zip(self.metrics, row, strict=True)) for q, row in zip(qids, rows, strict=True)
        }


def restrict(result: EvalResult, query_ids: Collection[str]) -> EvalResult:
    """``result`` over the queries of ``query_ids`` only, in its own order: every per-query value
    and list as a run scored on the golden set restricted to those queries would give (each
    query's values depend on that query alone)."""
    keep = np.fromiter(
        (q in query_ids for q in result.query_ids), dtype=bool, count=len(result.query_ids)
    )
    kept = frozenset(q for q, k in zip(result.query_ids, keep.tolist(), strict=True) if k)
    return replace(
        result,
        query_ids=tuple(q for q in result.query_ids if q in kept),
        values=result.values[keep],
        included=result.included[keep],
        no_relevant=tuple(q for q in result.no_relevant if q in kept),
        missing_from_run=tuple(q for q in result.missing_from_run if q in kept),
    )


def evaluate(
    judgments: JudgmentColumns | Mapping[str, Mapping[str, int]] | EvalArrays,
    ranking: RankingColumns | Mapping[str, Sequence[str] | Sequence[tuple[str, float]]] | None,
    metrics: Iterable[str] = DEFAULT_METRICS,
    settings: EvalSettings | None = None,
) -> EvalResult:
    """Score a ranking against judgments (or an already prepared :class:`EvalArrays`, with
    ``ranking=None``) on every metric in ``metrics``, for all queries at once."""
    settings = settings or EvalSettings()
    specs = [parse_metric(m) for m in metrics]
    names = tuple(dict.fromkeys(s.name for s in specs))
    specs = [parse_metric(n) for n in names]
    if isinstance(judgments, EvalArrays):
        arrays = judgments
    else:
        if ranking is None:
            raise ValueError("ranking is required unless judgments is an EvalArrays")
        arrays = prepare(judgments, ranking, order=settings.order, depth=_needed_depth(specs))
    n_q = len(arrays.query_ids)
    values = np.zeros((n_q, len(specs)))
    step = max(1, _BLOCK_CELLS // max(arrays.grades.shape[1], arrays.ideal.shape[1]))
    for lo in range(0, n_q, step):
        hi = min(lo + step, n_q)
        values[lo:hi] = _score_block(
            arrays.grades[lo:hi], arrays.lengths[lo:hi], arrays.ideal[lo:hi], specs, settings
        )
    n_rel = (arrays.ideal >= settings.relevance_threshold).sum(axis=1)
    no_rel = n_rel == 0
    if settings.convention == "goldsmith":
        included = ~no_rel if settings.no_relevant == "exclude" else np.ones(n_q, dtype=bool)
    else:  # trec_eval knows a query by its qrels lines: one judgment at least
        judged = (
            ~np.isnan(arrays.ideal).all(axis=1) if arrays.ideal.shape[1] else np.zeros(n_q, bool)
        )
        included = judged & arrays.in_run if settings.convention == "trec_eval" else judged
    values[~included] = np.nan
    qids = arrays.query_ids
    return EvalResult(
        settings=settings,
        metrics=names,
        query_ids=qids,
        values=values,
        included=included,
        no_relevant=tuple(q for q, f in zip(qids, no_rel, strict=True) if f),
        missing_from_run=tuple(q for q, f in zip(qids, arrays.in_run, strict=True) if not f),
        not_in_judgments=arrays.not_in_judgments,
    )


def _needed_depth(specs: Sequence[Metric]) -> int | None:
    if any(s.k is None for s in specs):
        return None
    return max((s.k for s in specs if s.k is not None), default=None)


def _score_block(
    grades: FloatArray,
    lengths: IntArray,
    ideal: FloatArray,
    specs: Sequence[Metric],
    s: EvalSettings,
) -> FloatArray:
    """All metrics for a block of queries; every column is a slice of a cumulative sum."""
    n_q, depth = grades.shape
    out = np.zeros((n_q, len(specs)))
    cache: dict[str, FloatArray] = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = grades >= s.relevance_threshold  # NaN (unjudged / past the end) → False
        cum = np.cumsum(rel, axis=1, dtype=np.int64)
        n_rel = (ideal >= s.relevance_threshold).sum(axis=1)
        safe_r: IntArray = np.maximum(n_rel, 1)
        first = np.where(rel.any(axis=1), rel.argmax(axis=1) + 1, 0)

        def at(k: int | None) -> IntArray:
            return cum[:, (depth if k is None else min(k, depth)) - 1]

        def recall(k: int | None) -> FloatArray:
            return at(k) / safe_r

        def precision(k: int | None) -> FloatArray:
            if k is None:  # relevant retrieved / retrieved (set_P); 0 when nothing retrieved
                return np.where(lengths > 0, at(None) / np.maximum(lengths, 1), 0.0)
            return at(k) / k

        def ap_cum() -> FloatArray:
            if "ap" not in cache:
                prec = cum / np.arange(1, depth + 1)
                cache["ap"] = np.cumsum(np.where(rel, prec, 0.0), axis=1)
            return cache["ap"]

        def gains(g: FloatArray) -> FloatArray:
            g = np.nan_to_num(np.maximum(g, 0.0), nan=0.0)
            return np.exp2(g) - 1.0 if s.gain == "exp" else g

        def dcg_cum(key: str, g: FloatArray) -> FloatArray:
            if key not in cache:
                disc = np.log2(np.arange(2, g.shape[1] + 2, dtype=np.float64))
                cache[key] = np.cumsum(gains(g) / disc, axis=1)
            return cache[key]

        for j, m in enumerate(specs):
            k = m.k
            if m.family == "recall":
                col = recall(k)
            elif m.family == "precision":
                col = precision(k)
            elif m.family == "hit":
                col = (at(k) > 0).astype(np.float64)
            elif m.family == "f1":
                p, r = precision(k), recall(k)
                col = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
            elif m.family == "pass":
                col = (recall(k) >= s.pass_threshold).astype(np.float64)
            elif m.family == "mrr":
                hit = (first > 0) & (first <= (k or depth))
                col = np.where(hit, 1.0 / np.maximum(first, 1), 0.0)
            elif m.family == "map":
                col = ap_cum()[:, (depth if k is None else min(k, depth)) - 1] / safe_r
            elif m.family == "r_precision":
                idx = np.clip(n_rel, 1, depth) - 1
                col = cum[np.arange(n_q), idx] / safe_r
            elif m.family == "judged":
                assert k is not None
                shown = np.minimum(lengths, k)
                judged = np.cumsum(~np.isnan(grades[:, : min(k, depth)]), axis=1)[:, -1]
                col = np.where(shown > 0, judged / np.maximum(shown, 1), 0.0)
            else:  # ndcg
                dcg = dcg_cum("dcg", grades)
                idcg = dcg_cum("idcg", ideal)
                kd = depth if k is None else min(k, depth)
                ki = ideal.shape[1] if k is None else min(k, ideal.shape[1])
                top = dcg[:, kd - 1]
                best = idcg[:, ki - 1]
                col = np.where(best > 0, top / np.where(best > 0, best, 1.0), 0.0)
            out[:, j] = col
    return out


# --------------------------------------------------------------------------------------------
# Aggregates


@dataclass(frozen=True)
class Aggregate:
    """Mean of one metric over the included queries, with a bootstrap confidence interval."""

    mean: float
    n: int
    ci_low: float
    ci_high: float


def _weights_for(result: EvalResult, weights: Mapping[str, float] | None) -> FloatArray | None:
    if weights is None:
        return None
    qids = [q for q, inc in zip(result.query_ids, result.included, strict=True) if inc]
    w = np.array([float(weights.get(q, 1.0)) for q in qids])
    if bool((w < 0).any()) or not np.isfinite(w).all():
        raise ValueError("query weights must be finite and non-negative")
    return w


def aggregate(
    result: EvalResult,
    *,
    samples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    weights: Mapping[str, float] | None = None,
    mask: BoolArray | None = None,
) -> dict[str, Aggregate]:
    """Mean, query count and percentile bootstrap CI (``samples`` resamples of the queries,
    seeded; 0 disables the CI) of every metric. ``weights`` (query id → weight, default 1)
    gives re-weighted means, e.g. for stratified samples; ``mask`` restricts to some queries."""
    sel = result.included if mask is None else result.included & mask
    vals = result.values[sel]
    w = _weights_for(result, weights)
    if w is not None and mask is not None:
        w = w[mask[result.included]]
    n = len(vals)
    if n == 0:
        nan = math.nan
        return {m: Aggregate(nan, 0, nan, nan) for m in result.metrics}
    means = np.average(vals, axis=0, weights=w) if w is not None and w.sum() > 0 else vals.mean(0)
    low, high = stats.bootstrap_ci(
        vals, samples=samples, seed=seed, confidence=confidence, weights=w
    )
    return {
        m: Aggregate(float(means[j]), n, float(low[j]), float(high[j]))
        for j, m in enumerate(result.metrics)
    }


def by_category(
    result: EvalResult, categories: Mapping[str, str | None], **kwargs: Any
) -> dict[str, dict[str, Aggregate]]:
    """Aggregates per category (query id → category; missing or None → "(none)")."""
    labels = np.array([categories.get(q) or "(none)" for q in result.query_ids], dtype=object)
    return {
        str(c): aggregate(result, mask=labels == c, **kwargs)
        for c in sorted(set(labels[result.included].tolist()))
    }


@dataclass(frozen=True)
class Histogram:
    """Counts of per-query values in ``bins`` equal bins over [0, 1] (last bin closed)."""

    edges: tuple[float, ...]
    counts: tuple[int, ...]


def histogram(result: EvalResult, metric: str, bins: int = 10) -> Histogram:
    counts, edges = np.histogram(result.column(metric), bins=bins, range=(0.0, 1.0))
    return Histogram(tuple(edges.tolist()), tuple(int(c) for c in counts))


def low_queries(result: EvalResult, metric: str, below: float) -> list[tuple[str, float]]:
    """Included queries whose ``metric`` is below ``below``, worst first (ties by query id)."""
    j = result.metrics.index(metric)
    rows = [
        (q, float(v))
        for q, v, inc in zip(result.query_ids, result.values[:, j], result.included, strict=True)
        if inc and v < below
    ]
    return sorted(rows, key=lambda r: (r[1], r[0]))


# --------------------------------------------------------------------------------------------
# Comparison of two runs


@dataclass(frozen=True)
class MetricComparison:
    """B − A on one metric over the queries included in both runs."""

    metric: str
    n: int
    mean_a: float
    mean_b: float
    diff: float
    ci_low: float
    ci_high: float
    p_randomization: float
    p_ttest: float
    p_holm: float
    wins: int
    ties: int
    losses: int


def compare(
    a: EvalResult,
    b: EvalResult,
    *,
    metrics: Sequence[str] | None = None,
    samples: int = 1000,
    permutations: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
) -> list[MetricComparison]:
    """Paired comparison of run B against run A (same judgments and settings).

    Per metric: mean difference B − A with a bootstrap CI, two-sided paired randomization test
    (random sign flips of the per-query differences, ``permutations`` draws, p = (hits+1)/(P+1)),
    paired t-test (p = 1 when every difference is 0), Holm-adjusted p (over the randomization
    p-values of the metrics compared) and wins/ties/losses of B (tie: |diff| ≤ 1e-12)."""
    if a.query_ids != b.query_ids:
        raise ValueError("the two results must cover the same queries in the same order")
    names = list(metrics) if metrics is not None else [m for m in a.metrics if m in b.metrics]
    both = a.included & b.included
    va = np.column_stack([a.values[both, a.metrics.index(m)] for m in names]) if names else None
    vb = np.column_stack([b.values[both, b.metrics.index(m)] for m in names]) if names else None
    if va is None or vb is None:
        return []
    n = len(va)
    diff = vb - va
    if n == 0:
        nan = math.nan
        # No query scored in both: nothing to compare, every figure undefined.
        return [
            MetricComparison(m, 0, nan, nan, nan, nan, nan, nan, nan, nan, 0, 0, 0) for m in names
        ]
    low, high = stats.bootstrap_ci(diff, samples=samples, seed=seed, confidence=confidence)
    p_rand = stats.randomization_test(diff, permutations=permutations, seed=seed)
    p_t = stats.paired_t_test(va, vb)
    p_holm = stats.holm(p_rand)
    wins = (diff > 1e-12).sum(axis=0)
    losses = (diff < -1e-12).sum(axis=0)
    return [
        MetricComparison(
            metric=m,
            n=n,
            mean_a=float(va[:, j].mean()),
            mean_b=float(vb[:, j].mean()),
            diff=float(diff[:, j].mean()),
            ci_low=float(low[j]),
            ci_high=float(high[j]),
            p_randomization=float(p_rand[j]),
            p_ttest=float(p_t[j]),
            p_holm=float(p_holm[j]),
            wins=int(wins[j]),
            ties=int(n - wins[j] - losses[j]),
            losses=int(losses[j]),
        )
        for j, m in enumerate(names)
    ]


@dataclass(frozen=True)
class QueryChange:
    """One query's ``metric`` in run A and run B, and B − A."""

    query_id: str
    a: float
    b: float
    diff: float


@dataclass(frozen=True)
class QueryChanges:
    """The queries whose ``metric`` changed from run A to run B, out of the ``n`` queries
    included in both: ``worse`` (B < A) worst first, ``better`` (B > A) largest gain first,
    and how many ``ties`` (|B − A| ≤ 1e-12, the tie rule of :func:`compare`)."""

    metric: str
    n: int
    worse: tuple[QueryChange, ...]
    better: tuple[QueryChange, ...]
    ties: int


def query_changes(a: EvalResult, b: EvalResult, metric: str) -> QueryChanges:
    """Per-query changes of ``metric`` from run A to run B (see :class:`QueryChanges`); equal
    changes are ordered by query id. Its counts equal :func:`compare`'s losses, wins and ties."""
    if a.query_ids != b.query_ids:
        raise ValueError("the two results must cover the same queries in the same order")
    both = a.included & b.included
    va = a.values[both, a.metrics.index(metric)]
    vb = b.values[both, b.metrics.index(metric)]
    qids = [q for q, inc in zip(a.query_ids, both.tolist(), strict=True) if inc]
    rows = [
        QueryChange(q, x, y, y - x)
        for q, x, y in zip(qids, va.tolist(), vb.tolist(), strict=True)
        if abs(y - x) > 1e-12
    ]
    worse = sorted((r for r in rows if r.diff < 0), key=lambda r: (r.diff, r.query_id))
    better = sorted((r for r in rows if r.diff > 0), key=lambda r: (-r.diff, r.query_id))
    return QueryChanges(metric, len(qids), tuple(worse), tuple(better), len(qids) - len(rows))


# --------------------------------------------------------------------------------------------
# Top-K choice

TOPK_FAMILIES: tuple[str, ...] = ("mrr", "ndcg", "precision", "recall", "hit", "map", "f1")
# Scores closer than this count as a tie (the smaller K wins).
_TOPK_TIE = 1e-12


@dataclass(frozen=True)
class TopKScenario:
    """A named set of top-K weights (metric family → weight) and why it weighs that way."""

    key: str
    label: str
    weights: Mapping[str, float]
    why: str


TOPK_SCENARIOS: dict[str, TopKScenario] = {
    s.key: s
    for s in (
        TopKScenario(
            "default",
            "General (MRR 0.4, nDCG 0.3, precision 0.2, recall 0.1)",
            {"mrr": 0.4, "ndcg": 0.3, "precision": 0.2, "recall": 0.1},
            "The field's default. A reader, or a model, reads from the top: the rank of the "
            "first relevant chunk weighs most, the graded order next, the noise in the list "
            "after it, and finding every relevant chunk least.",
        ),
        TopKScenario(
            "qa",
            "Question answering (MRR 0.45, precision 0.3, nDCG 0.15, recall 0.1)",
            {"mrr": 0.45, "precision": 0.3, "ndcg": 0.15, "recall": 0.1},
            "A question's answer usually sits in one or two chunks. It must come first (MRR), "
            "and the context the model reads must not be diluted by non-relevant chunks that "
            "invite a wrong answer (precision); finding every relevant chunk adds little.",
        ),
        TopKScenario(
            "summarisation",
            "Summarisation (recall 0.45, precision 0.25, nDCG 0.2, MRR 0.1)",
            {"recall": 0.45, "precision": 0.25, "ndcg": 0.2, "mrr": 0.1},
            "A summary must cover every relevant piece: a missed chunk is a missing point "
            "(recall), while the first chunk's rank barely matters. Precision keeps a share so "
            "that a K bringing mostly noise still costs something.",
        ),
        TopKScenario(
            "support",
            "Support (hit 0.35, MRR 0.35, precision 0.2, nDCG 0.1)",
            {"hit": 0.35, "mrr": 0.35, "precision": 0.2, "ndcg": 0.1},
            "A support question (FAQ, how-to, ticket) is settled by one good article: whether "
            "any relevant chunk is shown (hit) and how high (MRR) decide; precision keeps the "
            "list short for the agent or the customer reading it.",
        ),
    )
}
"""Top-K scenario presets. Recall, hit and MRR never fall as K grows, so a score made of them
alone always picks the largest K; every preset keeps a share on precision@K (which falls as K
grows, since it divides by K), so the best K is a real trade-off between finding more and
showing less. A project picks a preset and may edit any weight (:func:`topk_weights`)."""
DEFAULT_TOPK_SCENARIO = "default"


def topk_weights(
    scenario: str = "", overrides: Mapping[str, float] | None = None
) -> dict[str, float]:
    """The weights of ``scenario`` ("" = the default scenario) with ``overrides`` (family →
    weight) laid over them; a weight of 0 drops a family. Raises ValueError with a readable
    reason on an unknown scenario or family, a negative or non-finite weight, or no weight."""
    key = scenario or DEFAULT_TOPK_SCENARIO
    if key not in TOPK_SCENARIOS:
        known = ", ".join(TOPK_SCENARIOS)
        raise ValueError(f"unknown top-K scenario {scenario!r}; use one of {known}")
    merged = dict(TOPK_SCENARIOS[key].weights)
    for family, value in (overrides or {}).items():
        if family not in TOPK_FAMILIES:
            known = ", ".join(TOPK_FAMILIES)
            raise ValueError(f"top-K weight for unknown metric {family!r} (known: {known})")
        try:
            weight = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"top-K weight of {family} is not a number: {value!r}") from None
        if not math.isfinite(weight) or weight < 0:
            raise ValueError(f"top-K weight of {family} must be finite and ≥ 0, not {value!r}")
        merged[family] = weight
    out = {f: w for f, w in merged.items() if w > 0}
    if not out:
        raise ValueError("top-K weights: give at least one positive weight")
    return out


def parse_topk_weights(text: str) -> dict[str, float]:
    """``"mrr=0.4, ndcg=0.3"`` → ``{"mrr": 0.4, "ndcg": 0.3}`` (commas or spaces between
    pairs; not yet merged over a scenario). Raises ValueError with a readable reason."""
    out: dict[str, float] = {}
    for part in text.replace(",", " ").split():
        name, sep, value = part.partition("=")
        name = name.strip().lower()
        if not sep or not name:
            raise ValueError(f"top-K weights are written metric=weight, e.g. mrr=0.4; not {part!r}")
        if name not in TOPK_FAMILIES:
            known = ", ".join(TOPK_FAMILIES)
            raise ValueError(f"top-K weight for unknown metric {name!r} (known: {known})")
        try:
            out[name] = float(value)
        except ValueError:
            raise ValueError(f"top-K weight of {name} is not a number: {value!r}") from None
    return out


def format_topk_weights(weights: Mapping[str, float]) -> str:
    """``{"mrr": 0.4, "ndcg": 0.3}`` → ``"mrr=0.4, ndcg=0.3"`` (what :func:`parse_topk_weights`
    reads)."""
    return ", ".join(f"{f}={w:g}" for f, w in weights.items())


def sweep_ks(depth: int, extra: Iterable[int] = ()) -> tuple[int, ...]:
    """The cut-offs a sweep looks at for lists ``depth`` long: every K up to 30, then 40, 50,
    75, 100, 150, 200, 300, 500, 750, 1000, plus ``depth`` itself and the ``extra`` ones, all
    at most ``depth`` (K beyond the depth would score chunks the retriever was never asked
    for)."""
    grid = (*range(1, 31), 40, 50, 75, 100, 150, 200, 300, 500, 750, 1000)
    return tuple(sorted({k for k in (*grid, depth, *extra) if 1 <= k <= depth}))


def topk_score(
    ks: Sequence[int], means: Mapping[str, Sequence[float]], weights: Mapping[str, float]
) -> tuple[tuple[float, ...], int | None]:
    """(score at each K, best K): score(K) = Σ_f w_f · mean_f@K / Σ_f w_f, so it stays in
    [0, 1]; the best K has the highest score, the smallest such K on a tie (within 1e-12).
    ``means`` needs every weighted family; best K is None when nothing is scored (NaN)."""
    total = sum(weights.values())
    if total <= 0:
        raise ValueError("top-K weights: give at least one positive weight")
    score = np.zeros(len(ks))
    for family, w in weights.items():
        score += w * np.asarray(means[family], dtype=np.float64)
    score /= total
    if len(ks) == 0 or np.isnan(score).all():
        return tuple(score.tolist()), None
    best = np.nanmax(score)
    return tuple(score.tolist()), int(ks[int(np.flatnonzero(score >= best - _TOPK_TIE)[0])])


@dataclass(frozen=True)
class TopKSweep:
    """Mean of each family at each K (over the included queries, as in :func:`aggregate`), the
    weighted score at each K and the best K (None when no query is scored)."""

    ks: tuple[int, ...]
    n: int
    means: Mapping[str, tuple[float, ...]]
    weights: Mapping[str, float]
    score: tuple[float, ...]
    best_k: int | None


def topk_sweep(
    arrays: EvalArrays,
    ks: Sequence[int],
    settings: EvalSettings | None = None,
    weights: Mapping[str, float] | None = None,
    families: Sequence[str] = TOPK_FAMILIES,
) -> TopKSweep:
    """Mean ``families`` @K for every K of ``ks``, scored with ``weights`` (default: the
    default scenario's; every weighted family is added to ``families``). Values come from
    :func:`evaluate`, so mrr@5 here is the mrr@5 of a report; Ks are evaluated a few at a time
    to bound memory."""
    w = dict(weights) if weights is not None else topk_weights()
    fams = list(dict.fromkeys([*families, *w]))
    ks = tuple(sorted({int(k) for k in ks}))
    if not ks or ks[0] < 1:
        raise ValueError("a top-K sweep needs cut-offs of 1 or more")
    n_q = max(len(arrays.query_ids), 1)
    per_call = max(1, _BLOCK_CELLS // (n_q * len(fams)))
    means: dict[str, list[float]] = {f: [] for f in fams}
    n = 0
    for lo in range(0, len(ks), per_call):
        part = ks[lo : lo + per_call]
        res = evaluate(arrays, None, [f"{f}@{k}" for f in fams for k in part], settings)
        n = int(res.included.sum())
        vals = res.values[res.included]
        col = vals.mean(axis=0) if n else np.full(vals.shape[1], np.nan)
        for i, f in enumerate(fams):
            means[f].extend(col[i * len(part) : (i + 1) * len(part)].tolist())
    frozen = {f: tuple(v) for f, v in means.items()}
    score, best = topk_score(ks, frozen, w)
    return TopKSweep(ks=ks, n=n, means=frozen, weights=w, score=score, best_k=best)


# --------------------------------------------------------------------------------------------
# Drift and target checks


@dataclass(frozen=True)
class DriftRules:
    """Alert rules; a rule set to None is off. Drops compare with the baseline's mean; the
    absolute alarms ``min_recall`` / ``min_pass_rate`` are the preset's **floors** (defaults:
    the enterprise preset's), not its targets. Every comparison allows ``TOLERANCE``."""

    recall_metric: str = "recall@5"
    pass_metric: str = "pass@5"
    max_recall_drop: float | None = 0.05
    max_pass_rate_drop: float | None = 0.10
    min_recall: float | None = 0.70
    min_pass_rate: float | None = 0.70


@dataclass(frozen=True)
class FiredRule:
    rule: str
    value: float
    limit: float
    baseline: float | None
    message: str


@dataclass(frozen=True)
class DriftReport:
    fired: tuple[FiredRule, ...]
    newly_failing: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.fired


def check_drift(
    current: EvalResult, baseline: EvalResult | None = None, rules: DriftRules | None = None
) -> DriftReport:
    """Which rules fire for ``current`` (against ``baseline`` for the drop rules), and the
    queries that passed in the baseline but fail now. Without a baseline only the absolute
    floors apply. Limits are compared with a tolerance (``TOLERANCE``): a drop fires when it is
    more than ``limit + TOLERANCE`` (so 0.90 → 0.85, whose float difference is
    0.05000000000000004, does not fire a 0.05 rule), a mean below a floor when it is under
    ``floor − TOLERANCE``."""
    r = rules or DriftRules()
    for res in (current, baseline):
        if res is not None:
            for m in (r.recall_metric, r.pass_metric):
                if m not in res.metrics:
                    raise ValueError(f"drift check needs metric {m!r} in the results")

    def mean(res: EvalResult, metric: str) -> float:
        col = res.column(metric)
        return float(col.mean()) if len(col) else math.nan

    def shown(x: float) -> str:
        return say("undefined (no relevant chunk)") if x != x else f"{x:.4f}"

    rec, pas = mean(current, r.recall_metric), mean(current, r.pass_metric)
    fired: list[FiredRule] = []
    # NaN (nothing to score) is below every floor: a run without a scored query cannot pass.
    if r.min_recall is not None and not rec >= r.min_recall - TOLERANCE:
        msg = say(
            "mean %(metric)s %(value)s is below the floor %(floor)s",
            metric=r.recall_metric,
            value=shown(rec),
            floor=f"{r.min_recall:.2f}",
        )
        fired.append(FiredRule("min_recall", rec, r.min_recall, None, msg))
    if r.min_pass_rate is not None and not pas >= r.min_pass_rate - TOLERANCE:
        msg = say(
            "pass rate (%(metric)s) %(value)s is below the floor %(floor)s",
            metric=r.pass_metric,
            value=shown(pas),
            floor=f"{r.min_pass_rate:.2f}",
        )
        fired.append(FiredRule("min_pass_rate", pas, r.min_pass_rate, None, msg))
    newly: tuple[str, ...] = ()
    if baseline is not None:
        brec, bpas = mean(baseline, r.recall_metric), mean(baseline, r.pass_metric)
        if r.max_recall_drop is not None and brec - rec > r.max_recall_drop + TOLERANCE:
            msg = say(
                "mean %(metric)s dropped %(drop)s (%(before)s → %(after)s), more than %(limit)s",
                metric=r.recall_metric,
                drop=f"{brec - rec:.4f}",
                before=f"{brec:.4f}",
                after=f"{rec:.4f}",
                limit=f"{r.max_recall_drop:g}",
            )
            fired.append(FiredRule("max_recall_drop", rec, r.max_recall_drop, brec, msg))
        if r.max_pass_rate_drop is not None and bpas - pas > r.max_pass_rate_drop + TOLERANCE:
            msg = say(
                "pass rate (%(metric)s) dropped %(drop)s (%(before)s → %(after)s), more than "
                "%(limit)s",
                metric=r.pass_metric,
                drop=f"{bpas - pas:.4f}",
                before=f"{bpas:.4f}",
                after=f"{pas:.4f}",
                limit=f"{r.max_pass_rate_drop:g}",
            )
            fired.append(FiredRule("max_pass_rate_drop", pas, r.max_pass_rate_drop, bpas, msg))
        before = dict(
            zip(
                baseline.query_ids,
                baseline.values[:, baseline.metrics.index(r.pass_metric)].tolist(),
                strict=True,
            )
        )
        jp = current.metrics.index(r.pass_metric)
        newly = tuple(
            q
            for q, v in zip(current.query_ids, current.values[:, jp].tolist(), strict=True)
            if v == 0.0 and before.get(q) == 1.0
        )
    return DriftReport(tuple(fired), newly)
