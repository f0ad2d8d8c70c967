"""Judging effort on Cranfield and CISI: how many judgments each order needs to find the pool's
relevant chunks, and what the stopping rule saves and costs (issue 22).

Usage (no database, no Django):

    .venv/bin/python bench/judging_effort_bench.py                  # the tables, markdown
    .venv/bin/python bench/judging_effort_bench.py --format json    # one JSON object
    .venv/bin/python bench/judging_effort_bench.py --collections cranfield
    .venv/bin/python bench/judging_effort_bench.py --json-out var/judging_effort.json  # both

The collections (`../shared/data`, or $GOLDSMITH_SHARED_DATA; read their PROVENANCE.md):

- Cranfield: 1,400 documents (`.W`, which starts with the title; `.T` for the title field),
  225 queries, Cleverdon's grades mapped as 1, 2 → 2 and 3, 4 → 1; the −1 row (the query's own
  source paper, not graded) is dropped, so that document is unjudged, i.e. grade 0 here.
- CISI: 1,460 documents (`.T` + `.W`; the `.X` citation lines are left out), the 76 of 112
  queries with judgments (`.T` + `.W` of the query record), every listed pair → 2.

Six retrieval systems, each cut to the pool depth (20): ``bm25`` and ``tfidf`` (the engine's
built-ins, `goldsmith.retrievers.builtin`), ``bm25_title`` (the built-in BM25 over the title
field only), ``tfidf_bigram`` (TF-IDF over words and word bigrams, raw term frequency),
``ql`` (query likelihood with Dirichlet smoothing, μ = the mean document length) and
``fusion`` (reciprocal-rank fusion, k = 60, of bm25, ql and tfidf_bigram). A query's pool is
the union of their top 20, in the pool's plain order (the app's shuffle key,
`annotation.services.pooling.shuffle_key`, computed here on the document ids).

The annotator is perfect: a candidate's grade is the collection's (0 when unlisted). A chunk is
relevant when its grade is ≥ 1 (``--relevant-from``). Queries are judged one after the other in
id order; Goldsmith's order for a query learns its priors from the final grades of the queries
before it (what a project has resolved), and from the annotator's own grades on the query.

"Judgments needed to find x %" is, per query, the number of judgments until ⌈x·R⌉ of its R
relevant pool candidates are found (0 when R = 0), summed over queries. ``random`` is the mean
over ``--random-seeds`` seeds.

The stopping rule (`goldsmith.judging_order.stop_estimate`) runs on Goldsmith's order; the
priors of a stopped query's successors come from the judged candidates only. It reports the
share of the pool's judgments saved, the share of queries (with a relevant candidate) stopped
with true recall below 95 %, and Kendall's τ between the six systems' mean nDCG@10 and MAP
(the engine's metrics, default settings: strict threshold 2, linear gains) from the stopped
judgments (what was not judged is unjudged) and from the full ones.

``--embeddings DIR`` (an experiment of issue 22) gives each pool its candidates' and its
query's text embeddings from ``DIR/<collection>.npz``, written once by ``bench/embed_pools.py``
(all-MiniLM-L6-v2; the model is no dependency of this bench): Goldsmith's order then also
follows their cosine (`goldsmith.judging_order.PooledQuery.vectors`, ``query_vector``). The
weights of the order's terms can be tried with ``--feedback``, ``--semantic-feedback``,
and ``--negative-feedback`` (the engine's constants by default); the weight of the cosine to
the query's embedding is fitted to the resolved queries, as the rank model's others are.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from goldsmith import judging_order as jo  # noqa: E402
from goldsmith.formats.beir import cranfield_documents, cranfield_queries  # noqa: E402
from goldsmith.metrics import evaluate  # noqa: E402
from goldsmith.retrievers.builtin import build_retriever  # noqa: E402

DEPTH = 20
SYSTEMS = ("bm25", "tfidf", "bm25_title", "tfidf_bigram", "ql", "fusion")
ORDERS = ("random", "plain", "round_robin", "fusion", "move_to_front", "maxmean", "goldsmith")
LEVELS = (50, 80, 90, 95, 100)
RANDOM_SEEDS = 10
CRANFIELD_GRADES = {1: 2, 2: 2, 3: 1, 4: 1}
TOKEN = re.compile(r"(?u)\b\w\w+\b")
COLLECTIONS = ("cranfield", "cisi")

# The anchors: TREC DL 2019 passages, depth-10 pool of 2,495, 754 relevant.
ANCHORS = {
    "random": (2170, 2298),
    "round_robin": (1776, 1994),
    "fusion": (1595, 1820),
    "move_to_front": (1371, 1584),
    "maxmean": (1308, 1512),
}
ANCHOR_POOL = 2495


def shared_data_dir() -> Path:
    """$GOLDSMITH_SHARED_DATA, else `../shared/data` beside the clone (or beside the folder of
    worktrees that holds it)."""
    if "GOLDSMITH_SHARED_DATA" in os.environ:
        return Path(os.environ["GOLDSMITH_SHARED_DATA"])
    near = [up / "shared" / "data" for up in (ROOT.parent, ROOT.parent.parent)]
    return next((p for p in near if p.exists()), near[0])


# --------------------------------------------------------------------------------------------
# The collections


@dataclass(frozen=True)
class Collection:
    name: str
    docs: list[tuple[str, str]]  # (id, text)
    titles: list[tuple[str, str]]
    queries: list[tuple[str, str]]  # (qid, text), judged queries only
    truth: dict[str, dict[str, int]]  # qid → doc → grade (listed pairs)


def cranfield(path: Path) -> Collection:
    docs, titles = [], []
    for d in cranfield_documents(path / "cran.all.1400"):
        docs.append((str(d["doc_id"]), str(d["text"])))
        titles.append((str(d["doc_id"]), str(d["title"])))
    truth: dict[str, dict[str, int]] = {}
    for line in (path / "cranqrel").read_text().splitlines():
        cells = line.split()
        if cells and int(cells[2]) != -1:
            truth.setdefault(cells[0], {})[cells[1]] = CRANFIELD_GRADES[int(cells[2])]
    queries = [(str(q["qid"]), str(q["query"])) for q in cranfield_queries(path / "cran.qry")]
    return Collection("cranfield", docs, titles, [q for q in queries if q[0] in truth], truth)


def smart_records(path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """(id, {marker: text}) of a SMART file; every marker (``.T``, ``.X``, ``.K``…) starts a
    field of its own, so CISI's citation lines never run into the abstract."""
    current: str | None = None
    fields: dict[str, list[str]] = {}
    marker: str | None = None
    with path.open(encoding="utf-8", errors="replace", newline=None) as handle:
        for raw in handle:
            line = raw.rstrip("\r\n")
            if line.startswith(".I "):
                if current is not None:
                    yield current, {k: " ".join(v).strip() for k, v in fields.items()}
                current, fields, marker = line[3:].strip(), {}, None
            elif re.fullmatch(r"\.[A-Z]", line.strip()):
                marker = line.strip()
                fields.setdefault(marker, [])
            elif marker is not None:
                fields[marker].append(line.strip())
    if current is not None:
        yield current, {k: " ".join(v).strip() for k, v in fields.items()}


def cisi(path: Path) -> Collection:
    docs, titles = [], []
    for doc_id, f in smart_records(path / "CISI.ALL"):
        docs.append((doc_id, f"{f.get('.T', '')} {f.get('.W', '')}".strip()))
        titles.append((doc_id, f.get(".T", "")))
    truth: dict[str, dict[str, int]] = {}
    for line in (path / "CISI.REL").read_text().splitlines():
        cells = line.split()
        if cells:
            truth.setdefault(cells[0], {})[cells[1]] = 2
    queries = [
        (qid, f"{f.get('.T', '')} {f.get('.W', '')}".strip())
        for qid, f in smart_records(path / "CISI.QRY")
    ]
    return Collection("cisi", docs, titles, [q for q in queries if q[0] in truth], truth)


# --------------------------------------------------------------------------------------------
# The systems


def trec_order(scores: np.ndarray, ids: Sequence[str], k: int) -> list[str]:
    """The k best positive scores, ties by id descending (trec_eval)."""
    rows = np.flatnonzero(scores > 0)
    keyed = sorted(rows.tolist(), key=lambda i: (-float(scores[i]), _neg(ids[i])))
    return [ids[i] for i in keyed[:k]]


def _neg(doc_id: str) -> tuple[int, ...]:
    return (*(-b for b in doc_id.encode()), 1)


def ql_dirichlet(col: Collection, k: int) -> list[list[str]]:
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer(token_pattern=TOKEN.pattern, stop_words="english")
    counts = vec.fit_transform([t for _, t in col.docs]).tocsc().astype(np.float64)
    lengths = np.asarray(counts.sum(axis=1)).ravel()
    mu = float(lengths.mean())
    p_c = np.asarray(counts.sum(axis=0)).ravel() / lengths.sum()
    ids = [d for d, _ in col.docs]
    analyse = vec.build_analyzer()
    vocab = vec.vocabulary_
    out = []
    for _, text in col.queries:
        terms = [vocab[t] for t in analyse(text) if t in vocab]
        score = np.zeros(len(ids))
        matched = np.zeros(len(ids), dtype=bool)
        for t in terms:
            column = counts[:, t]
            rows, tf = column.indices, column.data
            score[rows] += np.log1p(tf / (mu * p_c[t]))
            matched[rows] = True
        score += len(terms) * np.log(mu / (lengths + mu))
        # Documents sharing no term are left out; the rest shift to positive scores.
        score = np.where(matched, score - score[matched].min() + 1.0 if matched.any() else 0, 0)
        out.append(trec_order(score, ids, k))
    return out


def tfidf_bigram(col: Collection, k: int) -> list[list[str]]:
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(token_pattern=TOKEN.pattern, stop_words="english", ngram_range=(1, 2))
    matrix = vec.fit_transform([t for _, t in col.docs])
    q = vec.transform([t for _, t in col.queries])
    scores = (q @ matrix.T).toarray()
    ids = [d for d, _ in col.docs]
    return [trec_order(row, ids, k) for row in scores]


def rrf(lists: Sequence[Sequence[str]], k: int, c: int = 60) -> list[str]:
    score: dict[str, float] = {}
    for ranked in lists:
        for r, d in enumerate(ranked, 1):
            score[d] = score.get(d, 0.0) + 1.0 / (c + r)
    return [d for d, _ in sorted(score.items(), key=lambda x: (-x[1], _neg(x[0])))][:k]


def systems(col: Collection, depth: int = DEPTH) -> dict[str, dict[str, list[str]]]:
    """system → qid → its top `depth` document ids."""
    texts = [t for _, t in col.queries]
    qids = [q for q, _ in col.queries]
    deep = 100  # fusion fuses deeper lists, then cuts
    runs: dict[str, list[list[str]]] = {}
    for name, corpus in (("bm25", col.docs), ("tfidf", col.docs), ("bm25_title", col.titles)):
        engine = build_retriever(name.split("_")[0], corpus)
        runs[name] = [[h.id for h in row] for row in engine.search(texts, deep)]
    runs["tfidf_bigram"] = tfidf_bigram(col, deep)
    runs["ql"] = ql_dirichlet(col, deep)
    runs["fusion"] = [
        rrf([runs["bm25"][i], runs["ql"][i], runs["tfidf_bigram"][i]], deep)
        for i in range(len(qids))
    ]
    return {s: {q: runs[s][i][:depth] for i, q in enumerate(qids)} for s in SYSTEMS}


def shuffle_key(qid: str, doc: str) -> int:
    """The app's pool order (annotation.services.pooling.shuffle_key) on the bench's ids."""
    digest = hashlib.sha256(f"goldsmith-pool:{qid}:{doc}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class Embeddings:
    """Unit-length text embeddings of a collection's documents and queries (by id)."""

    docs: dict[str, np.ndarray]
    queries: dict[str, np.ndarray]


def load_embeddings(folder: Path, col: Collection) -> Embeddings:
    """`folder/<collection>.npz` from bench/embed_pools.py, checked against the texts."""
    path = folder / f"{col.name}.npz"
    if not path.exists():
        raise SystemExit(f"{path} is absent: make it with bench/embed_pools.py --out {folder}")
    z = np.load(path)
    for what, rows, ids, hashes in (
        ("document", col.docs, z["doc_ids"], z["doc_sha256"]),
        ("query", col.queries, z["query_ids"], z["query_sha256"]),
    ):
        have = dict(zip(ids.tolist(), hashes.tolist(), strict=True))
        for key, text in rows:
            if have.get(key) != hashlib.sha256(text.encode()).hexdigest():
                raise SystemExit(f"{path}: {what} {key}'s vector is not of its text; embed again")
    docs = dict(zip(z["doc_ids"].tolist(), z["docs"].astype(np.float64), strict=True))
    queries = dict(zip(z["query_ids"].tolist(), z["queries"].astype(np.float64), strict=True))
    return Embeddings(docs, queries)


def pools(
    col: Collection,
    runs: dict[str, dict[str, list[str]]],
    embeddings: Embeddings | None = None,
) -> list[jo.PooledQuery]:
    text = dict(col.docs)
    qtext = dict(col.queries)
    out = []
    for qid, _ in col.queries:
        ranks: dict[str, dict[str, int]] = {}
        for s in SYSTEMS:
            for r, d in enumerate(runs[s][qid], 1):
                ranks.setdefault(d, {})[s] = r
        candidates = tuple(sorted(ranks, key=lambda d: shuffle_key(qid, d)))
        texts = {d: text[d] for d in candidates if d in text}
        if embeddings is None:
            out.append(jo.PooledQuery(qid, candidates, ranks, texts))
            continue
        vectors = {d: tuple(embeddings.docs[d].tolist()) for d in candidates}
        query = tuple(embeddings.queries[qid].tolist()) if qid in qtext else ()
        out.append(jo.PooledQuery(qid, candidates, ranks, texts, vectors, query))
    return out


# --------------------------------------------------------------------------------------------
# The replay


def needed(order: Sequence[str], grades: dict[str, int], level: int, rel: int) -> int:
    relevant = sum(1 for g in grades.values() if g >= rel)
    want = math.ceil(level / 100 * relevant - 1e-9)
    if want == 0:
        return 0
    found = 0
    for i, c in enumerate(order, 1):
        found += grades.get(c, 0) >= rel
        if found >= want:
            return i
    raise AssertionError("an order lost a relevant candidate")


def replay_orders(
    pooled: list[jo.PooledQuery],
    truth: dict[str, dict[str, int]],
    rel: int,
    seeds: int,
    weights: jo.FeedbackWeights | None = None,
) -> dict[str, dict[str, int]]:
    totals = {o: dict.fromkeys(LEVELS, 0.0) for o in ORDERS}
    resolved: list[jo.ResolvedQuery] = []
    for pool in pooled:
        grades = {c: truth.get(pool.query_id, {}).get(c, 0) for c in pool.candidates}
        judge = grades.__getitem__
        priors = jo.priors_from_resolved(resolved, relevant_from=rel)
        orders = {
            "plain": jo.plain_order(pool),
            "round_robin": jo.round_robin_order(pool),
            "fusion": jo.fusion_order(pool),
            "move_to_front": jo.move_to_front_order(pool, judge, rel),
            "maxmean": jo.maxmean_order(pool, judge, rel),
            "goldsmith": jo.goldsmith_order(pool, judge, priors, weights),
        }
        for name, order in orders.items():
            assert sorted(order) == sorted(pool.candidates), name
            for level in LEVELS:
                totals[name][level] += needed(order, grades, level, rel)
        for s in range(seeds):
            order = jo.random_order(pool, seed=s * 100_003 + int(pool.query_id))
            for level in LEVELS:
                totals["random"][level] += needed(order, grades, level, rel) / seeds
        resolved.append(jo.ResolvedQuery(pool, grades))
    return {o: {str(level): round(v) for level, v in totals[o].items()} for o in ORDERS}


@dataclass
class Stopped:
    judged: dict[str, dict[str, int]]  # qid → the grades given before the stop
    below: int
    with_relevant: int
    judgments: int
    checks: int
    found: int  # relevant candidates judged, over every query
    relevant: int  # relevant candidates in the pools

    @property
    def recall(self) -> float:
        """The achieved recall of the stopped judging: found / relevant in the pools."""
        return self.found / self.relevant if self.relevant else 1.0


def replay_stopping(
    pooled: list[jo.PooledQuery],
    truth: dict[str, dict[str, int]],
    rel: int,
    *,
    confidence: float = jo.CONFIDENCE,
    checks: int = jo.CHECKS,
    weights: jo.FeedbackWeights | None = None,
) -> Stopped:
    resolved: list[jo.ResolvedQuery] = []
    judged: dict[str, dict[str, int]] = {}
    below = with_relevant = judgments = drawn = found_all = relevant_all = 0
    for pool in pooled:
        grades = {c: truth.get(pool.query_id, {}).get(c, 0) for c in pool.candidates}
        priors = jo.priors_from_resolved(resolved, relevant_from=rel)
        own: dict[str, int] = {}
        checked: list[str] = []
        model = jo.QueryModel(pool, priors, weights)
        while len(own) < len(pool.candidates):
            est = jo.estimate_with(
                model, own, checked=checked, confidence=confidence, checks=checks
            )
            if est.may_stop:
                break
            if est.draw:
                for c in est.draw:
                    own[c] = grades[c]
                    checked.append(c)
                continue
            c = model.order(own)[0]
            own[c] = grades[c]
        relevant = sum(1 for g in grades.values() if g >= rel)
        if relevant:
            with_relevant += 1
            found = sum(1 for g in own.values() if g >= rel)
            below += found / relevant < jo.RECALL_TARGET - 1e-12
            found_all += found
            relevant_all += relevant
        judgments += len(own)
        drawn += len(checked)
        judged[pool.query_id] = own
        resolved.append(jo.ResolvedQuery(pool, own))
    return Stopped(judged, below, with_relevant, judgments, drawn, found_all, relevant_all)


def kendall_tau(a: Sequence[float], b: Sequence[float]) -> float:
    from scipy.stats import kendalltau

    return float(kendalltau(a, b).statistic)


def system_means(
    judgments: dict[str, dict[str, int]], runs: dict[str, dict[str, list[str]]]
) -> dict[str, dict[str, float]]:
    out = {}
    for s in SYSTEMS:
        result = evaluate(judgments, runs[s], ["ndcg@10", "map"])
        out[s] = {m: float(np.mean(result.column(m))) for m in ("ndcg@10", "map")}
    return out


def measure(
    col: Collection,
    rel: int,
    seeds: int,
    *,
    confidence: float = jo.CONFIDENCE,
    checks: int = jo.CHECKS,
    embeddings: Embeddings | None = None,
    weights: jo.FeedbackWeights | None = None,
) -> tuple[dict[str, object], dict[str, object]]:
    """(the issue's JSON object for the collection, extra figures for the table)."""
    t0 = time.perf_counter()
    runs = systems(col)
    pooled = pools(col, runs, embeddings)
    truth = col.truth
    full = {p.query_id: {c: truth[p.query_id].get(c, 0) for c in p.candidates} for p in pooled}
    pool_judgments = sum(len(p.candidates) for p in pooled)
    relevant = sum(1 for g in full.values() for v in g.values() if v >= rel)
    orders = replay_orders(pooled, truth, rel, seeds, weights)
    stop = replay_stopping(
        pooled, truth, rel, confidence=confidence, checks=checks, weights=weights
    )
    means_full = system_means(full, runs)
    means_stop = system_means(stop.judged, runs)
    taus = {
        m: kendall_tau([means_full[s][m] for s in SYSTEMS], [means_stop[s][m] for s in SYSTEMS])
        for m in ("ndcg@10", "map")
    }
    c = {
        "pool_judgments": pool_judgments,
        "relevant_in_pool": relevant,
        "orders": orders,
        "stopping": {
            "judgments_saved": round(1 - stop.judgments / pool_judgments, 4),
            "queries_below_95": round(stop.below / max(stop.with_relevant, 1), 4),
            "tau_ndcg10": round(taus["ndcg@10"], 4),
            "tau_map": round(taus["map"], 4),
        },
    }
    extra = {
        "queries": len(pooled),
        "queries_with_relevant": stop.with_relevant,
        "stopped_judgments": stop.judgments,
        "random_checks": stop.checks,
        "queries_below_95": stop.below,
        "recall": stop.recall,
        "means_full": means_full,
        "means_stopped": means_stop,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    return c, extra


# --------------------------------------------------------------------------------------------
# Output


def table(name: str, c: dict[str, object], extra: dict[str, object]) -> str:
    pool_n = int(c["pool_judgments"])  # type: ignore[call-overload]
    orders: dict[str, dict[str, int]] = c["orders"]  # type: ignore[assignment]
    stop: dict[str, float] = c["stopping"]  # type: ignore[assignment]
    lines = [
        f"### {name}: {extra['queries']} queries, pool of {pool_n:,} judgments, "
        f"{c['relevant_in_pool']:,} relevant",
        "",
        "| order | " + " | ".join(f"{level} %" for level in LEVELS) + " |",
        "|---|" + "---|" * len(LEVELS),
    ]
    for o in ORDERS:
        cells = [f"{orders[o][str(lv)]:,} ({orders[o][str(lv)] / pool_n:.0%})" for lv in LEVELS]
        lines.append(f"| {o} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"Stopping: {stop['judgments_saved']:.1%} of the judgments saved "
        f"({extra['stopped_judgments']:,} of {pool_n:,}, {extra['random_checks']} of them random "
        f"checks); {extra['queries_below_95']} of {extra['queries_with_relevant']} queries "
        f"({stop['queries_below_95']:.1%}) stopped below 95 % true recall; achieved recall "
        f"{extra['recall']:.1%} (relevant judged of the pools' relevant); Kendall τ of the six "
        f"systems: nDCG@10 {stop['tau_ndcg10']:.3f}, MAP {stop['tau_map']:.3f}.",
        "",
        "| system | nDCG@10 full | nDCG@10 stopped | MAP full | MAP stopped |",
        "|---|---|---|---|---|",
    ]
    full: dict[str, dict[str, float]] = extra["means_full"]  # type: ignore[assignment]
    stopped: dict[str, dict[str, float]] = extra["means_stopped"]  # type: ignore[assignment]
    for s in SYSTEMS:
        lines.append(
            f"| {s} | {full[s]['ndcg@10']:.4f} | {stopped[s]['ndcg@10']:.4f} | "
            f"{full[s]['map']:.4f} | {stopped[s]['map']:.4f} |"
        )
    g, mm = orders["goldsmith"], orders["maxmean"]
    lines += [
        "",
        "Targets: goldsmith 95 % ≤ 50 % of the pool: "
        f"{'met' if g['95'] <= pool_n / 2 else 'MISSED'} ({g['95'] / pool_n:.1%}); beats MaxMean "
        f"at 90 %: {'met' if g['90'] < mm['90'] else 'MISSED'} ({g['90']} vs {mm['90']}), at "
        f"100 %: {'met' if g['100'] < mm['100'] else 'MISSED'} ({g['100']} vs {mm['100']}); "
        f"saves ≥ 40 %: {'met' if stop['judgments_saved'] >= 0.4 else 'MISSED'}; ≤ 10 % below "
        f"95 %: {'met' if stop['queries_below_95'] <= 0.1 else 'MISSED'}; τ ≥ 0.9: "
        f"{'met' if min(stop['tau_ndcg10'], stop['tau_map']) >= 0.9 else 'MISSED'}.",
        f"Bound: a stop that knew the truth (each query stopped exactly where 95 % of its "
        f"relevant candidates are found, in Goldsmith's order) would save "
        f"{1 - g['95'] / pool_n:.1%}, with no query below 95 %.",
        f"({extra['seconds']} s)",
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.add_argument("--collections", nargs="+", choices=COLLECTIONS, default=COLLECTIONS)
    parser.add_argument("--relevant-from", type=int, default=jo.RELEVANT_FROM)
    parser.add_argument("--random-seeds", type=int, default=RANDOM_SEEDS)
    parser.add_argument("--json-out", type=Path, help="also write the JSON object to this file")
    parser.add_argument(
        "--confidence",
        type=float,
        default=jo.CONFIDENCE,
        help="the stop estimate's confidence (a try; the app uses the engine's default)",
    )
    parser.add_argument(
        "--checks", type=int, default=jo.CHECKS, help="the stop estimate's random checks"
    )
    parser.add_argument(
        "--queries", type=int, help="only the first N judged queries of each collection (a check)"
    )
    parser.add_argument(
        "--embeddings",
        type=Path,
        help="a folder of <collection>.npz text embeddings (bench/embed_pools.py): the order "
        "also follows them",
    )
    defaults = jo.FeedbackWeights()
    for flag, name in (
        ("--feedback", "tfidf"),
        ("--semantic-feedback", "semantic"),
        ("--negative-feedback", "negative"),
    ):
        parser.add_argument(
            flag,
            dest=f"weight_{name}",
            type=float,
            default=getattr(defaults, name),
            help=f"the order's weight (a try; the engine's is {getattr(defaults, name)})",
        )
    args = parser.parse_args(argv)
    weights = jo.FeedbackWeights(args.weight_tfidf, args.weight_semantic, args.weight_negative)
    data = shared_data_dir()
    readers = {"cranfield": cranfield, "cisi": cisi}
    result: dict[str, object] = {}
    extras: dict[str, dict[str, object]] = {}
    for name in args.collections:
        path = data / name
        if not path.exists():
            parser.error(f"{path} is absent (the public data lives in ../shared/data)")
        col = readers[name](path)
        if args.queries is not None:
            col = Collection(col.name, col.docs, col.titles, col.queries[: args.queries], col.truth)
        embeddings = None if args.embeddings is None else load_embeddings(args.embeddings, col)
        result[name], extras[name] = measure(
            col,
            args.relevant_from,
            args.random_seeds,
            confidence=args.confidence,
            checks=args.checks,
            embeddings=embeddings,
            weights=weights,
        )
    if args.json_out:
        args.json_out.write_text(json.dumps(result) + "\n")
    if args.format == "json":
        print(json.dumps(result))
    else:
        for name in args.collections:
            print(table(name, result[name], extras[name]))  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
