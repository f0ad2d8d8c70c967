"""Answers and stages: what a RAG pipeline's answer is measured by, apart from its retrieval.

Pure package (numpy and the standard library; no Django). The web app, the Celery workers and
``goldsmith eval`` call the same functions.

- :mod:`~goldsmith.answers.model`: :class:`AnswerKey` (reference answer, type, choices, key
  facts), :class:`KeyFact`, :class:`StagedQuery` (candidates, final list, contexts, response);
- :mod:`~goldsmith.answers.values`: numbers with units, dates, yes/no and choices read from text;
- :mod:`~goldsmith.answers.text`: SQuAD-style token F1 and the rule that finds a fact in a text;
- :mod:`~goldsmith.answers.scoring`: ``context_recall@K``, ``fact_coverage``, ``answer_f1``,
  ``exact_match``, conflicts, ``answer_correctness`` (each with a reason), first-stage metrics;
- :mod:`~goldsmith.answers.quadrants`: context recall × correctness, with advice;
- :mod:`~goldsmith.answers.extractive`: the extractive answerer baseline;
- :mod:`~goldsmith.answers.judge`: an HTTP judge for open answers (score and reason), its stub;
- :mod:`~goldsmith.answers.report`: the JSON-ready report, comparison and drift.
"""

from goldsmith.answers.model import (
    ANSWER_TYPES,
    CLOSED_TYPES,
    AnswerKey,
    AnswerType,
    Context,
    KeyFact,
    RankedItem,
    StagedQuery,
)

__all__ = [
    "ANSWER_TYPES",
    "CLOSED_TYPES",
    "AnswerKey",
    "AnswerType",
    "Context",
    "KeyFact",
    "RankedItem",
    "StagedQuery",
]
