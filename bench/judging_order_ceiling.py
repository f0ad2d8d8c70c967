"""What the pool's text similarity can give the judging order at all (issue 22): an oracle that
knows every grade of a query ranks its pool once, and the judgments it needs for 50/80/90/95/
100 % of the pool's relevant candidates are counted as in bench/judging_effort_bench.py.

Usage (the embeddings from bench/embed_pools.py):

    .venv/bin/python bench/judging_order_ceiling.py --embeddings /tmp/gs-emb

A row's score of a candidate is a sum of, as its label says: the rank model's logit (priors
from the queries before, as Goldsmith's order has them); `q` × the candidate's standardised
cosine to the query's embedding (`goldsmith.judging_order.query_likeness`); the candidate's
mean likeness to EVERY relevant candidate of the query but itself (leave one out), the likeness
being `t` × the pool's TF-IDF cosine (`similarities`) + `e` × the embeddings' cosine; minus `g`
× its mean likeness to every non-relevant candidate but itself.

What it bounds: a ranking made ONCE from these terms with every grade known. It is not a
ceiling for an order that re-ranks after each grade: Goldsmith's order also refits the query's
and each source's offsets as grades arrive and follows the likeness to the grades given so far,
and on the benchmark it needs fewer judgments than these static oracles (docs/benchmarks.md).
Read a row as "how well do these terms separate a query's relevant candidates from the rest",
not as the best any order can do with them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import judging_effort_bench as bench  # noqa: E402

from goldsmith import judging_order as jo  # noqa: E402

# (label, with the logit, q, t, e, g)
ROWS: tuple[tuple[str, bool, float, float, float, float], ...] = (
    ("TF-IDF alone: mean to the relevant", False, 0, 1, 0, 0),
    ("logit + 40 TF-IDF to the relevant", True, 0, 40, 0, 0),
    ("embeddings alone: mean to the relevant", False, 0, 0, 1, 0),
    ("logit + 40 embeddings to the relevant", True, 0, 0, 40, 0),
    ("logit + (40 TF-IDF + 20 embeddings) to the relevant", True, 0, 40, 20, 0),
    ("logit + 1 query + (40 TF-IDF + 20 embeddings) to the relevant", True, 1, 40, 20, 0),
    ("logit + 1 query + 40 embeddings, − 1 × to the non-relevant", True, 1, 0, 40, 1),
    (
        "logit + 1 query + (40 TF-IDF + 20 embeddings), − 0.5 × to the non-relevant",
        True,
        1,
        40,
        20,
        0.5,
    ),
    (
        "logit + 1 query + (40 TF-IDF + 20 embeddings), − 1 × to the non-relevant",
        True,
        1,
        40,
        20,
        1,
    ),
    (
        "logit + 1 query + (40 TF-IDF + 40 embeddings), − 1 × to the non-relevant",
        True,
        1,
        40,
        40,
        1,
    ),
)


def loo_mean(sim: np.ndarray, members: np.ndarray) -> np.ndarray:
    """Each row's mean over the `members` columns, leaving its own column out."""
    if len(members) == 0:
        return np.zeros(len(sim))
    count = np.full(len(sim), float(len(members)))
    count[members] -= 1  # the diagonal is 0, so only the count changes
    out: np.ndarray = sim[:, members].sum(axis=1) / np.maximum(count, 1.0)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embeddings", type=Path, required=True)
    parser.add_argument(
        "--collections", nargs="+", choices=bench.COLLECTIONS, default=bench.COLLECTIONS
    )
    args = parser.parse_args(argv)
    readers = {"cranfield": bench.cranfield, "cisi": bench.cisi}
    for name in args.collections:
        col = readers[name](bench.shared_data_dir() / name)
        pooled = bench.pools(col, bench.systems(col), bench.load_embeddings(args.embeddings, col))
        prepared = []
        resolved: list[jo.ResolvedQuery] = []
        for pool in pooled:
            grades = {c: col.truth.get(pool.query_id, {}).get(c, 0) for c in pool.candidates}
            # The rank model alone (the pool without vectors: no fitted query weight in it).
            bare = jo.PooledQuery(pool.query_id, pool.candidates, pool.ranks, pool.texts)
            model = jo.QueryModel(bare, jo.priors_from_resolved(resolved))
            semantic = jo.vector_similarities([pool.vectors[c] for c in pool.candidates])
            rows = [pool.vectors[c] for c in pool.candidates]
            relevant = np.array([grades[c] >= jo.RELEVANT_FROM for c in pool.candidates])
            assert model.similar is not None
            prepared.append(
                (
                    pool,
                    grades,
                    model.base,
                    jo.query_likeness(rows, pool.query_vector),
                    model.similar,
                    semantic,
                    np.flatnonzero(relevant),
                    np.flatnonzero(~relevant),
                )
            )
            resolved.append(jo.ResolvedQuery(bare, grades))
        n = sum(len(p.candidates) for p in pooled)
        print(f"### {name}: pool of {n:,}, oracle orders\n")
        print("| oracle score | " + " | ".join(f"{lv} %" for lv in bench.LEVELS) + " |")
        print("|---|" + "---|" * len(bench.LEVELS))
        for label, logit, q, t, e, g in ROWS:
            totals = dict.fromkeys(bench.LEVELS, 0)
            for pool, grades, base, toward, tfidf, emb, rel, non in prepared:
                like = t * tfidf + e * emb
                score = (base if logit else 0.0) + q * toward + loo_mean(like, rel)
                if g:
                    score = score - g * loo_mean(like, non)
                ranked = sorted(range(len(score)), key=lambda i: (-round(float(score[i]), 9), i))
                order = [pool.candidates[i] for i in ranked]
                for lv in bench.LEVELS:
                    totals[lv] += bench.needed(order, grades, lv, jo.RELEVANT_FROM)
            cells = [f"{totals[lv]:,} ({totals[lv] / n:.1%})" for lv in bench.LEVELS]
            print(f"| {label} | " + " | ".join(cells) + " |")
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
