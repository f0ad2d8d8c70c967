"""A retrieval-only run (no query with a response) has context recall and no answer figure:
no answer correctness, fact coverage, answer F1, exact match or quadrants, in the engine's report
and in ``goldsmith eval``, ``compare`` and ``drift``; a run with some responses scores the answer
metrics over the queries with one and says over how many."""

from __future__ import annotations

import json

import pytest

from goldsmith.answers import report as AR
from goldsmith.answers import scoring as S
from goldsmith.answers.model import AnswerKey, Context, KeyFact, StagedQuery
from tests.engine.test_goldsmith_eval_scores_answers import QRELS, RUN, jsonl, run_main

ANSWER_ONLY = ("answer_correctness", "fact_coverage", "answer_f1", "exact_match")
METRICS = ["context_recall@5", *ANSWER_ONLY]

KEYS = [
    AnswerKey("q1", reference_answer="7 days", answer_type="number",
              facts=(KeyFact("refund period is 7 days", ("c1",)),)),
    AnswerKey("q2", reference_answer="Manufacturing defects.",
              facts=(KeyFact("warranty covers manufacturing defects", ("c2",)),)),
    AnswerKey("q3", reference_answer="No", answer_type="boolean",
              facts=(KeyFact("opened items cannot be returned", ("c3",)),)),
]  # fmt: skip
RETRIEVED = [
    StagedQuery("q1", contexts=(Context("c1", "The refund period is 7 days."),)),
    StagedQuery("q2", contexts=(Context("c2", "The warranty covers manufacturing defects."),)),
    StagedQuery("q3", contexts=(Context("c9", "Shipping is free."),)),
]


def answered(*responses: str | None) -> list[StagedQuery]:
    return [
        StagedQuery(s.query_id, contexts=s.contexts, response=r)
        for s, r in zip(RETRIEVED, responses, strict=True)
    ]


def test_a_retrieval_only_report_holds_context_recall_and_nothing_that_reads_an_answer():
    doc = AR.answer_report(KEYS, RETRIEVED, METRICS, samples=0)
    assert doc["has_answers"] is False
    assert doc["responses"] == {"queries": 3, "with_response": 0}
    assert list(doc["aggregate"]) == ["context_recall@5"]
    assert doc["aggregate"]["context_recall@5"]["mean"] == pytest.approx(2 / 3)
    assert "quadrants" not in doc and "diagnosis" not in doc
    assert all(set(v) == {"context_recall@5"} for v in doc["per_query"].values())
    assert all(set(r) == {"context_recall@5"} for r in doc["reasons"].values())
    assert list(doc["scorer"]["metrics"]) == ["context_recall@5"]


def test_a_run_with_some_answers_scores_them_over_the_queries_with_a_response():
    doc = AR.answer_report(KEYS, answered("It takes 7 days.", None, None), METRICS, samples=0)
    assert doc["has_answers"] is True
    assert doc["responses"] == {"queries": 3, "with_response": 1}
    agg = doc["aggregate"]
    assert agg["answer_correctness"]["n"] == 1 and agg["answer_correctness"]["mean"] == 1.0
    assert agg["exact_match"]["n"] == 1 and agg["context_recall@5"]["n"] == 3
    # Only the answered query is placed in the quadrants; the others are not "answer wrong".
    assert sum(doc["quadrants"].values()) == 1
    assert doc["diagnosis"]["queries"]["high_recall_high_correctness"] == ["q1"]
    assert sorted(doc["diagnosis"]["unplaced"]) == ["q2", "q3"]
    assert "answer_correctness" not in doc["reasons"]["q2"]


def test_every_answer_metric_but_context_recall_reads_the_response():
    assert not S.reads_response("context_recall@5")
    assert all(S.reads_response(m) for m in ANSWER_ONLY)


def test_compare_leaves_out_the_answer_rows_when_a_run_has_no_answers_and_says_why():
    a = AR.score_run(KEYS, answered("7 days", "Defects.", "No."), METRICS)
    b = AR.score_run(KEYS, RETRIEVED, METRICS)
    assert not b.has_answers and a.has_answers
    why = AR.not_comparable(a, b, METRICS)
    assert list(why) == list(ANSWER_ONLY)
    assert why["answer_correctness"] == (
        "answer_correctness: run B has no answers (no query with a response)"
    )
    rows = AR.compare_answer_runs(a, b, METRICS, permutations=100, samples=0)
    assert [r.metric for r in rows] == ["context_recall@5"]
    both = AR.not_comparable(b, b, ["answer_f1"])
    assert both == {"answer_f1": "answer_f1: neither run has answers (no query with a response)"}


def test_an_answer_drop_rule_does_not_fire_when_either_side_has_no_answers():
    before = AR.score_run(KEYS, answered("7 days", "Defects.", "No."), METRICS)
    now = AR.score_run(KEYS, RETRIEVED, METRICS)
    drift = AR.answer_drift(now, before, {"answer_correctness": 0.05}, permutations=100)
    assert drift["fired"] == [] and "answer_correctness" not in drift["current"]
    assert drift["not_applied"] == {
        "answer_correctness": (
            "answer_correctness: the current run has no answers (no query with a response)"
        )
    }


def _retrieval_only(tmp_path):
    rows = [{k: v for k, v in r.items() if k != "response"} for r in RUN]
    return str(jsonl(tmp_path / "retrieval.jsonl", rows))


def test_goldsmith_eval_says_this_run_has_no_answers(tmp_path, capsys):
    qrels = str(jsonl(tmp_path / "qrels.jsonl", QRELS))
    run = _retrieval_only(tmp_path)
    metrics = ["context_recall@5", "answer_correctness", "answer_f1"]
    code, out, err = run_main(capsys, "eval", qrels, run, "-m", *metrics, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and "this run has no answers" in err
    assert list(doc["aggregate"]) == ["context_recall@5"]
    assert doc["has_answers"] is False and "quadrants" not in doc and "diagnosis" not in doc
    code, out, _ = run_main(capsys, "eval", qrels, run, "-m", *metrics)
    assert code == 0 and "this run has no answers" in out
    rows = [line.split()[0] for line in out.splitlines() if line.strip()]
    assert "context_recall@5" in rows and "answer_correctness" not in rows
    assert "answer_f1" not in rows and "quadrants:" not in rows


def test_goldsmith_eval_says_over_how_many_queries_the_answers_are_scored(tmp_path, capsys):
    qrels = str(jsonl(tmp_path / "qrels.jsonl", QRELS))
    rows = [RUN[0], {k: v for k, v in RUN[1].items() if k != "response"}, *RUN[2:]]
    run = str(jsonl(tmp_path / "some.jsonl", rows))
    code, out, _ = run_main(capsys, "eval", qrels, run, "-m", "answer_correctness")
    assert code == 0 and "answer metrics over the 2 of 3 queries with a response" in out


def test_goldsmith_compare_and_drift_leave_out_the_answers_of_a_run_without_any(tmp_path, capsys):
    qrels = str(jsonl(tmp_path / "qrels.jsonl", QRELS))
    full, bare = str(jsonl(tmp_path / "full.jsonl", RUN)), _retrieval_only(tmp_path)
    code, out, _ = run_main(
        capsys, "compare", qrels, full, bare, "-m", "recall@5", "answer_correctness",
        "--format", "json",
    )  # fmt: skip
    doc = json.loads(out)
    assert code == 0 and list(doc["metrics"]) == ["recall@5"]
    assert doc["not_compared"] == {
        "answer_correctness": "answer_correctness: run B has no answers (no query with a response)"
    }
    code, out, _ = run_main(
        capsys, "compare", qrels, full, bare, "-m", "recall@5", "answer_correctness"
    )
    assert code == 0 and "not compared: answer_correctness: run B has no answers" in out
    code, out, _ = run_main(
        capsys, "drift", qrels, full, bare, "--max-answer-drop", "answer_correctness=0.05"
    )
    assert "rule not applied: answer_correctness: the current run has no answers" in out
    assert "drift: mean answer_correctness" not in out
