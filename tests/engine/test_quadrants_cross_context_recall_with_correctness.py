"""The four quadrants: queries by high/low context recall × high/low correctness, with the
queries in each, counts per category and what to look at."""

from __future__ import annotations

import pytest

from goldsmith.answers.model import AnswerKey, Context, KeyFact, StagedQuery
from goldsmith.answers.quadrants import ADVICE, QUADRANTS, quadrants
from goldsmith.answers.report import diagnosis


def test_queries_are_placed_by_hand_computed_quadrant():
    q = quadrants(
        ["a", "b", "c", "d", "e", "f"],
        [0.2, 0.2, 1.0, 0.7, 0.69999999999, float("nan")],
        [0.0, 1.0, 0.5, 0.7, 1.0, 1.0],
        categories=["x", "x", "y", None, "y", "y"],
    )
    assert dict(q.counts) == {
        "low_recall_low_correctness": 1,
        "low_recall_high_correctness": 1,
        "high_recall_low_correctness": 1,
        "high_recall_high_correctness": 2,
    }
    assert q.queries["high_recall_high_correctness"] == ("d", "e")  # 0.69999999999 ≈ 0.7
    assert q.unplaced == ("f",)
    assert q.by_category["x"]["low_recall_low_correctness"] == 1
    assert q.by_category["(none)"]["high_recall_high_correctness"] == 1
    assert set(q.to_json()["advice"]) == set(QUADRANTS)
    assert "chunking" in ADVICE["low_recall_low_correctness"]
    assert "prompt" in ADVICE["high_recall_low_correctness"]


def test_thresholds_can_be_edited():
    q = quadrants(["a"], [0.5], [0.5], recall_threshold=0.5, correctness_threshold=0.6)
    assert q.queries["high_recall_low_correctness"] == ("a",)
    with pytest.raises(ValueError, match="between 0 and 1"):
        quadrants(["a"], [0.5], [0.5], recall_threshold=1.5)


def test_a_run_is_diagnosed_from_its_scores():
    fact = (KeyFact("refund period is 7 days", ("c1",)),)
    keys = [
        AnswerKey("found-right", reference_answer="7 days", facts=fact, category="billing"),
        AnswerKey("found-wrong", reference_answer="7 days", facts=fact, category="billing"),
        AnswerKey("missed-right", reference_answer="7 days", facts=fact),
        AnswerKey("missed-wrong", reference_answer="7 days", facts=fact),
    ]
    hit, miss = (Context("c1", "The refund period is 7 days."),), (Context("c9", "Hello."),)
    run = [
        StagedQuery("found-right", contexts=hit, response="The refund period is 7 days."),
        StagedQuery("found-wrong", contexts=hit, response="The refund period is 14 days."),
        StagedQuery("missed-right", contexts=miss, response="refund period is 7 days"),
        StagedQuery("missed-wrong", contexts=miss, response="No idea."),
    ]
    q = diagnosis(keys, run, recall_metric="context_recall@5")
    assert {name: list(ids) for name, ids in q.queries.items()} == {
        "low_recall_low_correctness": ["missed-wrong"],
        "low_recall_high_correctness": ["missed-right"],
        "high_recall_low_correctness": ["found-wrong"],
        "high_recall_high_correctness": ["found-right"],
    }
    assert q.by_category["billing"]["high_recall_low_correctness"] == 1
