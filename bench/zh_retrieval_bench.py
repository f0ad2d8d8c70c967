"""Built-in BM25 and TF-IDF on the project's Chinese test collection, with each tokenizer.

Usage:
  PYTHONPATH=. .venv/bin/python bench/zh_retrieval_bench.py [--k 10]

Reads annotation/demo_data/zh_collection (300 chunks, 60 queries, graded qrels; written by the
project, see its README), indexes the chunks with `goldsmith.retrievers.builtin.build_retriever`
(the code pooling and built-in runs use) under each tokenizer, retrieves the top 10 of every query
and scores the runs with `goldsmith.metrics` (recall@10 at the strict level, grade 2, and
nDCG@10 with linear gains). The peer: the character-level baseline (`zh-chars`, each Han
character a token). The figures are checked against pytrec_eval (trec_eval's own code) when it
is installed. Also times the indexing of each tokenizer and prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import time

from benchlib import ROOT

from goldsmith import metrics
from goldsmith.intake.tokenizers import DEFAULT, ZH_BIGRAMS, ZH_CHARS, ZH_WORDS
from goldsmith.retrievers.builtin import build_retriever

COLLECTION = ROOT / "annotation" / "demo_data" / "zh_collection"
TOKENIZERS = (ZH_CHARS, ZH_BIGRAMS, ZH_WORDS, DEFAULT)


def load() -> tuple[list[tuple[str, str]], dict[str, str], dict[str, dict[str, int]]]:
    corpus = [
        (row["id"], row["text"])
        for row in map(json.loads, (COLLECTION / "corpus.jsonl").open(encoding="utf-8"))
    ]
    queries = {
        row["id"]: row["text"]
        for row in map(json.loads, (COLLECTION / "queries.jsonl").open(encoding="utf-8"))
    }
    qrels: dict[str, dict[str, int]] = {}
    for line in (COLLECTION / "qrels.txt").open(encoding="utf-8"):
        qid, _, doc, grade = line.split()
        qrels.setdefault(qid, {})[doc] = int(grade)
    return corpus, queries, qrels


def peer_check(
    qrels: dict[str, dict[str, int]], run: dict[str, list[tuple[str, float]]], ours: dict
) -> str:
    try:
        import pytrec_eval
    except ImportError:
        return "pytrec_eval not installed"
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})
    trec_run = {q: {d: s for d, s in hits} for q, hits in run.items()}
    theirs = evaluator.evaluate(trec_run)
    worst = max(
        abs(theirs.get(q, {}).get("ndcg_cut_10", 0.0) - values["ndcg@10"])
        for q, values in ours.items()
    )
    return f"max |nDCG@10 − trec_eval's| = {worst:.1e}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()
    corpus, queries, qrels = load()
    qids = list(queries)
    names = [f"recall@{args.k}", f"ndcg@{args.k}", f"hit@{args.k}", f"mrr@{args.k}"]
    print(f"{len(corpus)} chunks, {len(queries)} queries, {sum(map(len, qrels.values()))} qrels")
    print()
    lenient = metrics.EvalSettings(relevance_threshold=1)
    print(
        "| retriever | tokenizer | "
        + " | ".join(names)
        + f" | recall@{args.k} lenient | index (s) | check |"
    )
    print("|---|---|" + "---|" * len(names) + "---|---|---|")
    results: dict[tuple[str, str], metrics.EvalResult] = {}
    for retriever in ("bm25", "tfidf"):
        for tokenizer in TOKENIZERS:
            started = time.perf_counter()
            model = build_retriever(retriever, corpus, tokenizer=tokenizer)
            indexed = time.perf_counter() - started
            hits = model.search([queries[q] for q in qids], k=args.k)
            run = {q: [(h.id, h.score) for h in found] for q, found in zip(qids, hits, strict=True)}
            ranking = {q: [h[0] for h in found] for q, found in run.items()}
            result = metrics.evaluate(qrels, ranking, names)
            results[retriever, tokenizer] = result
            means = metrics.aggregate(result, samples=0)
            loose = metrics.aggregate(
                metrics.evaluate(qrels, ranking, names[:1], lenient), samples=0
            )
            check = peer_check(qrels, run, result.per_query())
            cells = " | ".join(f"{means[m].mean:.3f}" for m in names)
            print(
                f"| {retriever} | {tokenizer} | {cells} | {loose[names[0]].mean:.3f}"
                f" | {indexed:.2f} | {check} |"
            )
    print()
    print("Paired comparisons (B − A over the 60 queries; randomization test, 10,000 draws):")
    print()
    print("| retriever | A | B | metric | B − A | 95% CI | p | wins/ties/losses of B |")
    print("|---|---|---|---|---|---|---|---|")
    pairs = [(ZH_CHARS, ZH_BIGRAMS), (ZH_CHARS, ZH_WORDS), (ZH_WORDS, ZH_BIGRAMS)]
    for retriever in ("bm25", "tfidf"):
        for a, b in pairs:
            for c in metrics.compare(
                results[retriever, a], results[retriever, b], metrics=names[:2]
            ):
                print(
                    f"| {retriever} | {a} | {b} | {c.metric} | {c.diff:+.3f}"
                    f" | [{c.ci_low:+.3f}, {c.ci_high:+.3f}] | {c.p_randomization:.3f}"
                    f" | {c.wins}/{c.ties}/{c.losses} |"
                )


if __name__ == "__main__":
    main()
