"""`judge_answers` — what the job that finishes a run calls — sends a run's open answers to a
registered judge (here `goldsmith answer-judge-stub` running as its own process, with a
token) and returns the stub's score and reason for each, in the items' order, with the
judge's identity as configured (name, model, prompt version, temperature). The results store
and read back whole, and give the report its judge's correctness with the scorer named."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from evaluation.services.answer_judges import answer_judge_register, judge_answers
from goldsmith.answers.judge import (
    AnswerItem,
    JudgeIdentity,
    JudgeResults,
    fact_overlap_score,
    judge_items,
)
from goldsmith.answers.model import AnswerKey, KeyFact, RankedItem, StagedQuery
from goldsmith.answers.report import answer_report
from tests.conftest import REPO

TOKEN = "stub-token-8080"
KEYS = [
    AnswerKey(
        "q1",
        "Refunds within 7 days with a receipt.",
        facts=(KeyFact("refund period is 7 days", ("c1",)), KeyFact("receipt is required")),
        query="How long is the refund period?",
    ),
    AnswerKey("q2", "No", "boolean", query="Can I return opened items?"),
    AnswerKey("q3", "Manufacturing defects.", query="What does the warranty cover?"),
    AnswerKey(
        "q4",
        "Ships in two days.",
        facts=(KeyFact("ships within two days"),),
        query="How fast is shipping?",
    ),
]
RUN = [
    StagedQuery("q1", (RankedItem("c1"),), response="The refund period is 7 days."),
    StagedQuery("q2", (RankedItem("c3"),), response="No."),
    StagedQuery("q3", (RankedItem("c5"),), response="It covers manufacturing defects."),
    StagedQuery("q4", (RankedItem("c7"),), response="I do not know."),
]


@pytest.fixture
def stub_process():
    env = {**os.environ, "PYTHONPATH": str(REPO), "STUB_TOKEN": TOKEN}
    proc = subprocess.Popen(
        [sys.executable, "-m", "goldsmith.cli", "answer-judge-stub", "--port", "0",
         "--delay-ms", "5", "--token-env", "STUB_TOKEN"],
        stdout=subprocess.PIPE, text=True, env=env, cwd=REPO,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("http://127.0.0.1:"), line
        yield line.split()[0]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def judge(personas, private_urls, stub_process):
    return answer_judge_register(
        project=personas.project,
        name="sage",
        url=stub_process,
        model="m-1",
        prompt_version="v2",
        temperature=0.2,
        config={"max_concurrency": 3},
        auth_header_name="Authorization",
        auth_header_value=f"Bearer {TOKEN}",
    )


def test_it_returns_the_stubs_scores_and_reasons_in_order(judge):
    items = judge_items(KEYS, RUN)
    assert [i.query_id for i in items] == ["q1", "q3", "q4"]  # open answers only
    results = judge_answers(judge=judge, items=items)
    assert results.identity == JudgeIdentity("sage", "m-1", "v2", 0.2)
    assert results.scorer == "judge:sage"
    expected = [fact_overlap_score(i.reference_answer, i.facts, i.response) for i in items]
    assert [(a.query_id, a.score, a.reason) for a in results.answers] == [
        (i.query_id, *e) for i, e in zip(items, expected, strict=True)
    ]
    assert [a.reason for a in results.answers] == [
        "1 of 2 facts stated; missing: 2",
        "2 of 2 reference words in the response",
        "0 of 1 facts stated; missing: 1",
    ]
    assert all(a.error == "" and a.attempts == 1 for a in results.answers)
    assert results.seconds > 0
    assert JudgeResults.from_json(results.to_json()) == results


def test_many_answers_come_back_in_the_items_order(judge):
    items = [
        AnswerItem(
            f"q{n}", "q", None, "open", ("parcels ship within two days",),
            "Parcels ship within two days." if n % 3 else "I cannot say.",
        )
        for n in range(40)
    ]  # fmt: skip
    results = judge_answers(judge=judge, items=items)
    assert [a.query_id for a in results.answers] == [i.query_id for i in items]
    assert [a.score for a in results.answers] == [1.0 if n % 3 else 0.0 for n in range(40)]


def test_the_report_takes_the_judges_correctness_and_names_it(judge):
    results = judge_answers(judge=judge, items=judge_items(KEYS, RUN))
    report = answer_report(KEYS, RUN, ["answer_correctness", "fact_coverage"], judge=results)
    assert report["per_query"]["q1"]["answer_correctness"] == 0.5
    assert report["reasons"]["q3"]["answer_correctness"] == (
        "2 of 2 reference words in the response"
    )
    assert report["scored_by"] == {
        "q1": {"answer_correctness": "judge:sage"},
        "q2": {"answer_correctness": "rules"},
        "q3": {"answer_correctness": "judge:sage"},
        "q4": {"answer_correctness": "judge:sage"},
    }
    recorded = report["scorer"]["judge"]
    assert {k: recorded[k] for k in ("name", "model", "prompt_version", "temperature")} == {
        "name": "sage",
        "model": "m-1",
        "prompt_version": "v2",
        "temperature": 0.2,
    }


def test_no_items_ask_nothing(judge):
    results = judge_answers(judge=judge, items=[])
    assert results.answers == () and results.identity.name == "sage"
