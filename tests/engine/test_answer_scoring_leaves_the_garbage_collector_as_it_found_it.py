"""Scoring answers pauses Python's cyclic garbage collector (its collections cost an eighth
of the scoring time of a large run) and leaves it as it found it, also when scoring fails; and
scoring makes no reference cycles, so nothing waits for the collector meanwhile."""

from __future__ import annotations

import gc

import pytest

from goldsmith.answers.model import AnswerKey, Context, KeyFact, StagedQuery
from goldsmith.answers.scoring import score_answers

METRICS = ["context_recall@5", "fact_coverage", "answer_f1", "exact_match", "answer_correctness"]


def workload(n: int) -> tuple[list[AnswerKey], list[StagedQuery]]:
    keys, run = [], []
    for q in range(n):
        facts = (
            KeyFact(f"the refund period for order {q} is {q % 30 + 1} days", (f"c{q}",)),
            KeyFact(f"exceptions beyond {q % 30 + 1} days need a receipt from March 5, 2024"),
            KeyFact("shipping costs 5 euros"),
        )
        kind = ("open", "number", "date", "boolean")[q % 4]
        ref = {"open": "7 days", "number": "14 days", "date": "2024-03-05", "boolean": "yes"}
        keys.append(AnswerKey(f"q{q}", ref[kind], kind, facts=facts))  # type: ignore[arg-type]
        contexts = (
            Context(f"c{q}", f"Refunds: the refund period for order {q} is 7 days."),
            Context("x", "Exceptions beyond seven days need a receipt (5 March 2024)."),
        )
        response = "Yes, within two weeks, shipping 5 euros" if q % 2 else "14 days"
        run.append(StagedQuery(f"q{q}", contexts=contexts, response=response))
    return keys, run


def test_the_collector_is_on_again_after_scoring_and_off_when_it_was_off():
    keys, run = workload(40)
    assert gc.isenabled()
    result = score_answers(keys, run, METRICS)
    assert gc.isenabled()
    assert result.values.shape == (40, 5)
    gc.disable()
    try:
        score_answers(keys, run, METRICS)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_is_on_again_when_scoring_fails():
    keys, _ = workload(1)
    broken = StagedQuery("q0", contexts=(Context("c0", "text"),), response=7)  # type: ignore[arg-type]
    with pytest.raises((TypeError, AttributeError)):
        score_answers(keys, [broken], METRICS)
    assert gc.isenabled()


def test_scoring_makes_no_reference_cycles():
    keys, run = workload(200)
    score_answers(keys, run, METRICS)  # first use: compiled patterns, loaded tables
    gc.collect()
    gc.disable()
    try:
        result = score_answers(keys, run, METRICS)
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert unreachable == 0
    assert len(result.reasons) == 200
