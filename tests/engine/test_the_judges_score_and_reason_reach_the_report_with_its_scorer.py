"""A judge's score and reason become answer_correctness of open answers in the answer report,
with the scorer named per metric and per query; the rules' figures stay (fact_coverage,
answer_f1) and closed answers keep their exact match; the quadrants cross the judge's
correctness; a query the judge failed is left unscored and listed; runs scored by different
scorers are refused by compare and drift unless the caller allows it. A property test: the
judge replaces exactly the correctness of open answers with a response, nothing else."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith.answers import report as AR
from goldsmith.answers.judge import (
    AnswerJudgeConfig,
    HttpAnswerJudge,
    JudgedAnswer,
    JudgeIdentity,
    JudgeResults,
)
from goldsmith.answers.model import AnswerKey, Context, KeyFact, StagedQuery
from goldsmith.retrievers.ssrf import Policy
from tests.stub_servers import ScriptedJudge, json_reply

LOCAL = Policy(allow_private=True)
METRICS = ["context_recall@5", "answer_correctness"]

KEYS = [
    # Open, with facts: the rules find a conflict (14 vs 7 days) and score 0.
    AnswerKey(
        "q1",
        reference_answer="Refunds are accepted for 7 days.",
        facts=(KeyFact("refund period is 7 days", ("c1",)), KeyFact("receipt is required")),
        query="How long can I ask for a refund?",
        category="billing",
    ),
    # Closed: exact match by the rules, never sent to the judge.
    AnswerKey("q2", reference_answer="No", answer_type="boolean", query="Opened items?"),
    # Open without facts: the rules use token F1.
    AnswerKey("q3", reference_answer="Manufacturing defects.", query="What is covered?"),
    # Open, no response in the run: not scored on what reads a response (no answer to score).
    AnswerKey("q4", reference_answer="Two years.", query="How long?"),
]
RUN = [
    StagedQuery(
        "q1",
        contexts=(Context("c1", "The refund period is 7 days; a receipt is required."),),
        response="You have 14 days to ask, and a receipt is required.",
    ),
    StagedQuery("q2", response="No."),
    StagedQuery("q3", response="It covers defects from manufacturing."),
    StagedQuery("q4"),
]


def judged(scores: dict[str, float | None], **identity) -> JudgeResults:
    ident = JudgeIdentity(**{"name": "sage", **identity})
    return JudgeResults(
        ident,
        tuple(
            JudgedAnswer(q, s, f"reason for {q}", 1) if s is not None
            else JudgedAnswer(q, None, attempts=4, error="HTTP 500 (4 tries)")
            for q, s in scores.items()
        ),
    )  # fmt: skip


def test_a_real_judges_score_and_reason_reach_the_report():
    def script(n, body, headers):
        payload = json.loads(body)
        return json_reply(
            200, {"verdict": {"score": "0.9"}, "why": f"judged {payload['query_id']}"}
        )

    server = ScriptedJudge(script)
    try:
        config = AnswerJudgeConfig(
            url=server.url,
            name="sage",
            model="m-1",
            prompt_version="v2",
            temperature=0.0,
            score_path="verdict.score",
            reason_path="why",
        )
        with HttpAnswerJudge(config, policy=LOCAL) as judge:
            results = judge.judge_run(KEYS, RUN)
    finally:
        server.stop()
    assert server.calls == 2  # q1 and q3: the open answers with a response
    doc = AR.answer_report(KEYS, RUN, METRICS, judge=results, samples=0)
    pq, reasons = doc["per_query"], doc["reasons"]
    assert pq["q1"]["answer_correctness"] == 0.9 and pq["q3"]["answer_correctness"] == 0.9
    assert reasons["q1"]["answer_correctness"] == "judged q1"
    assert reasons["q3"]["answer_correctness"] == "judged q3"
    # The rules keep their figures beside the judge's.
    assert pq["q1"]["fact_coverage"] == 0.5 and reasons["q1"]["fact_coverage"] == "fact 1 missing"
    assert pq["q3"]["answer_f1"] is not None and pq["q3"]["fact_coverage"] is None
    assert doc["conflicts"] == {"q1": ["says 14 days, reference 7 days"]}
    # Closed queries keep the rules' scores; the unanswered one is scored by nobody.
    assert pq["q2"]["answer_correctness"] == 1.0
    assert reasons["q2"]["answer_correctness"] == "says no, as the reference"
    assert "q4" not in pq and "q4" not in reasons
    assert doc["scored_by"] == {
        "q1": {"answer_correctness": "judge:sage"},
        "q2": {"answer_correctness": "rules"},
        "q3": {"answer_correctness": "judge:sage"},
    }
    assert doc["responses"] == {"queries": 4, "with_response": 3} and doc["has_answers"]
    scorer = doc["scorer"]
    assert scorer["metrics"] == {
        "context_recall@5": "rules",
        "answer_correctness": "judge:sage",
        "fact_coverage": "rules",
        "answer_f1": "rules",
    }
    judge_doc = {k: v for k, v in scorer["judge"].items() if k != "seconds"}
    assert judge_doc == {
        "scorer": "judge:sage",
        "name": "sage",
        "model": "m-1",
        "prompt_version": "v2",
        "temperature": 0.0,
        "judged": 2,
        "failed": 0,
        "by_rules": 1,
    }
    assert doc["judge_failures"] == {}
    assert doc["aggregate"]["answer_correctness"]["mean"] == pytest.approx((0.9 + 1 + 0.9) / 3)
    assert doc["aggregate"]["answer_correctness"]["n"] == 3  # the queries with a response


def test_the_quadrants_cross_the_judges_correctness():
    rules = AR.answer_report(KEYS, RUN, METRICS, samples=0)
    with_judge = AR.answer_report(KEYS, RUN, METRICS, judge=judged({"q1": 1.0, "q3": 1.0}))
    # q1: its linked fact is in context, the unlinked one too (recall 1); the rules say wrong
    # (a conflict), the judge says right.
    q = rules["diagnosis"]["queries"]
    assert "q1" in q["high_recall_low_correctness"]
    assert "q1" in with_judge["diagnosis"]["queries"]["high_recall_high_correctness"]
    # The recall metric is scored for the quadrants even when not asked for.
    only = AR.answer_report(KEYS, RUN, ["answer_correctness"], judge=judged({"q1": 1.0}))
    assert "q1" in only["diagnosis"]["queries"]["high_recall_high_correctness"]
    assert "scored_by" not in rules and "judge_failures" not in rules
    assert rules["scorer"]["metrics"]["answer_correctness"] == "rules"


def test_a_query_the_judge_failed_is_left_unscored_and_listed():
    doc = AR.answer_report(KEYS, RUN, METRICS, judge=judged({"q1": 0.5, "q3": None}), samples=0)
    assert doc["per_query"]["q3"]["answer_correctness"] is None
    assert doc["reasons"]["q3"]["answer_correctness"] == (
        "judge:sage gave no score: HTTP 500 (4 tries)"
    )
    assert doc["judge_failures"] == {"q3": "HTTP 500 (4 tries)"}
    assert doc["aggregate"]["answer_correctness"]["n"] == 2
    assert "q3" in doc["diagnosis"]["unplaced"]
    assert doc["scorer"]["judge"]["failed"] == 1 and doc["scorer"]["judge"]["judged"] == 1
    # A query the judge was never asked about is a failure too, not a silent rule score.
    doc = AR.answer_report(KEYS, RUN, METRICS, judge=judged({"q1": 0.5}), samples=0)
    assert doc["judge_failures"] == {"q3": "the judge was not asked"}


def test_runs_scored_by_different_scorers_are_not_compared_unless_allowed():
    by_rules = AR.score_run(KEYS, RUN, METRICS)
    sage = AR.score_run(KEYS, RUN, METRICS, judge=judged({"q1": 1.0, "q3": 1.0}, model="m-1"))
    sage_again = AR.score_run(KEYS, RUN, METRICS, judge=judged({"q1": 0.0, "q3": 1.0}, model="m-1"))
    sage_m2 = AR.score_run(KEYS, RUN, METRICS, judge=judged({"q1": 1.0, "q3": 1.0}, model="m-2"))
    with pytest.raises(AR.NotComparable) as caught:
        AR.compare_answer_runs(by_rules, sage, ["answer_correctness"], permutations=100)
    assert str(caught.value) == (
        "not comparable: answer_correctness: run A scored by rules, run B by judge:sage "
        "(model m-1) — a comparison needs both runs scored the same way"
    )
    assert AR.scorer_differences(sage, sage_m2, METRICS) == {
        "answer_correctness": "answer_correctness: run A scored by judge:sage (model m-1), "
        "run B by judge:sage (model m-2)"
    }
    # Context recall is the rules' in both: comparable.
    (row,) = AR.compare_answer_runs(by_rules, sage, ["context_recall@5"], permutations=100)
    assert row.diff == 0.0
    (row,) = AR.compare_answer_runs(sage, sage_again, ["answer_correctness"], permutations=100)
    assert row.diff == pytest.approx(-1 / 3)
    (row,) = AR.compare_answer_runs(
        by_rules, sage, ["answer_correctness"], permutations=100, allow_different_scorers=True
    )
    assert row.mean_b == pytest.approx(1.0) and row.diff == pytest.approx(row.mean_b - row.mean_a)
    with pytest.raises(AR.NotComparable, match="a drift rule needs"):
        AR.answer_drift(sage_m2, sage, {"answer_correctness": 0.05}, permutations=100)
    drift = AR.answer_drift(sage_again, sage, {"answer_correctness": 0.05}, permutations=100)
    assert [f["metric"] for f in drift["fired"]] == ["answer_correctness"]


kinds = st.sampled_from(["open", "open-facts", "closed", "none"])
runs = st.sampled_from(["response", "no-response", "missing"])
verdicts = st.one_of(st.none(), st.just("fail"), st.floats(0, 1))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(kinds, runs, verdicts), min_size=1, max_size=8))
def test_the_judge_replaces_exactly_the_open_answers_with_a_response(cases):
    keys, run, answers = [], [], []
    for i, (kind, has, verdict) in enumerate(cases):
        q = f"q{i}"
        keys.append(
            AnswerKey(q)
            if kind == "none"
            else AnswerKey(q, reference_answer="7 days", answer_type="number")
            if kind == "closed"
            else AnswerKey(q, facts=(KeyFact("refund period is 7 days"),))
            if kind == "open-facts"
            else AnswerKey(q, reference_answer="Manufacturing defects.")
        )
        if has != "missing":
            run.append(StagedQuery(q, response="7 days" if has == "response" else None))
        if verdict == "fail":
            answers.append(JudgedAnswer(q, None, error="HTTP 500 (4 tries)"))
        elif verdict is not None:
            answers.append(JudgedAnswer(q, verdict, f"why {q}"))
    metrics = ["answer_correctness", "answer_f1"]
    rules = AR.score_run(keys, run, metrics).answers
    results = JudgeResults(JudgeIdentity("j"), tuple(answers))
    judged = AR.score_run(keys, run, metrics, judge=results)
    if not any(s.response is not None for s in run):  # retrieval-only: no answer figure at all
        assert judged.answers is None and rules is None and not judged.has_answers
        return
    assert judged.judged is not None and rules is not None and judged.answers is not None
    by = {a.query_id: a for a in answers}
    responses = {s.query_id: s.response for s in run}
    ac = judged.answers.metrics.index("answer_correctness")
    rules_ac = rules.metrics.index("answer_correctness")
    for row, key in enumerate(keys):
        q = key.query_id
        value = judged.answers.values[row, ac]
        rule = rules.values[row, rules_ac]
        if key.has_answer and not key.is_closed and responses.get(q) is not None:
            assert judged.judged.scored_by[q] == "judge:j"
            answer = by.get(q)
            if answer is not None and answer.score is not None:
                assert value == answer.score
                assert judged.answers.reasons[row]["answer_correctness"] == f"why {q}"
            else:
                assert value != value and q in judged.judged.failed
        else:
            assert judged.judged.scored_by.get(q) == ("rules" if rule == rule else None)
            assert value == rule or (value != value and rule != rule)
    # The rules' other figures are untouched.
    f1 = judged.answers.column("answer_f1")
    assert [v for v in f1.tolist() if v == v] == [
        v for v in rules.column("answer_f1").tolist() if v == v
    ]


def test_judge_results_are_stored_and_read_back_as_they_were():
    results = judged({"q1": 0.25, "q3": None}, model="m-1", prompt_version="v2", temperature=0.2)
    doc = json.loads(json.dumps(results.to_json()))
    assert JudgeResults.from_json(doc) == results
    assert doc["judge"] == {
        "scorer": "judge:sage",
        "name": "sage",
        "model": "m-1",
        "prompt_version": "v2",
        "temperature": 0.2,
    }
    assert doc["answers"][1] == {
        "query_id": "q3",
        "score": None,
        "reason": "",
        "attempts": 4,
        "latency_ms": 0.0,
        "error": "HTTP 500 (4 tries)",
    }
