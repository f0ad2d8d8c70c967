"""A small HTTP RAG pipeline for tests: every stage of each query from a fixed table.

POST /search with ``{"query", "query_id", "top_k"}`` answers
``{"retrieval": {"candidates": [...], "reranked": [...]}, "contexts": [...], "answer": ...}``:
the first-stage candidates and the reranked list as ``{"chunk": id, "relevance": score}``
items, the contexts as ``{"doc": id, "body": text}``, the answer a string (or null). The
field names differ from the defaults on purpose: the retriever's dotted paths map them.

Also here: the golden set with answer keys these tests share (:func:`make_rag_golden`) and the
quadrant each of its queries must land in, worked out by hand.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tests.stub_servers import StubRetriever

FACT_A = "the refund period is 7 days"
FACT_B = "exceptions need a manager approval"
TEXT_A = "The refund period is 7 days from delivery."
TEXT_B = "Exceptions need a manager approval in writing."


@dataclass(frozen=True)
class Stage:
    """What the pipeline answers for one query."""

    candidates: tuple[str, ...]
    reranked: tuple[str, ...]
    contexts: tuple[tuple[str, str], ...]
    answer: str | None


class RagStub(StubRetriever):
    def __init__(self, table: Mapping[str, Stage], **kwargs: Any) -> None:
        super().__init__({}, **kwargs)
        self.table = dict(table)

    def config(self, **overrides: Any) -> dict[str, Any]:
        base = super().config(
            results_path="retrieval.reranked",
            id_field="chunk",
            score_field="relevance",
            candidates_path="retrieval.candidates",
            contexts_path="contexts",
            context_id_field="doc",
            context_text_field="body",
            response_path="answer",
        )
        base.update(overrides)
        return base

    def _answer(self, handler: Any, query: str, qid: str, top_k: int) -> None:
        with self._lock:
            self.calls += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.latency:
                time.sleep(self.latency)
            self._answer_stage(handler, qid, top_k)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _answer_stage(self, handler: Any, qid: str, top_k: int) -> None:
        stage = self.table.get(qid)
        if stage is None:
            self._send(handler, 404, {"error": "unknown query"})
            return

        def ranked(ids: tuple[str, ...]) -> list[dict[str, Any]]:
            return [{"chunk": c, "relevance": round(1.0 - i / 100, 4)} for i, c in enumerate(ids)]

        self._send(
            handler,
            200,
            {
                "retrieval": {
                    "candidates": ranked(stage.candidates),
                    "reranked": ranked(stage.reranked[:top_k]),
                },
                "contexts": [{"doc": i, "body": t} for i, t in stage.contexts],
                "answer": stage.answer,
            },
        )


def _noise(i: int, n: int) -> tuple[str, ...]:
    return tuple(f"u{i}-{j}" for j in range(n))


def rag_table() -> dict[str, Stage]:
    """Eight queries. Each of q1..q6 and q8 has two key facts (q5, q6: one) linked to r{i}a and
    r{i}b; q7 has no answer key. The first stage finds both relevant chunks of every query in
    its 20 candidates; the reranker keeps them in its top 5 only for q1, q3, q5 and q8."""
    ctx_a, ctx_b = lambda i: (f"r{i}a", TEXT_A), lambda i: (f"r{i}b", TEXT_B)
    both = "The refund period is 7 days. Exceptions need a manager approval."
    table: dict[str, Stage] = {}
    for i in range(1, 9):
        cands = (*_noise(i, 8), f"r{i}a", *_noise(i + 100, 5), f"r{i}b", *_noise(i + 200, 5))
        if i in (1, 3, 5, 8):
            reranked = (f"r{i}a", f"r{i}b", *_noise(i, 3))
        else:
            reranked = (f"r{i}a", *_noise(i, 4))
        table[f"q{i}"] = Stage(cands, reranked, (), None)
    table["q1"] = replace_stage(table["q1"], (ctx_a(1), ctx_b(1)), both)
    table["q2"] = replace_stage(table["q2"], (ctx_a(2), ("u2-0", "Unrelated text.")), both)
    table["q3"] = replace_stage(table["q3"], (ctx_a(3), ctx_b(3)), "I cannot tell from this.")
    table["q4"] = replace_stage(table["q4"], (("u4-0", "Unrelated text."),), "Nobody knows.")
    table["q5"] = replace_stage(table["q5"], (ctx_a(5),), "14 days")
    table["q6"] = replace_stage(table["q6"], (("u6-0", "Unrelated text."),), "Yes, you can.")
    table["q7"] = replace_stage(table["q7"], (ctx_a(7),), "Whatever.")
    table["q8"] = replace_stage(table["q8"], (ctx_a(8), ctx_b(8)), None)
    return table


def replace_stage(stage: Stage, contexts: tuple[tuple[str, str], ...], answer: str | None) -> Stage:
    return Stage(stage.candidates, stage.reranked, contexts, answer)


# By hand, at the default thresholds (the pass threshold 0.7) and K = 5 contexts:
#   q1: recall 2/2 = 1.0, the response states both facts (coverage 1.0)        → high, high
#   q2: recall 1/2 = 0.5, the response states both facts (1.0)                 → low, high
#   q3: recall 1.0, the response states neither fact (0.0)                     → high, low
#   q4: recall 0.0, the response states neither (0.0)                          → low, low
#   q5: recall 1/1 (its one fact), number "14 days" against "7 days": 0         → high, low
#   q6: recall 0/1, boolean "Yes, you can." against "yes": 1                   → low, high
#   q7: no answer key                                                          → not placed
#   q8: recall 1.0, no response: no correctness (no answer to score)           → not placed
EXPECTED_QUADRANTS = {
    "low_recall_low_correctness": ["q4"],
    "low_recall_high_correctness": ["q2", "q6"],
    "high_recall_low_correctness": ["q3", "q5"],
    "high_recall_high_correctness": ["q1"],
}


@dataclass
class RagGolden:
    version: Any
    table: dict[str, Stage]


WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")


def corpus_texts(i: int) -> dict[str, str]:
    """The corpus texts of query i's chunks r{i}a, r{i}b and n{i} (its product named by a
    word of its own)."""
    w = WORDS[i - 1]
    return {
        f"r{i}a": f"The {w} refund period is 7 days from delivery. Keep the {w} receipt.",
        f"r{i}b": f"Exceptions for the {w} need a manager approval in writing.",
        f"n{i}": f"The {w} comes in three colours.",
    }


def make_rag_golden(
    project: Any, *, label: str | None = None, with_corpus: bool = False
) -> RagGolden:
    """The version of the eight queries with their answer keys and judgments (r{i}a, r{i}b
    grade 2, n{i} grade 0), categories "refunds" (odd queries) and "policy" (even);
    ``with_corpus`` adds those chunks to the project's corpus (:func:`corpus_texts`)."""
    from annotation.services.goldsets import LoadedGoldset, golden_set_version_import
    from goldsmith.answers.model import KeyFact
    from goldsmith.formats.beir import CorpusRow
    from goldsmith.formats.goldset import GoldenQuery, GoldJudgment

    queries = []
    for i in range(1, 9):
        judgments = (
            GoldJudgment(f"r{i}a", 2, doc_id=f"d{i}", start=0, end=40, text=TEXT_A),
            GoldJudgment(f"r{i}b", 2, doc_id=f"d{i}", start=40, end=90, text=TEXT_B),
            GoldJudgment(f"n{i}", 0, doc_id=f"e{i}", start=0, end=20, text="noise"),
        )
        answer: dict[str, Any] = {}
        if i == 5:
            answer = {
                "reference_answer": "7 days",
                "answer_type": "number",
                "reference_facts": (KeyFact(FACT_A, (f"r{i}a",)),),
            }
        elif i == 6:
            answer = {
                "reference_answer": "yes",
                "answer_type": "boolean",
                "reference_facts": (KeyFact(FACT_B, (f"r{i}b",)),),
            }
        elif i != 7:
            answer = {
                "reference_answer": "The refund period is 7 days; exceptions need a manager.",
                "answer_type": "open",
                "reference_facts": (
                    KeyFact(FACT_A, (f"r{i}a",)),
                    KeyFact(FACT_B, (f"r{i}b",)),
                ),
            }
        queries.append(
            GoldenQuery(
                query_id=f"q{i}",
                query=f"how long is the {WORDS[i - 1]} refund period?",
                judgments=judgments,
                category="refunds" if i % 2 else "policy",
                **answer,
            )
        )
    corpus = None
    if with_corpus:
        corpus = [
            CorpusRow(chunk_id=c, text=t, doc_id=f"d{i}", start=0, end=80)
            for i in range(1, 9)
            for c, t in corpus_texts(i).items()
        ]
    loaded = LoadedGoldset(queries=queries, header=None, corpus=corpus, source_name="rag.jsonl")
    version = golden_set_version_import(
        project=project, by=None, loaded=loaded, fmt="jsonl", label=label
    )
    return RagGolden(version=version, table=rag_table())
