"""Faithfulness by rules on CMRC 2018: extractive answers (faithful by construction) and the
same answers altered to state a number no context holds.

Usage:
  PYTHONPATH=. .venv/bin/python bench/faithfulness_bench.py [--data ../shared/data/cmrc2018]
      [--max-chars 300] [--k 5] [--seed 0] [--tokenizer auto|zh-bigrams|zh-words]

Reads CMRC 2018's development set (848 Chinese Wikipedia paragraphs, 3,219 questions written
by people; see the data's PROVENANCE.md, CC BY-SA 4.0), cuts the paragraphs into chunks with
`goldsmith.intake.chunking.chunk_text` (``--max-chars``), retrieves the top ``--k`` chunks of
every question with built-in BM25 over `zh-bigrams`, answers with the extractive answerer
(`goldsmith.answers.extractive`: the best-matching sentence of the top 3 contexts) and scores
`faithfulness` against the top K contexts with `goldsmith.answers.scoring.score_answers` (the
engine call of `goldsmith eval` and the app). Then two alterations of every scored answer:

- *added*: a sentence stating a number that no context of the query holds is appended
  ("该数字为483920。"): caught when the query's faithfulness falls;
- *swapped*: in answers that state a number, that number is replaced by one no context holds
  (the sentence is otherwise copied): caught when faithfulness falls.

Prints the figures as a Markdown table, with the time the scoring took.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import time
from pathlib import Path

from benchlib import shared_data

from goldsmith.answers import scoring as S
from goldsmith.answers import values as V
from goldsmith.answers.extractive import answer_run
from goldsmith.answers.model import AnswerKey, Context, StagedQuery
from goldsmith.intake.chunking import chunk_text
from goldsmith.intake.tokenizers import ZH_BIGRAMS
from goldsmith.retrievers.builtin import build_retriever

DATA = shared_data("cmrc2018")
_DIGITS = re.compile(r"\d+")


def load(path: Path) -> tuple[list[tuple[str, str]], dict[str, str]]:
    doc = json.loads((path / "cmrc2018_dev.json").read_text(encoding="utf-8"))
    paragraphs: list[tuple[str, str]] = []
    questions: dict[str, str] = {}
    for article in doc["data"]:
        for p, para in enumerate(article["paragraphs"]):
            paragraphs.append((f"{article['id']}-{p}", para["context"]))
            for qa in para["qas"]:
                questions[qa["id"]] = qa["question"]
    return paragraphs, questions


def absent_number(rng: random.Random, contexts: list[str]) -> int:
    """A six-digit number no context states (as a value: 483920 and 483,920 alike)."""
    said = {q.value for c in contexts for q in V.quantities(c, bare_words=False)}
    while True:
        n = rng.randint(100_000, 999_999)
        if float(n) not in said and str(n) not in "".join(contexts):
            return n


def faithfulness(run: list[StagedQuery], k: int, tokenizer: str) -> tuple[dict[str, float], float]:
    keys = [AnswerKey(s.query_id) for s in run]
    settings = S.AnswerSettings(context_k=k, tokenizer=tokenizer)
    started = time.perf_counter()
    result = S.score_answers(keys, run, [S.FAITHFULNESS], settings)
    seconds = time.perf_counter() - started
    return {q: v[S.FAITHFULNESS] for q, v in result.per_query().items()}, seconds  # type: ignore[misc]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--max-chars", type=int, default=300)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--tokenizer", default="auto", help="the claims' terms: auto (zh-words), zh-bigrams..."
    )
    args = ap.parse_args()
    rng = random.Random(args.seed)

    paragraphs, questions = load(args.data)
    corpus = [
        (f"{pid}#{i}", span.text)
        for pid, text in paragraphs
        for i, span in enumerate(chunk_text(text, max_chars=args.max_chars, overlap=0))
    ]
    texts = dict(corpus)
    started = time.perf_counter()
    retriever = build_retriever("bm25", corpus, tokenizer=ZH_BIGRAMS)
    qids = list(questions)
    hits = retriever.search([questions[q] for q in qids], args.k)
    retrieval_s = time.perf_counter() - started
    staged = [
        StagedQuery(q, contexts=tuple(Context(h.id, texts[h.id]) for h in row))
        for q, row in zip(qids, hits, strict=True)
    ]
    started = time.perf_counter()
    answered = answer_run(questions, staged, k=args.k)
    answer_s = time.perf_counter() - started

    original, score_s = faithfulness(answered, args.k, args.tokenizer)
    added_run: list[StagedQuery] = []
    swapped_run: list[StagedQuery] = []
    for s in answered:
        if s.query_id not in original or s.response is None:
            continue
        contexts = [c.text for c in s.contexts or ()]
        n = absent_number(rng, contexts)
        added_run.append(
            StagedQuery(s.query_id, contexts=s.contexts, response=f"{s.response}该数字为{n}。")
        )
        said = V.quantities(s.response, bare_words=False)
        digits = [q for q in said if _DIGITS.fullmatch(s.response[q.start : q.end].strip())]
        if digits:
            q = digits[0]
            swapped = s.response[: q.start] + str(n) + s.response[q.end :]
            swapped_run.append(StagedQuery(s.query_id, contexts=s.contexts, response=swapped))
    added, added_s = faithfulness(added_run, args.k, args.tokenizer)
    swapped, _ = faithfulness(swapped_run, args.k, args.tokenizer)

    def caught(altered: dict[str, float]) -> tuple[int, int]:
        shared = [q for q in altered if q in original]
        return sum(altered[q] < original[q] - 1e-12 for q in shared), len(shared)

    empty = sum(1 for s in answered if not s.response)
    ones = sum(v == 1.0 for v in original.values())
    a_caught, a_n = caught(added)
    s_caught, s_n = caught(swapped)
    print(
        f"CMRC 2018 dev: {len(paragraphs)} paragraphs → {len(corpus)} chunks of ≤ "
        f"{args.max_chars} characters; {len(qids)} questions; BM25 zh-bigrams top {args.k}; "
        f"claims' terms by {args.tokenizer}; "
        f"retrieval {retrieval_s:.1f} s, extractive answers {answer_s:.1f} s\n"
    )
    print("| responses | scored | mean faithfulness | faithfulness 1.0 | caught | scoring |")
    print("|---|---|---|---|---|---|")
    print(
        f"| extractive (no answer: {empty}) | {len(original)} | "
        f"{statistics.fmean(original.values()):.4f} | {ones} ({ones / len(original):.1%}) | – | "
        f"{score_s:.2f} s |"
    )
    print(
        f"| + a sentence with an absent number | {len(added)} | "
        f"{statistics.fmean(added.values()):.4f} | {sum(v == 1.0 for v in added.values())} | "
        f"{a_caught} of {a_n} ({a_caught / max(a_n, 1):.1%}) | {added_s:.2f} s |"
    )
    print(
        f"| its number swapped for an absent one | {len(swapped)} | "
        f"{statistics.fmean(swapped.values()) if swapped else float('nan'):.4f} | "
        f"{sum(v == 1.0 for v in swapped.values())} | "
        f"{s_caught} of {s_n} ({s_caught / max(s_n, 1):.1%}) | |"
    )


if __name__ == "__main__":
    main()
