"""Run reports from a golden set and stored results: matching, metrics, diagnosis, latency.

Pure module (numpy and the standard library; no Django). Every number comes from
:mod:`goldsmith.metrics`; this module only prepares its inputs (the matching mode) and arranges
its outputs (aggregates at every K, strict and lenient, per category and per stratum, the
Recall@K curve, the histogram, the low-recall queries with a diagnosis, latency percentiles).

Matching modes (docs/design.md, "Metric conventions"):

- ``chunk``: a retrieved chunk id matches the judged chunk with the same id;
- ``document``: ids are replaced by document ids on both sides; a document's grade is the
  highest grade of its judged chunks, and a document retrieved twice counts once;
- ``span``: for re-chunked corpora. A retrieved chunk that is not itself judged takes the id of
  the judged chunk of the same document whose character span overlaps it (the highest grade on
  a tie), so it finds that chunk; a retrieved chunk overlapping two judged chunks finds only the
  best of them, and a second retrieved piece of the same judged chunk counts once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from typing import Any, Literal

import numpy as np

from goldsmith import corpus as C
from goldsmith import metrics
from goldsmith.formats.trec import trec_list_in_order
from goldsmith.refresh import spans_overlap
from goldsmith.text import Text, say

FAMILIES = ("recall", "precision", "hit", "mrr", "ndcg", "map", "pass", "judged")
# Metrics of the whole returned list (trec_eval's set_P and set_F), beside the ones at each K.
WHOLE_LIST = ("precision", "f1")
LOW_QUERY_LIMIT = 50
SNIPPET_CHARS = 240


@dataclass(frozen=True)
class GoldJudgment:
    chunk_id: str
    grade: int
    doc_id: str | None = None
    start: int | None = None
    end: int | None = None
    text: str | None = None


@dataclass(frozen=True)
class GoldItem:
    query_id: str
    text: str
    category: str | None = None
    stratum: str | None = None
    weight: float = 1.0
    judgments: tuple[GoldJudgment, ...] = ()


@dataclass(frozen=True)
class ResultRow:
    """A stored result: ranked ids (best first), their scores and, when known, documents."""

    query_id: str
    ids: tuple[str, ...]
    scores: tuple[float | None, ...] = ()
    doc_ids: tuple[str | None, ...] = ()
    snippets: tuple[str | None, ...] = ()
    latency_ms: float | None = None
    error: str = ""


@dataclass(frozen=True)
class ChunkPlace:
    """Where a corpus chunk sits: its document and character span."""

    doc_id: str | None
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True)
class RunSettings:
    ks: tuple[int, ...] = (5, 10)
    relevance_threshold: int = 2
    gain: metrics.Gain = "linear"
    pass_threshold: float = 0.7
    matching: str = "chunk"
    bootstrap_samples: int = 1000
    seed: int = 0
    # The K of the headline figures, the verdict and drift (the project's, 5 by default, taken
    # by the run at creation). None on runs made before it existed: 10 when measured, else the
    # largest K, as they were reported then.
    headline: int | None = None
    # The low-recall list holds the queries whose Recall@K (headline K) is below this cut-off:
    # a diagnosis setting of its own (the field's 0.2), apart from the pass threshold.
    low_recall_cutoff: float = 0.2
    # The top-K choice: a scenario of metrics.TOPK_SCENARIOS ("" = the default) and the
    # project's per-metric edits laid over its weights.
    topk_scenario: str = ""
    topk_weights: Mapping[str, float] | None = None

    @property
    def headline_k(self) -> int:
        if self.headline:
            return self.headline
        return 10 if 10 in self.ks else max(self.ks)

    def metric_names(self) -> list[str]:
        ks = sorted(set(self.ks) | {self.headline_k})
        return [*(f"{f}@{k}" for k in ks for f in FAMILIES), *WHOLE_LIST]

    def eval_settings(self, threshold: int | None = None) -> metrics.EvalSettings:
        return metrics.EvalSettings(
            relevance_threshold=self.relevance_threshold if threshold is None else threshold,
            gain=self.gain,
            pass_threshold=self.pass_threshold,
        )


@dataclass
class Scored:
    """A run scored: the metric result plus what the report needs to explain it."""

    result: metrics.EvalResult
    arrays: metrics.EvalArrays
    judgments: dict[str, dict[str, int]]
    ranking: dict[str, list[str]]  # matched keys in rank order (duplicates kept)


@dataclass(frozen=True)
class Prepared:
    """A run joined with its golden set once; scoring it at several thresholds reuses it."""

    arrays: metrics.EvalArrays
    judgments: dict[str, dict[str, int]]
    ranking: dict[str, list[str]]


@dataclass(frozen=True)
class CorpusState:
    """The corpus a run ran against, as its report needs it (docs/design.md, "Corpus versions").

    ``live``: chunk id → live chunk for every live chunk the report may look up (at least the
    golden set's graded chunks and the retrieved ids); an id absent is not a live chunk (retired,
    or never in the corpus). ``ids_only``: only the live ids are known (a file of ids), so a
    changed text cannot be seen and only retirement is reported. ``judged_on`` / ``ran_on``: the
    corpus version numbers the golden set was judged on and the run ran against, when known
    (labels only); ``assumed``: the run's corpus is the live one at run time, not one the
    retriever stated (HTTP retrievers and run files)."""

    live: Mapping[str, C.LiveChunk]
    ids_only: bool = False
    judged_on: int | None = None
    ran_on: int | None = None
    assumed: bool = False
    label: str = ""  # the golden set's version label, for the sentences ("v1")


def golden_chunks(
    items: Sequence[GoldItem], *, with_text: bool = True
) -> dict[str, list[C.JudgedChunk]]:
    """The golden set's graded chunks as :func:`goldsmith.corpus.corpus_effect` reads them, each
    with the sha256 of its graded text when the text is known (and ``with_text``)."""
    return {
        i.query_id: [
            C.JudgedChunk(
                j.chunk_id,
                j.grade,
                C.text_sha256(j.text) if with_text and j.text is not None else None,
                j.text if with_text else None,
            )
            for j in i.judgments
        ]
        for i in items
    }


def corpus_effect_of(items: Sequence[GoldItem], state: CorpusState) -> C.CorpusEffect:
    """What the corpus ``state`` did to the golden set ``items`` (the one rule the app, the
    stored report and ``goldsmith eval --corpus`` use)."""
    return C.corpus_effect(golden_chunks(items, with_text=not state.ids_only), state.live)


# --------------------------------------------------------------------------------------------
# Matching


def match(
    items: Sequence[GoldItem],
    rows: Mapping[str, ResultRow],
    mode: str,
    places: Mapping[str, ChunkPlace] | None = None,
) -> tuple[dict[str, dict[str, int]], dict[str, list[str]]]:
    """Judgments and ranking keyed for ``mode`` (see the module docstring). ``places`` gives
    the document and span of corpus chunks (needed for ``document`` and ``span``)."""
    places = places or {}
    judgments: dict[str, dict[str, int]] = {}
    ranking: dict[str, list[str]] = {}

    def doc_of(chunk_id: str, given: str | None) -> str:
        if given:
            return f"doc:{given}"
        place = places.get(chunk_id)
        return f"doc:{place.doc_id}" if place and place.doc_id else f"chunk:{chunk_id}"

    for item in items:
        if mode == "document":
            graded: dict[str, int] = {}
            for j in item.judgments:
                key = doc_of(j.chunk_id, j.doc_id)
                graded[key] = max(graded.get(key, j.grade), j.grade)
            judgments[item.query_id] = graded
        else:
            judgments[item.query_id] = {j.chunk_id: j.grade for j in item.judgments}
    for item in items:
        row = rows.get(item.query_id)
        if row is None or row.error:
            continue  # missing from the run: scores 0
        if mode == "chunk":
            ranking[item.query_id] = list(row.ids)
            continue
        given = list(row.doc_ids) + [None] * (len(row.ids) - len(row.doc_ids))
        if mode == "document":
            keys = [doc_of(c, d) for c, d in zip(row.ids, given, strict=True)]
        else:
            keys = [_span_key(c, d, item, places) for c, d in zip(row.ids, given, strict=True)]
        ranking[item.query_id] = keys
    return judgments, ranking


def _encode(strings: list[str]) -> metrics.BytesArray:
    raw = [x.encode("utf-8") for x in strings]
    if b"\x00" in b"".join(raw):
        raise ValueError("chunk ids may not contain NUL characters")
    return np.array(raw, dtype=np.bytes_) if raw else np.zeros(0, dtype="S1")


def _columns(
    judgments: dict[str, dict[str, int]], ranking: dict[str, list[str]]
) -> tuple[metrics.JudgmentColumns, metrics.RankingColumns]:
    """Column forms of the matched judgments and ranking (ranks are list positions; the
    retriever's order is kept: results are scored with ``order="rank"``)."""
    jq = tuple(judgments)
    jcounts = [len(v) for v in judgments.values()]
    jcols = metrics.JudgmentColumns(
        query_ids=jq,
        qidx=np.repeat(np.arange(len(jq), dtype=np.int64), jcounts),
        ids=_encode([c for v in judgments.values() for c in v]),
        grades=np.array([g for v in judgments.values() for g in v.values()], dtype=np.int64),
    )
    rq = tuple(ranking)
    counts = np.array([len(v) for v in ranking.values()], dtype=np.int64)
    total = int(counts.sum())
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    rcols = metrics.RankingColumns(
        query_ids=rq,
        qidx=np.repeat(np.arange(len(rq), dtype=np.int64), counts),
        ids=_encode([c for v in ranking.values() for c in v]),
        scores=np.full(total, math.nan),
        ranks=np.arange(total, dtype=np.int64) - starts + 1,
    )
    return jcols, rcols


def prepare_run(
    items: Sequence[GoldItem],
    rows: Mapping[str, ResultRow],
    mode: str,
    places: Mapping[str, ChunkPlace] | None = None,
) -> Prepared:
    judgments, ranking = match(items, rows, mode, places)
    jcols, rcols = _columns(judgments, ranking)
    return Prepared(metrics.prepare(jcols, rcols, order="rank"), judgments, ranking)


def _span_key(
    chunk_id: str, given_doc: str | None, item: GoldItem, places: Mapping[str, ChunkPlace]
) -> str:
    if any(j.chunk_id == chunk_id for j in item.judgments):
        return chunk_id
    place = places.get(chunk_id)
    if place is None or place.start is None or place.end is None:
        return chunk_id
    doc = given_doc or place.doc_id
    best: GoldJudgment | None = None
    for j in item.judgments:
        if j.start is None or j.end is None or j.doc_id != doc:
            continue
        overlaps = spans_overlap(place.start, place.end, j.start, j.end)
        if overlaps and (best is None or j.grade > best.grade):
            best = j
    return best.chunk_id if best is not None else chunk_id


def strict_json(value: Any) -> Any:
    """``value`` as strict JSON data: every NaN or infinite float (a mean over no query, a
    ratio of nothing) becomes ``None``, numpy scalars become Python numbers, tuples lists.
    Reports are passed through it where they are assembled, so none holds a NaN."""
    if isinstance(value, dict):
        return {k: strict_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [strict_json(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# --------------------------------------------------------------------------------------------
# Scoring


def score(
    items: Sequence[GoldItem],
    rows: Mapping[str, ResultRow],
    s: RunSettings,
    places: Mapping[str, ChunkPlace] | None = None,
    threshold: int | None = None,
    metric_names: Sequence[str] | None = None,
    prepared: Prepared | None = None,
) -> Scored:
    p = prepared or prepare_run(items, rows, s.matching, places)
    result = metrics.evaluate(
        p.arrays, None, metric_names or s.metric_names(), s.eval_settings(threshold)
    )
    return Scored(result, p.arrays, p.judgments, p.ranking)


def json_number(x: float) -> float | None:
    """A figure as strict JSON: ``None`` for NaN (a mean over no query)."""
    return None if x != x else float(x)


def aggregate_json(
    aggs: Mapping[str, metrics.Aggregate],
) -> dict[str, dict[str, float | int | None]]:
    """Each metric's mean with its bootstrap CI and query count, as every report gives them
    (the app's, ``goldsmith eval``'s and the run command's)."""
    return {
        m: {
            "mean": json_number(a.mean),
            "ci_low": json_number(a.ci_low),
            "ci_high": json_number(a.ci_high),
            "n": a.n,
        }
        for m, a in aggs.items()
    }


def settings_json(es: metrics.EvalSettings) -> dict[str, Any]:
    """How the figures were computed, as every report states it: the scoring settings and
    the queries the means are over."""
    return {**es.as_dict(), "means_over": es.means_over()}


def group_samples(samples: int, n_queries: int) -> int:
    """Bootstrap resamples for per-category and per-stratum CIs: all of them up to 2,000
    queries, then fewer (never under 200)."""
    return min(samples, max(200, 2_000_000 // max(n_queries, 1)))


def _subset(result: metrics.EvalResult, names: Sequence[str]) -> metrics.EvalResult:
    cols = [result.metrics.index(m) for m in names]
    return replace(result, metrics=tuple(names), values=result.values[:, cols])


def _groups(
    result: metrics.EvalResult,
    labels: Mapping[str, str | None],
    weights: Mapping[str, float] | None,
    agg_kw: Mapping[str, Any],
) -> dict[str, dict[str, dict[str, float | int | None]]]:
    """Aggregates per group; nothing when every query is in the same group (no split)."""
    if len({labels.get(q) for q in result.query_ids}) < 2:
        return {}
    groups = metrics.by_category(result, labels, weights=weights, **agg_kw)
    return {c: aggregate_json(a) for c, a in groups.items()}


def _weights(items: Sequence[GoldItem]) -> dict[str, float] | None:
    ws = {i.query_id: float(i.weight) for i in items}
    return ws if len(set(ws.values())) > 1 else None


def latency_summary(values: Sequence[float | None]) -> dict[str, float | int | None]:
    """Percentiles of the retriever's latency (milliseconds), over the queries that have one."""
    v = np.asarray([x for x in values if x is not None and x == x], dtype=np.float64)
    if len(v) == 0:
        return {
            "n": 0,
            "p50": None,
            "p90": None,
            "p95": None,
            "p99": None,
            "max": None,
            "mean": None,
        }
    p50, p90, p95, p99 = np.percentile(v, [50, 90, 95, 99]).tolist()
    return {
        "n": len(v),
        "p50": p50,
        "p90": p90,
        "p95": p95,
        "p99": p99,
        "max": float(v.max()),
        "mean": float(v.mean()),
    }


def _snip(text: str | None) -> str | None:
    if text is None:
        return None
    text = " ".join(text.split())
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"


def build_report(
    items: Sequence[GoldItem],
    rows: Mapping[str, ResultRow],
    s: RunSettings,
    *,
    places: Mapping[str, ChunkPlace] | None = None,
    snippets: Callable[[Sequence[str]], Mapping[str, str]] | None = None,
    ranked_by: RankedBy = "retriever",
    corpus: CorpusState | None = None,
) -> dict[str, Any]:
    """The whole report as JSON-ready data (see the module docstring). ``ranked_by`` says how
    the stored lists were ordered (see :func:`ranking_note`); they are scored in that order.

    ``corpus``: the corpus the run ran against. When it differs from the one the golden set was
    judged on (a relevant chunk retired or changed), the report gains ``corpus``
    (:func:`corpus_report`): what the update did, the touched queries, and every metric over the
    untouched queries with its CI. A retrieved id that is not a live chunk is counted there as
    "not in the corpus", never as unjudged (judged@K and the unjudged count leave it out, with
    chunk-id matching). On an unchanged corpus whose every retrieved id is live the report is
    the one computed without ``corpus``."""
    k = s.headline_k
    prepared = prepare_run(items, rows, s.matching, places)
    strict = score(items, rows, s, prepared=prepared)
    other = 1 if s.relevance_threshold >= 2 else 2
    lenient = score(items, rows, s, threshold=other, prepared=prepared)
    effect: C.CorpusEffect | None = None
    not_live: dict[str, list[str]] = {}
    if corpus is not None:
        effect = corpus_effect_of(items, corpus)
        not_live = not_in_corpus(strict, rows, corpus.live, k, s.matching)
        if s.matching == "chunk" and any_outside(strict, corpus.live):
            strict = replace(strict, result=judged_in_corpus(strict, corpus.live))
            lenient = replace(lenient, result=judged_in_corpus(lenient, corpus.live))
    agg_kw: dict[str, Any] = {"samples": s.bootstrap_samples, "seed": s.seed}
    aggregate = aggregate_json(metrics.aggregate(strict.result, **agg_kw))
    weights = _weights(items)
    # Groups get CIs on the headline metrics only, and with fewer resamples on large sets
    # (the bootstrap's cost is in its draws): numbers then stay under a second at 10,000
    # queries. The overall means always use `bootstrap_samples`.
    heads = [f"{f}@{k}" for f in ("recall", "ndcg", "mrr", "hit", "pass")]
    head_result = _subset(strict.result, [m for m in heads if m in strict.result.metrics])
    group_kw = {**agg_kw, "samples": group_samples(s.bootstrap_samples, len(items))}
    by_category = _groups(head_result, {i.query_id: i.category for i in items}, None, group_kw)
    by_stratum = _groups(head_result, {i.query_id: i.stratum for i in items}, weights, group_kw)
    weighted = None
    if weights:
        weighted = aggregate_json(metrics.aggregate(strict.result, weights=weights, **agg_kw))
    latency = latency_summary([r.latency_ms for r in rows.values() if not r.error])
    topk = topk_report(strict.arrays, s, latency)
    hist = metrics.histogram(strict.result, f"recall@{k}")
    failed = sorted(q for q, r in rows.items() if r.error)
    golden_ids = {i.query_id for i in items}
    report: dict[str, Any] = {
        "settings": {
            **settings_json(s.eval_settings()),
            "ks": sorted(set(s.ks)),
            "matching": s.matching,
            "headline_k": k,
            "lenient_threshold": other,
            "bootstrap_samples": s.bootstrap_samples,
            "group_bootstrap_samples": group_kw["samples"],
        },
        "counts": {
            "queries": len(items),
            "included": int(strict.result.included.sum()),
            "no_relevant": len(strict.result.no_relevant),
            "failed": len(failed),
            "missing": len(strict.result.missing_from_run),
            "answered": sum(1 for q, r in rows.items() if q in golden_ids and not r.error),
        },
        "aggregate": aggregate,
        "lenient": aggregate_json(metrics.aggregate(lenient.result, samples=0)),
        "weighted": weighted,
        "by_category": by_category,
        "by_stratum": by_stratum,
        "curve": {
            "ks": topk["ks"],
            "recall": topk["means"]["recall"],
            "ndcg": topk["means"]["ndcg"],
        },
        "histogram": {"edges": list(hist.edges), "counts": list(hist.counts)},
        "excluded": {"no_relevant": list(strict.result.no_relevant)},
        "failed_queries": [{"query_id": q, "error": rows[q].error} for q in failed[:100]],
        "latency": latency,
        "topk": topk,
    }
    report["low_queries"] = diagnose(items, rows, strict, s, snippets=snippets)
    report["unjudged_top_k"] = unjudged_count(strict.arrays, k)
    if corpus is not None and effect is not None and (effect.stale or not_live):
        if s.matching == "chunk":
            report["unjudged_top_k"] -= sum(
                1
                for q, ids in not_live.items()
                for c in ids
                if c not in strict.judgments.get(q, {})
            )
        report["corpus"] = corpus_report(items, strict.result, effect, corpus, not_live, k, agg_kw)
    report["low_recall"] = {
        "metric": f"recall@{k}",
        "cutoff": s.low_recall_cutoff,
        "count": len(metrics.low_queries(strict.result, f"recall@{k}", s.low_recall_cutoff)),
        "listed": len(report["low_queries"]),
    }
    report["hints"] = hints(report)
    report["ranking"] = ranking_note(rows, ranked_by)
    report["warnings"] = threshold_warnings(items, s.relevance_threshold)
    return report


# --------------------------------------------------------------------------------------------
# The corpus the run ran against (docs/design.md, "Corpus versions")

TOUCHED_LISTED = 100  # touched queries a report lists with their chunks


def not_in_corpus(
    scored: Scored,
    rows: Mapping[str, ResultRow],
    live: Mapping[str, C.LiveChunk],
    k: int,
    matching: str,
) -> dict[str, list[str]]:
    """Query id → the retrieved ids of its top ``k`` (first occurrences) that are not live
    chunks of the corpus; queries with none are absent."""
    out: dict[str, list[str]] = {}
    for q in scored.result.query_ids:
        if matching == "chunk":
            ranked = scored.ranking.get(q, [])
        else:
            row = rows.get(q)
            ranked = list(row.ids) if row is not None and not row.error else []
        outside = [c for c in list(dict.fromkeys(ranked))[:k] if c not in live]
        if outside:
            out[q] = outside
    return out


def any_outside(scored: Scored, live: Collection[str]) -> bool:
    """Whether any ranked id, at any depth, is not a live chunk of the corpus."""
    return any(c not in live for ranked in scored.ranking.values() for c in ranked)


def judged_in_corpus(scored: Scored, live: Collection[str]) -> metrics.EvalResult:
    """``scored.result`` with every judged@K among the chunks of the corpus: an unjudged id
    that is not in ``live`` (retired, or never a chunk) is left out of the top K's count, at
    every K, instead of counting as unjudged. judged@K = judged in the top min(K, n) /
    (min(K, n) − unjudged ids not live); 0 when nothing was returned (as judged@K), 1 when
    every id returned is outside."""
    result = scored.result
    cols = [
        (j, metrics.parse_metric(m).k)
        for j, m in enumerate(result.metrics)
        if metrics.parse_metric(m).family == "judged"
    ]
    if not cols:
        return result
    values = result.values.copy()
    for r, q in enumerate(result.query_ids):
        if not result.included[r]:
            continue
        ranked = list(dict.fromkeys(scored.ranking.get(q, [])))
        graded = scored.judgments.get(q, {})
        for j, k in cols:
            top = ranked if k is None else ranked[:k]
            judged = sum(1 for c in top if c in graded)
            shown = len(top) - sum(1 for c in top if c not in graded and c not in live)
            if not top:
                values[r, j] = 0.0  # nothing returned, as judged@K says
            else:  # a top K wholly outside the corpus holds nothing unjudged
                values[r, j] = judged / shown if shown > 0 else 1.0
    return replace(result, values=values)


def corpus_report(
    items: Sequence[GoldItem],
    result: metrics.EvalResult,
    effect: C.CorpusEffect,
    state: CorpusState,
    not_live: Mapping[str, Sequence[str]],
    k: int,
    agg_kw: Mapping[str, Any],
) -> dict[str, Any]:
    """The report's ``corpus`` part: the versions (labels), what the update did to the golden
    set's relevant chunks (grade ≥ 1), the touched queries (all ids, and the first
    ``TOUCHED_LISTED`` with their retired and changed chunks), every metric over the untouched
    queries with its CI (equal to a report on the golden set restricted to them), the ids
    retrieved that are not in the corpus, and the sentences (:func:`corpus_words`)."""
    texts = {i.query_id: i.text for i in items}
    touched = sorted(effect.touched)
    untouched = metrics.restrict(result, effect.untouched)
    outside = sorted({c for ids in not_live.values() for c in ids})
    section: dict[str, Any] = {
        "stale": effect.stale,
        "label": state.label,
        "judged_on": state.judged_on,
        "ran_on": state.ran_on,
        "assumed": state.assumed,
        "ids_only": state.ids_only,
        "relevant_total": effect.relevant_total,
        "relevant_retired": effect.relevant_retired,
        "relevant_changed": effect.relevant_changed,
        "relevant_carried": effect.relevant_carried,
        "unknown_text": effect.unknown_text,
        "touched": touched,
        "touched_queries": [
            {
                "query_id": q,
                "text": texts.get(q, ""),
                "retired": effect.queries[q].chunks("retired"),
                "changed": effect.queries[q].chunks("changed"),
            }
            for q in touched[:TOUCHED_LISTED]
        ],
        "untouched": {
            "queries": len(untouched.query_ids),
            "included": int(untouched.included.sum()),
            "no_relevant": len(untouched.no_relevant),
            "aggregate": aggregate_json(metrics.aggregate(untouched, **agg_kw)),
        },
        "headline_k": k,
        "not_in_corpus": {
            "count": sum(len(v) for v in not_live.values()),
            "queries": len(not_live),
            "examples": outside[:10],
        },
    }
    section["words"] = [str(t) for t in corpus_words(section)]
    return section


def corpus_words(section: Mapping[str, Any]) -> list[Text]:
    """The ``corpus`` part of a report in sentences, from its figures (the apps say them again
    in the reader's language): what the update did, first; the headline recall over the
    untouched queries; where the run's corpus is assumed; the ids not in the corpus."""
    out: list[Text] = []
    label = section.get("label") or "the golden set"
    before, after = section.get("judged_on"), section.get("ran_on")
    values = {
        "label": label,
        "total": section["relevant_total"],
        "retired": section["relevant_retired"],
        "changed": section["relevant_changed"],
        "before": before,
        "after": after,
    }
    if section.get("stale"):
        known = before is not None and after is not None
        if section.get("ids_only"):
            out.append(
                say(
                    "%(retired)s of %(label)s's %(total)s relevant chunks were retired since "
                    "%(label)s was judged (corpus version %(before)s → %(after)s); the corpus "
                    "was given as chunk ids only, so changed texts cannot be seen.",
                    **values,
                )
                if known
                else say(
                    "%(retired)s of %(label)s's %(total)s relevant chunks were retired since "
                    "%(label)s was judged; the corpus was given as chunk ids only, so changed "
                    "texts cannot be seen.",
                    **values,
                )
            )
        elif known:
            out.append(
                say(
                    "%(retired)s of %(label)s's %(total)s relevant chunks were retired and "
                    "%(changed)s changed since %(label)s was judged (corpus version %(before)s "
                    "→ %(after)s).",
                    **values,
                )
            )
        else:
            out.append(
                say(
                    "%(retired)s of %(label)s's %(total)s relevant chunks were retired and "
                    "%(changed)s changed since %(label)s was judged.",
                    **values,
                )
            )
        k = section["headline_k"]
        untouched = section["untouched"]
        a = untouched["aggregate"].get(f"recall@{k}") or {}
        out.append(
            say(
                "%(n)s queries were touched by the update: their relevant chunks moved, so "
                "their scores say nothing of the retriever; the verdict and the drift rules "
                "read the other %(m)s only.",
                n=len(section["touched"]),
                m=untouched["queries"],
            )
        )
        if a.get("mean") is not None:
            out.append(
                say(
                    "On the %(n)s queries the update did not touch: Recall@%(k)s %(value)s.",
                    n=untouched["queries"],
                    k=k,
                    value=f"{a['mean']:.3f}",
                )
            )
    if section.get("assumed") and after is not None:
        out.append(
            say(
                "The run is taken to have searched the corpus as it was at run time (corpus "
                "version %(after)s): the retriever does not say which corpus it searched.",
                after=after,
            )
        )
    elif section.get("assumed"):
        out.append(
            say(
                "The run is taken to have searched the corpus as it was at run time: the "
                "retriever does not say which corpus it searched."
            )
        )
    outside = section.get("not_in_corpus") or {}
    if outside.get("count"):
        out.append(
            say(
                "%(n)s retrieved ids in the top %(k)s are not in the corpus (e.g. %(ids)s): "
                "they are counted apart, not as unjudged.",
                n=outside["count"],
                k=section["headline_k"],
                ids=", ".join(outside.get("examples") or []),
            )
        )
    return out


RankedBy = Literal["retriever", "score"]
RANKED_BY_TEXT = {
    "score": say(
        "by score (compared in 32 bits, as trec_eval holds scores), ties by id descending "
        "(trec_eval's rule), as the built-in retriever returns its lists"
    ),
    "retriever": say("as the retriever returned it (its ranks), not re-sorted by score"),
}


def lists_not_in_score_order(rows: Mapping[str, ResultRow]) -> list[str]:
    """The queries whose stored list trec_eval would order differently from its own scores
    (:func:`goldsmith.formats.trec.in_trec_eval_order`, after dropping repeated ids): ties not by id
    descending, scores that rise along the list, or missing scores. Sorted by query id."""
    out: list[str] = []
    flat: list[tuple[str, ResultRow]] = []
    for q, r in rows.items():
        if r.error or not r.ids:
            continue
        if len(r.scores) < len(r.ids) or None in r.scores:
            if not trec_list_in_order(q, r.ids, r.scores).scores_kept:
                out.append(q)
        else:
            flat.append((q, r))
    if flat:
        # Vectorised over every list at once: a list whose every neighbour pair is in order is
        # in order (also once repeated ids are dropped); only equal neighbours compare ids.
        counts = np.array([len(r.ids) for _, r in flat])
        scores = np.fromiter(
            chain.from_iterable(r.scores[: len(r.ids)] for _, r in flat),
            dtype=np.float64,
            count=int(counts.sum()),
        )
        owner = np.repeat(np.arange(len(flat)), counts)
        same = owner[1:] == owner[:-1]
        bad = np.zeros(len(flat), dtype=bool)
        bad[owner[~np.isfinite(scores)]] = True
        held = metrics.trec_eval_scores(scores)  # compared as trec_eval holds them
        bad[owner[1:][same & (held[1:] > held[:-1])]] = True
        tied = np.flatnonzero(same & (held[1:] == held[:-1])).tolist()
        if tied:
            # Python orders str by code point, the order of their UTF-8 bytes (strcmp's).
            ids = list(chain.from_iterable(r.ids for _, r in flat))
            wrong = [i for i in tied if ids[i] <= ids[i + 1]]
            bad[owner[np.array(wrong, dtype=np.int64)]] = True
        for j in np.flatnonzero(bad).tolist():
            q, r = flat[j]
            if (
                len(set(r.ids)) == len(r.ids)
                or not trec_list_in_order(q, r.ids, r.scores).scores_kept
            ):
                out.append(q)
    return sorted(out)


def ranking_note(rows: Mapping[str, ResultRow], ranked_by: RankedBy) -> dict[str, Any]:
    """How the lists were ordered for scoring, and how many of them trec_eval would order
    differently from their scores (a saved run then writes 1/rank for those: docs/formats.md,
    "Saved runs")."""
    differ = lists_not_in_score_order(rows)
    return {
        "ranked_by": ranked_by,
        "text": RANKED_BY_TEXT[ranked_by],
        "not_in_score_order": len(differ),
        "examples": differ[:5],
    }


def threshold_warnings(items: Sequence[GoldItem], threshold: int) -> list[Text]:
    """A warning when no judgment of the golden set reaches the relevance threshold: every
    query would then be left out of the means ("no relevant chunk") without anything else
    saying why (e.g. TREC qrels that mark relevant with 1, under the default threshold 2)."""
    grades = [j.grade for i in items for j in i.judgments]
    if not grades or max(grades) >= threshold:
        return []
    top = max(grades)
    if top < 1:
        return [
            say(
                "no judgment reaches the relevance threshold %(threshold)s (the highest grade "
                "is %(top)s): no query has a relevant chunk, so every query is left out of the "
                "means",
                threshold=threshold,
                top=top,
            )
        ]
    return [
        say(
            "no judgment reaches the relevance threshold %(threshold)s (the highest grade is "
            "%(top)s): no query has a relevant chunk, so every query is left out of the means; "
            "evaluate with relevance threshold %(top)s if grade %(top)s means relevant here",
            threshold=threshold,
            top=top,
        )
    ]


def unjudged_count(arrays: metrics.EvalArrays, k: int) -> int:
    """How many unjudged chunks the top ``k`` lists hold (after duplicates are dropped)."""
    top = arrays.grades[:, :k]
    shown = np.arange(top.shape[1])[None, :] < arrays.lengths[:, None]
    return int((np.isnan(top) & shown).sum())


def unjudged_pairs(scored: Scored, k: int) -> list[tuple[str, str]]:
    """(query id, matched key) of every unjudged chunk in a top ``k`` (first occurrence)."""
    out: list[tuple[str, str]] = []
    for q, ranked in scored.ranking.items():
        judged = scored.judgments.get(q, {})
        seen: set[str] = set()
        for key in ranked:
            if key in seen:
                continue
            seen.add(key)
            if len(seen) > k:
                break
            if key not in judged:
                out.append((q, key))
    return out


def diagnose(
    items: Sequence[GoldItem],
    rows: Mapping[str, ResultRow],
    scored: Scored,
    s: RunSettings,
    *,
    snippets: Callable[[Sequence[str]], Mapping[str, str]] | None = None,
    limit: int = LOW_QUERY_LIMIT,
) -> list[dict[str, Any]]:
    """The queries whose Recall@K (headline K) is below ``s.low_recall_cutoff`` (a cut-off of
    its own, 0.2 by default, not the pass threshold), worst first, at most ``limit``, each with
    the relevant chunks it missed (and the rank they came at, beyond K, if they came at all),
    the top non-relevant chunks and the unjudged chunks of its top K."""
    k = s.headline_k
    thr = s.relevance_threshold
    low = metrics.low_queries(scored.result, f"recall@{k}", s.low_recall_cutoff)[:limit]
    by_id = {i.query_id: i for i in items}
    out: list[dict[str, Any]] = []
    wanted: set[str] = set()
    for qid, value in low:
        item = by_id[qid]
        judged = scored.judgments.get(qid, {})
        ranked: list[str] = []
        for key in dict.fromkeys(scored.ranking.get(qid, [])):
            ranked.append(key)
        raw = rows.get(qid)
        raw_ids = list(raw.ids) if raw else []
        texts = {j.chunk_id: j.text for j in item.judgments}
        missed = [
            {
                "id": key,
                "grade": grade,
                "rank": (ranked.index(key) + 1) if key in ranked else None,
                "snippet": _snip(texts.get(key)),
            }
            for key, grade in sorted(judged.items(), key=lambda kv: (-kv[1], kv[0]))
            if grade >= thr and key not in ranked[:k]
        ]
        top = ranked[:k]
        nonrel: list[dict[str, Any]] = [
            {"id": key, "rank": r, "grade": judged[key]}
            for r, key in enumerate(top, 1)
            if key in judged and judged[key] < thr
        ][:5]
        unjudged: list[dict[str, Any]] = [
            {"id": key, "rank": r} for r, key in enumerate(top, 1) if key not in judged
        ]
        given = dict(zip(raw_ids, raw.snippets, strict=False)) if raw else {}
        for entry in nonrel + unjudged:
            entry["snippet"] = _snip(given.get(entry["id"]) or texts.get(entry["id"]))
            if entry["snippet"] is None:
                wanted.add(entry["id"])
        out.append(
            {
                "query_id": qid,
                "text": item.text,
                "category": item.category,
                "recall": value,
                "error": raw.error if raw else "missing from the run",
                "missed": missed,
                "non_relevant": nonrel,
                "unjudged": unjudged,
            }
        )
    if snippets is not None and wanted:
        found = snippets(sorted(wanted))
        for q in out:
            for entry in q["non_relevant"] + q["unjudged"]:
                if entry["snippet"] is None and entry["id"] in found:
                    entry["snippet"] = _snip(found[entry["id"]])
    return out


# --------------------------------------------------------------------------------------------
# Top-K choice and hints


def topk_report(
    arrays: metrics.EvalArrays, s: RunSettings, latency: Mapping[str, Any]
) -> dict[str, Any]:
    """The top-K choice of a report: the mean of every family of ``metrics.TOPK_FAMILIES`` at
    each K of ``metrics.sweep_ks`` up to the depth the retriever was asked for (the run's
    largest K), the weighted score at each K with the project's scenario and weights, the best
    K, and the latency beside it (:func:`topk_latency`). NaN means are ``None``."""
    depth = max(s.ks)
    weights = metrics.topk_weights(s.topk_scenario, s.topk_weights)
    sweep = metrics.topk_sweep(arrays, metrics.sweep_ks(depth, s.ks), s.eval_settings(), weights)
    return topk_json(sweep, s.topk_scenario, depth, latency)


def topk_json(
    sweep: metrics.TopKSweep, scenario: str, depth: int, latency: Mapping[str, Any]
) -> dict[str, Any]:
    """A top-K sweep as JSON, the same in a report and in ``goldsmith eval --sweep``."""
    return {
        "scenario": scenario or metrics.DEFAULT_TOPK_SCENARIO,
        "weights": dict(sweep.weights),
        "ks": list(sweep.ks),
        "n": sweep.n,
        "means": {f: [json_number(x) for x in v] for f, v in sweep.means.items()},
        "score": [json_number(x) for x in sweep.score],
        "best_k": sweep.best_k,
        "depth": depth,
        "latency": topk_latency(latency, depth),
    }


def topk_reweigh(
    topk: Mapping[str, Any], scenario: str, overrides: Mapping[str, float] | None
) -> dict[str, Any]:
    """A report's top-K choice scored again with other weights, from its stored means (the
    weights are a view of the means: changing them needs no new run). Raises ValueError on bad
    weights; a stored choice that lacks a weighted family is returned as it was."""
    weights = metrics.topk_weights(scenario, overrides)
    if not set(weights) <= set(topk.get("means", {})):
        return dict(topk)
    means = {f: [math.nan if x is None else x for x in v] for f, v in topk["means"].items()}
    score, best = metrics.topk_score(topk["ks"], means, weights)
    return {
        **topk,
        "scenario": scenario or metrics.DEFAULT_TOPK_SCENARIO,
        "weights": weights,
        "score": [json_number(x) for x in score],
        "best_k": best,
    }


def topk_latency(latency: Mapping[str, Any], depth: int) -> dict[str, Any]:
    """Latency beside the top-K table. A retriever is called once per query for its top
    ``depth``, and every K of the table is a cut of that one list: no retriever reports a
    latency per K, so ``per_k`` is None and the measured latency (of the call for K = depth)
    is given once, with the reason in words."""
    if latency.get("n"):
        why = say(
            "each query was one call for its top %(depth)s, and every K is a cut of that list: "
            "the latency of a smaller K was not measured (it would need one call per K)",
            depth=depth,
        )
    else:
        why = say("no latency was recorded (a run file carries none)")
    return {
        "per_k": None,
        "at_k": depth,
        "n": latency.get("n", 0),
        "p50": latency.get("p50"),
        "p95": latency.get("p95"),
        "why": why,
    }


@dataclass(frozen=True)
class HintLimits:
    """Where the rule-based hints of a report fire. Every figure is a mean at the headline K.

    - ``low_recall`` 0.6: mean Recall@K below it is low. 0.6 is the target of the most lenient
      preset (messy documents): no preset accepts less.
    - ``well_judged`` 0.8: judged@K at or above it means the golden set has graded most of
      what the retriever shows, so its misses are its own and not unjudged chunks scored as
      not relevant. Below it, judging comes before tuning.
    - ``recall_ok`` 0.7: mean Recall@K at or above it is fine (the enterprise preset's floor
      and pass threshold).
    - ``low_mrr`` 0.5: MRR@K below it means the first relevant chunk comes, on the harmonic
      mean, below rank 2: the right chunks are found but ranked low.
    - ``category_gap`` 0.15: a category whose mean Recall@K is at least this far below the
      mean of all the other queries is far below them (0.15 is the width of a preset's fair
      band); its 95% CI must also lie below the others' mean, when a CI was computed.
    - ``category_min_queries`` 5: a category with fewer scored queries is too small to tell.
    """

    low_recall: float = 0.6
    well_judged: float = 0.8
    recall_ok: float = 0.7
    low_mrr: float = 0.5
    category_gap: float = 0.15
    category_min_queries: int = 5


HINT_LIMITS = HintLimits()


def hints(report: Mapping[str, Any], limits: HintLimits = HINT_LIMITS) -> list[dict[str, Any]]:
    """Rule-based advice from a report's own figures (pure: the report dict in, JSON out), each
    with the figures that fired it and the limits they were held against:

    - ``judge_first``: low recall and low judged@K: the unjudged chunks may be relevant.
    - ``chunking_or_query_rewriting``: low recall although the top K is well judged.
    - ``reranking``: recall fine but MRR low.
    - ``category``: one per category far below the other queries, worst first.
    - ``rejudge_touched`` (first): a corpus update touched queries of the golden set; the
      other rules then read the untouched queries' figures, so none blames the retriever for
      a chunk it cannot return.
    """
    k = report["settings"]["headline_k"]
    agg = report.get("aggregate") or {}
    out: list[dict[str, Any]] = []
    stale = report.get("corpus") or {}
    if stale.get("stale"):
        agg = stale["untouched"]["aggregate"]
        n = len(stale["touched"])
        out.append(
            {
                "rule": "rejudge_touched",
                "title": say("Re-judge the queries the corpus update touched"),
                "detail": say(
                    "%(n)s queries have relevant chunks that were retired or changed since the "
                    "golden set was judged: their grades no longer describe the corpus, so they "
                    "are left out of the verdict and the drift rules. Re-judge them (a refresh "
                    "of the version on the current corpus) and freeze the next version.",
                    n=n,
                ),
                "figures": {
                    "touched": n,
                    "relevant_retired": stale["relevant_retired"],
                    "relevant_changed": stale["relevant_changed"],
                },
                "limits": {},
            }
        )

    def mean(metric: str) -> float | None:
        a = agg.get(metric)
        return None if a is None else a.get("mean")

    recall, judged, mrr = mean(f"recall@{k}"), mean(f"judged@{k}"), mean(f"mrr@{k}")
    if recall is not None and judged is not None and recall < limits.low_recall:
        figures = {f"recall@{k}": recall, f"judged@{k}": judged}
        if judged >= limits.well_judged:
            out.append(
                {
                    "rule": "chunking_or_query_rewriting",
                    "title": say("Look at chunking or query rewriting"),
                    "detail": say(
                        "Recall@%(k)s is %(recall)s (below %(low)s) while %(judged)s of the top "
                        "%(k)s is judged (at least %(well)s): the relevant chunks are known and "
                        "the retriever does not bring them. Chunks that hold one answer each (or "
                        "overlap), or queries rewritten towards the documents' words "
                        "(expansion, synonyms, splitting multi-part questions), usually help.",
                        k=k,
                        recall=f"{recall:.2f}",
                        low=f"{limits.low_recall:.2f}",
                        judged=f"{judged:.0%}",
                        well=f"{limits.well_judged:.0%}",
                    ),
                    "figures": figures,
                    "limits": {"low_recall": limits.low_recall, "well_judged": limits.well_judged},
                }
            )
        else:
            out.append(
                {
                    "rule": "judge_first",
                    "title": say("Judge the unjudged chunks before tuning"),
                    "detail": say(
                        "Recall@%(k)s is %(recall)s (below %(low)s) but only %(judged)s of the "
                        "top %(k)s is judged (under %(well)s): the %(unjudged)s unjudged chunks "
                        "count as not relevant, so the golden set cannot tell yet whether the "
                        "retriever or the judgments are short. Send them to the annotation "
                        "pools.",
                        k=k,
                        recall=f"{recall:.2f}",
                        low=f"{limits.low_recall:.2f}",
                        judged=f"{judged:.0%}",
                        well=f"{limits.well_judged:.0%}",
                        unjudged=report.get("unjudged_top_k", 0),
                    ),
                    "figures": {**figures, "unjudged_top_k": report.get("unjudged_top_k", 0)},
                    "limits": {"low_recall": limits.low_recall, "well_judged": limits.well_judged},
                }
            )
    recall_ok = recall is not None and recall >= limits.recall_ok
    if recall_ok and mrr is not None and mrr < limits.low_mrr:
        out.append(
            {
                "rule": "reranking",
                "title": say("Add or tune a reranker"),
                "detail": say(
                    "Recall@%(k)s is %(recall)s (at least %(ok)s) but MRR@%(k)s is %(mrr)s "
                    "(below %(low)s): the relevant chunks are found but not ranked first. A "
                    "reranker over the top candidates (e.g. a cross-encoder) or a hybrid score "
                    "moves them up.",
                    k=k,
                    recall=f"{recall:.2f}",
                    ok=f"{limits.recall_ok:.2f}",
                    mrr=f"{mrr:.2f}",
                    low=f"{limits.low_mrr:.2f}",
                ),
                "figures": {f"recall@{k}": recall, f"mrr@{k}": mrr},
                "limits": {"recall_ok": limits.recall_ok, "low_mrr": limits.low_mrr},
            }
        )
    if not stale.get("stale"):  # the categories' figures are over every query
        out.extend(_category_hints(report, k, recall, limits))
    return out


def _category_hints(
    report: Mapping[str, Any], k: int, overall: float | None, limits: HintLimits
) -> list[dict[str, Any]]:
    """Categories far below the others. The others' mean is derived exactly from the overall
    mean and the category's (the categories split the scored queries)."""
    metric = f"recall@{k}"
    total = ((report.get("aggregate") or {}).get(metric) or {}).get("n") or 0
    found: list[dict[str, Any]] = []
    if overall is None or not total:
        return found
    for name, aggs in (report.get("by_category") or {}).items():
        a = aggs.get(metric) or {}
        n, m = a.get("n") or 0, a.get("mean")
        if m is None or n < limits.category_min_queries or n >= total:
            continue
        others = (overall * total - m * n) / (total - n)
        gap = others - m
        ci_high = a.get("ci_high")
        if gap < limits.category_gap or (ci_high is not None and ci_high >= others):
            continue
        found.append(
            {
                "rule": "category",
                "title": say("Fix category “%(name)s” on its own", name=name),
                "detail": say(
                    "Category “%(name)s” has Recall@%(k)s %(recall)s over %(n)s queries, "
                    "%(gap)s below the other %(others_n)s queries (%(others)s; the limit is a "
                    "gap of %(limit)s). A change for every query will not close it: read its "
                    "low-recall queries: missing documents, its own vocabulary, or documents "
                    "that chunk badly (tables, long pages) are the usual causes.",
                    name=name,
                    k=k,
                    recall=f"{m:.2f}",
                    n=n,
                    gap=f"{gap:.2f}",
                    others_n=total - n,
                    others=f"{others:.2f}",
                    limit=f"{limits.category_gap:.2f}",
                ),
                "figures": {
                    "category": name,
                    metric: m,
                    "n": n,
                    "ci_low": a.get("ci_low"),
                    "ci_high": ci_high,
                    f"others_{metric}": others,
                    "others_n": total - n,
                    "gap": gap,
                },
                "limits": {
                    "category_gap": limits.category_gap,
                    "category_min_queries": limits.category_min_queries,
                },
            }
        )
    return sorted(found, key=lambda h: -h["figures"]["gap"])


# --------------------------------------------------------------------------------------------
# Comparison and drift


def compare_runs(
    items: Sequence[GoldItem],
    rows_a: Mapping[str, ResultRow],
    rows_b: Mapping[str, ResultRow],
    s: RunSettings,
    *,
    places: Mapping[str, ChunkPlace] | None = None,
    permutations: int = 10_000,
) -> dict[str, Any]:
    """B against A on the same golden set: per-metric differences with CI and p-values
    (randomization and paired t, Holm-corrected), wins/ties/losses, the queries whose Recall@K
    (headline K) got worse (worst first) and better (largest gain first) with their figures
    (:func:`query_change_lists`), the per-query Recall@K pairs for a scatter plot, and
    per-category differences of the means."""
    k = s.headline_k
    a = score(items, rows_a, s, places)
    b = score(items, rows_b, s, places)
    comps = metrics.compare(
        a.result, b.result, samples=s.bootstrap_samples, permutations=permutations, seed=s.seed
    )
    recall = f"recall@{k}"
    ja, jb = a.result.metrics.index(recall), b.result.metrics.index(recall)
    both = a.result.included & b.result.included
    scatter = [
        {"query_id": q, "a": float(va), "b": float(vb)}
        for q, va, vb, inc in zip(
            a.result.query_ids, a.result.values[:, ja], b.result.values[:, jb], both, strict=True
        )
        if inc
    ]
    cats = {i.query_id: i.category for i in items}
    ca = metrics.by_category(a.result, cats, samples=0)
    cb = metrics.by_category(b.result, cats, samples=0)
    per_category = {
        c: {
            m: {"a": ca[c][m].mean, "b": cb[c][m].mean, "diff": cb[c][m].mean - ca[c][m].mean}
            for m in (recall, f"ndcg@{k}", f"pass@{k}")
        }
        | {"n": ca[c][recall].n}
        for c in sorted(set(ca) & set(cb))
    }

    return {
        "headline_k": k,
        "metrics": [
            {
                "metric": c.metric,
                "n": c.n,
                "mean_a": json_number(c.mean_a),
                "mean_b": json_number(c.mean_b),
                "diff": json_number(c.diff),
                "ci_low": json_number(c.ci_low),
                "ci_high": json_number(c.ci_high),
                "p_randomization": json_number(c.p_randomization),
                "p_ttest": json_number(c.p_ttest),
                "p_holm": json_number(c.p_holm),
                "wins": c.wins,
                "ties": c.ties,
                "losses": c.losses,
            }
            for c in comps
        ],
        "changes": query_change_lists(items, a.result, b.result, recall, f"ndcg@{k}"),
        "scatter": scatter,
        "per_category": per_category,
    }


def query_change_lists(
    items: Sequence[GoldItem],
    a: metrics.EvalResult,
    b: metrics.EvalResult,
    metric: str,
    also: str | None = None,
) -> dict[str, Any]:
    """The queries whose ``metric`` got worse from A to B (worst first) and better (largest
    gain first), as :func:`goldsmith.metrics.query_changes` orders them, each with its text,
    category, the metric in A and B, B − A and, when ``also`` is given, that metric in A and B
    (e.g. nDCG@K beside Recall@K, to show a change of rank within an unchanged recall)."""
    changes = metrics.query_changes(a, b, metric)
    by_id = {i.query_id: i for i in items}
    row_of = {q: r for r, q in enumerate(a.query_ids)}
    ja = a.metrics.index(also) if also else None
    jb = b.metrics.index(also) if also else None

    def entry(c: metrics.QueryChange) -> dict[str, Any]:
        item = by_id.get(c.query_id)
        out: dict[str, Any] = {
            "query_id": c.query_id,
            "text": item.text if item else "",
            "category": item.category if item else None,
            "a": c.a,
            "b": c.b,
            "diff": c.diff,
        }
        if ja is not None and jb is not None:
            r = row_of[c.query_id]
            out["also_a"] = float(a.values[r, ja])
            out["also_b"] = float(b.values[r, jb])
        return out

    return {
        "metric": metric,
        "also": also,
        "n": changes.n,
        "worse_count": len(changes.worse),
        "better_count": len(changes.better),
        "ties": changes.ties,
        "worse": [entry(c) for c in changes.worse],
        "better": [entry(c) for c in changes.better],
    }


def drift(
    current: Scored, baseline: Scored | None, rules: metrics.DriftRules
) -> metrics.DriftReport:
    return metrics.check_drift(current.result, baseline.result if baseline else None, rules)
