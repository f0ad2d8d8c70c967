"""CMRC 2018 as a Chinese RAG collection: built-in BM25 (zh-bigrams) and the extractive answerer.

Usage:
  PYTHONPATH=. .venv/bin/python bench/cmrc2018_bench.py [--data DIR] [--out DIR]
      [--articles N] [--json]

DATA defaults to ../shared/data/cmrc2018 beside the clone ($GOLDSMITH_SHARED_DATA/cmrc2018).

Steps, each timed (wall clock):
1. `goldsmith cmrc2018 DATA --out DIR`: the corpus (paragraphs chunked with offsets), the query
   set and the golden set (the chunk holding an answer span is relevant; the human answers are
   the references; docs/formats.md, "CMRC 2018 as a RAG collection");
2. index the chunks with `goldsmith.retrievers.builtin.build_retriever("bm25", ...,
   tokenizer="zh-bigrams")` (the code a project's built-in runs use);
3. retrieve the top 10 chunks of every question, written as a JSONL run whose results carry
   their text (so the top 5 are the contexts);
4. `goldsmith eval goldset.jsonl run.jsonl -m recall@5 ndcg@10 context_recall@5 answer_f1
   exact_match squad_em --extractive --format json`: the extractive answerer answers from the top 5
   contexts, and the command scores retrieval and answers.

`--articles N` keeps the first N articles (the test's small slice). Prints a Markdown table
(and the JSON with `--json`). The data is CC BY-SA 4.0 (its PROVENANCE.md); nothing of it is
written into the repository.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib import shared_data

from goldsmith.cli import main as goldsmith
from goldsmith.retrievers.builtin import build_retriever

DATA = shared_data("cmrc2018")
METRICS = ("recall@5", "ndcg@10", "context_recall@5", "answer_f1", "exact_match", "squad_em")


def _cli(*args: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = goldsmith(list(args))
    if status != 0:
        raise SystemExit(f"goldsmith {' '.join(args)}: exit {status}: {err.getvalue().strip()}")
    return out.getvalue()


def _slice(source: Path, articles: int, into: Path) -> Path:
    doc = json.loads(source.read_text(encoding="utf-8"))
    doc["data"] = doc["data"][:articles]
    path = into / "cmrc2018_slice.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def run(data: Path, out: Path, articles: int | None = None) -> dict[str, Any]:
    source = data / "cmrc2018_dev.json" if data.is_dir() else data
    if articles is not None:
        source = _slice(source, articles, out)
    times: dict[str, float] = {}

    t = time.perf_counter()
    built = _cli("cmrc2018", str(source), "--out", str(out))
    times["build (goldsmith cmrc2018)"] = time.perf_counter() - t

    chunks = [json.loads(line) for line in (out / "corpus.jsonl").open(encoding="utf-8")]
    queries = [json.loads(line) for line in (out / "queries.jsonl").open(encoding="utf-8")]
    text_of = {c["id"]: c["text"] for c in chunks}

    t = time.perf_counter()
    bm25 = build_retriever("bm25", [(c["id"], c["text"]) for c in chunks], tokenizer="zh-bigrams")
    times["index (BM25, zh-bigrams)"] = time.perf_counter() - t

    t = time.perf_counter()
    hits = bm25.search([q["query"] for q in queries], 10)
    run_path = out / "run.jsonl"
    with run_path.open("w", encoding="utf-8") as f:
        for q, found in zip(queries, hits, strict=True):
            results = [{"id": h.id, "score": h.score, "text": text_of[h.id]} for h in found]
            f.write(json.dumps({"query_id": q["query_id"], "results": results}, ensure_ascii=False))
            f.write("\n")
    times["retrieve top 10"] = time.perf_counter() - t

    t = time.perf_counter()
    report = json.loads(
        _cli(
            "eval",
            str(out / "goldset.jsonl"),
            str(run_path),
            "-m",
            *METRICS,
            "--extractive",
            "--format",
            "json",
        )
    )
    times["answer + score (goldsmith eval --extractive)"] = time.perf_counter() - t
    return {
        "collection": built.splitlines()[0],
        "chunks": len(chunks),
        "queries": len(queries),
        "aggregate": {m: report["aggregate"][m] for m in METRICS},
        "seconds": times,
    }


def _table(result: dict[str, Any]) -> str:
    lines = [
        f"{result['collection']}",
        "",
        "| metric | mean | 95% CI | queries |",
        "|---|---|---|---|",
    ]
    for m, a in result["aggregate"].items():
        mean = "n/a" if a["mean"] is None else f"{a['mean']:.3f}"
        ci = "" if a["ci_low"] is None else f"{a['ci_low']:.3f}–{a['ci_high']:.3f}"
        lines.append(f"| {m} | {mean} | {ci} | {a['n']} |")
    lines += ["", "| step | wall (s) |", "|---|---|"]
    lines += [f"| {step} | {s:.1f} |" for step, s in result["seconds"].items()]
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--out", type=Path, help="folder for the files (default: a temporary one)")
    p.add_argument("--articles", type=int, help="keep the first N articles")
    p.add_argument("--json", action="store_true", help="print the JSON result too")
    args = p.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data}: no CMRC 2018 data here (see ../shared/data/cmrc2018)")
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        result = run(args.data, out, args.articles)
    print(_table(result))
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
