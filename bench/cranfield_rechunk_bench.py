"""Cranfield re-chunked: a golden set refreshed by span onto a new chunking, and BM25 on both.

Usage (no database, no Django; about a minute on the busy 2-core machine):

    .venv/bin/python bench/cranfield_rechunk_bench.py [--before 1000] [--after 300] [--json out]

Cranfield (`../shared/data/cranfield`, see its PROVENANCE.md) is chunked by the engine's chunker
(`goldsmith.intake.chunking.chunk_text`, `--before` characters, no overlap) and v1 grades every
chunk of a judged document with the document's grade (Cleverdon's 1, 2 → 2; 3, 4 → 1; the source
paper's −1 row left out, as `cranfield_rules_bench.py` maps them). The corpus is then replaced by
the same documents chunked at `--after` characters under new chunk ids: every chunk of v1 is
retired. The refresh (`goldsmith.refresh.refresh_plan`) maps each of v1's rows by span onto the
new chunks of its document; a new chunk covering exactly the characters of an old one with the
same text key carries its grade, the others are asked as replacements, and the simulated
annotators grade each with its document's grade (Cranfield's truth is per document). That gives
v2. Two controls: the same chunking under new ids (every grade is carried by span, v2 = v1 but
for the ids), and no change at all (the refresh is identical).

Reported: the rows that map by span (overlap at least one new chunk of their document), what
the refresh carries and asks, and BM25 (`goldsmith.retrievers.builtin`) on each corpus scored
against its version by chunk (Recall@10, nDCG@10, MRR@10), and the same two runs scored by
document (each ranked list reduced to its documents, first occurrence, against Cranfield's
document grades): what a difference between the chunk scores owes to the re-chunking itself.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from benchlib import shared_data
from cranfield_rules_bench import _mean, cranfield_truth

from goldsmith.corpus import text_sha256
from goldsmith.formats.beir import cranfield_documents, cranfield_queries
from goldsmith.intake.chunking import chunk_text
from goldsmith.metrics import evaluate
from goldsmith.refresh import (
    FrozenRow,
    PlacedChunk,
    placed,
    refresh_plan,
    rows_after,
    spans_overlap,
)
from goldsmith.retrievers.builtin import build_retriever

METRICS = ("recall@10", "ndcg@10", "mrr@10")
DEPTH = 100


def chunked(docs: Sequence[dict[str, object]], size: int, tag: str) -> dict[str, PlacedChunk]:
    out: dict[str, PlacedChunk] = {}
    for d in docs:
        text = str(d["text"])
        for i, span in enumerate(chunk_text(text, max_chars=size, overlap=0)):
            cid = f"{d['doc_id']}{tag}{i}"
            out[cid] = placed(cid, text_sha256(span.text), span.text, str(d["doc_id"]),
                              span.start, span.end)  # fmt: skip
    return out


def by_document(corpus: Mapping[str, PlacedChunk]) -> dict[str, list[PlacedChunk]]:
    by_doc: dict[str, list[PlacedChunk]] = {}
    for c in corpus.values():
        by_doc.setdefault(c.doc_id or "", []).append(c)
    return by_doc


def version_on(
    corpus: Mapping[str, PlacedChunk], qrels: Mapping[str, Mapping[str, int]]
) -> dict[str, list[FrozenRow]]:
    by_doc = by_document(corpus)
    return {
        q: [
            FrozenRow(c.chunk_id, g, c.doc_id, c.start, c.end, c.text, "cranfield")
            for doc, g in sorted(docs.items())
            for c in by_doc.get(doc, ())
        ]
        for q, docs in qrels.items()
    }


def refreshed(
    v1: Mapping[str, list[FrozenRow]],
    live: Mapping[str, PlacedChunk],
    qrels: Mapping[str, Mapping[str, int]],
) -> tuple[dict[str, list[FrozenRow]], dict[str, int]]:
    plan = refresh_plan(v1, live)
    v2: dict[str, list[FrozenRow]] = {}
    for q, rows in v1.items():
        p = plan.queries.get(q)
        if p is None:
            v2[q] = list(rows)
            continue
        graded = {}
        for a in p.asked:  # the simulated annotators give the document's grade
            c = live[a.chunk_id]
            graded[a.chunk_id] = FrozenRow(
                c.chunk_id, qrels[q].get(c.doc_id or "", 0), c.doc_id, c.start, c.end, c.text,
                "simulated",
            )  # fmt: skip
        v2[q] = rows_after(p, graded)
    by_doc = by_document(live)

    def maps(r: FrozenRow) -> bool:
        if r.chunk_id in live:
            return True
        if r.start is None or r.end is None:
            return False
        return any(
            c.start is not None
            and c.end is not None
            and spans_overlap(r.start, r.end, c.start, c.end)
            for c in by_doc.get(r.doc_id or "", ())
        )

    mapped = sum(1 for rows in v1.values() for r in rows if maps(r))
    counts = plan.counts()
    counts["rows"] = sum(len(rows) for rows in v1.values())
    counts["rows_mapped_by_span"] = mapped
    return v2, counts


def run_bm25(corpus: Mapping[str, PlacedChunk], queries: Mapping[str, str]) -> dict[str, list[str]]:
    retriever = build_retriever("bm25", [(c.chunk_id, c.text or "") for c in corpus.values()])
    ids = sorted(queries)
    results = retriever.search([queries[q] for q in ids], DEPTH)
    return {q: [h.id for h in ranked] for q, ranked in zip(ids, results, strict=True)}


def scores(
    version: Mapping[str, list[FrozenRow]], ranking: Mapping[str, list[str]]
) -> dict[str, float]:
    judged = {q: {r.chunk_id: r.grade for r in rows} for q, rows in version.items()}
    result = evaluate(judged, {q: ranking.get(q, []) for q in judged}, METRICS)
    return {m: round(_mean(result.column(m)), 4) for m in METRICS}


def doc_scores(
    ranking: Mapping[str, list[str]],
    corpus: Mapping[str, PlacedChunk],
    qrels: Mapping[str, Mapping[str, int]],
) -> dict[str, float]:
    docs = {}
    for q, ids in ranking.items():
        seen: list[str] = []
        for cid in ids:
            d = corpus[cid].doc_id or cid
            if d not in seen:
                seen.append(d)
        docs[q] = seen
    result = evaluate({q: dict(g) for q, g in qrels.items()}, docs, METRICS)
    return {m: round(_mean(result.column(m)), 4) for m in METRICS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=int, default=1000)
    parser.add_argument("--after", type=int, default=300)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    raw = shared_data("cranfield")
    if not raw.exists():
        sys.exit(f"{raw} is absent: the Cranfield files live in ../shared/data/cranfield")
    t0 = time.perf_counter()
    docs = list(cranfield_documents(raw / "cran.all.1400"))
    queries = {str(q["qid"]): str(q["query"]) for q in cranfield_queries(raw / "cran.qry")}
    qrels = {q: g for q, g in cranfield_truth(raw)[0].items() if q in queries}
    old = chunked(docs, args.before, "#")
    v1 = version_on(old, qrels)
    out: dict[str, object] = {
        "documents": len(docs),
        "queries": len(qrels),
        "chunks_before": len(old),
    }
    run_old = run_bm25(old, queries)
    out["bm25_before"] = {"by_chunk_vs_v1": scores(v1, run_old),
                          "by_document": doc_scores(run_old, old, qrels)}  # fmt: skip
    for name, corpus in (
        ("unchanged", old),
        ("same_chunking_new_ids", chunked(docs, args.before, "@")),
        (f"rechunked_{args.after}", chunked(docs, args.after, "@")),
    ):
        v2, counts = refreshed(v1, corpus, qrels)
        run_new = run_bm25(corpus, queries)
        out[name] = {
            "chunks": len(corpus),
            "refresh": counts,
            "bm25_by_chunk_vs_v2": scores(v2, run_new),
            "bm25_by_document": doc_scores(run_new, corpus, qrels),
        }
    out["seconds"] = round(time.perf_counter() - t0, 1)
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
