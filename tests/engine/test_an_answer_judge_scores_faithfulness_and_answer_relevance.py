"""An answer judge may score ``faithfulness`` and ``answer_relevance`` besides correctness: over
HTTP with the stub judge, every response is sent with its contexts, the judge's scores and
reasons are the run's for those metrics (the report names the judge as their scorer, per query
too), a query it gave none is unscored rather than scored by the rules, and a judge that says
nothing of faithfulness leaves it to the rules."""

from __future__ import annotations

import json

import pytest

from goldsmith.answers import report as AR
from goldsmith.answers.judge import AnswerJudgeStub, JudgedAnswer, JudgeIdentity, JudgeResults
from goldsmith.answers.model import AnswerKey, Context, StagedQuery
from goldsmith.cli import main
from tests.engine.test_goldsmith_eval_asks_an_http_judge import QRELS, RUN, jsonl


@pytest.fixture
def stub():
    server = AnswerJudgeStub(("127.0.0.1", 0), keep_bodies=True).start()
    yield server
    server.stop()


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_judges_faithfulness_and_relevance_reach_the_report(stub, tmp_path, capsys):
    q, r = jsonl(tmp_path / "q.jsonl", QRELS), jsonl(tmp_path / "r.jsonl", RUN)
    code, out, err = run_main(
        capsys, "eval", q, r, "-m", "answer_correctness", "faithfulness", "answer_relevance",
        "--format", "json", "--judge-url", stub.url, "--judge-name", "stub",
    )  # fmt: skip
    assert (code, err) == (0, "")
    doc = json.loads(out)
    # Every response is sent, the closed q2 too, each with its contexts' texts.
    assert sorted(b["query_id"] for b in stub.bodies) == ["q1", "q2", "q3"]
    sent = {b["query_id"]: b["contexts"] for b in stub.bodies}
    assert sent == {"q1": ["The refund period is 7 days."], "q2": [], "q3": []}
    # q1 copies its context; q2 and q3 have no context text: no faithfulness, by anyone.
    assert doc["per_query"]["q1"]["faithfulness"] == 1.0
    assert doc["reasons"]["q1"]["faithfulness"] == "the claim is supported by the contexts"
    assert doc["per_query"]["q2"].get("faithfulness") is None
    # Relevance: the share of the question's words the response holds (the stub's rule).
    assert doc["per_query"]["q2"]["answer_relevance"] == 0.0
    assert doc["reasons"]["q2"]["answer_relevance"].endswith("question words answered")
    assert doc["aggregate"]["answer_relevance"]["n"] == 3
    metrics = doc["settings"]["answers"]["metrics"]
    assert metrics["faithfulness"] == metrics["answer_relevance"] == "judge:stub"
    assert doc["scored_by"]["q1"] == {
        "answer_correctness": "judge:stub",
        "faithfulness": "judge:stub",
        "answer_relevance": "judge:stub",
    }
    assert doc["scored_by"]["q2"] == {
        "answer_correctness": "rules",
        "answer_relevance": "judge:stub",
    }
    assert "claims" not in doc  # the rules' claims are not the judge's reason


def test_a_judge_that_says_nothing_of_faithfulness_leaves_it_to_the_rules(stub, tmp_path, capsys):
    q, r = jsonl(tmp_path / "q.jsonl", QRELS), jsonl(tmp_path / "r.jsonl", RUN)
    code, out, _ = run_main(
        capsys, "eval", q, r, "-m", "answer_correctness", "faithfulness", "--format", "json",
        "--judge-url", stub.url, "--judge-faithfulness-path", "",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    assert doc["settings"]["answers"]["metrics"]["faithfulness"] == "rules"
    assert doc["claims"]["q1"] == {"claims": 1, "threshold": 0.75, "unsupported": []}


KEYS = [AnswerKey("q1", "7 days", "number"), AnswerKey("q2"), AnswerKey("q3")]
STAGED = [
    StagedQuery("q1", contexts=(Context("c1", "Refunds take 7 days."),), response="7 days."),
    StagedQuery("q2", contexts=(Context("c1", "Refunds take 7 days."),), response="Never."),
    StagedQuery("q3", contexts=(Context("c1", "Refunds take 7 days."),)),
]


def judged(q2: JudgedAnswer) -> JudgeResults:
    q1 = JudgedAnswer("q1", 1.0, "ok", more={"faithfulness": {"score": 0.25, "reason": "mine"}})
    return JudgeResults(JudgeIdentity("sage"), (q1, q2))


@pytest.mark.parametrize(
    ("q2", "reason"),
    [
        (JudgedAnswer("q2", 1.0, "ok"), "judge:sage gave no faithfulness"),
        (
            JudgedAnswer("q2", 1.0, "ok", more={"faithfulness": {"score": None, "error": "bad"}}),
            "judge:sage gave no score: bad",
        ),
        (
            JudgedAnswer("q2", None, error="HTTP 500 (4 tries)"),
            "judge:sage gave no score: HTTP 500 (4 tries)",
        ),
    ],
)
def test_a_query_the_judge_gave_no_faithfulness_is_unscored_not_scored_by_rules(q2, reason):
    doc = AR.answer_report(KEYS, STAGED, ["faithfulness"], judge=judged(q2), samples=0)
    assert doc["per_query"]["q1"]["faithfulness"] == 0.25
    assert doc["reasons"]["q1"]["faithfulness"] == "mine"
    assert doc["per_query"].get("q2", {}).get("faithfulness") is None
    assert doc["reasons"]["q2"]["faithfulness"] == reason
    assert "q3" not in doc["per_query"]  # no response: nobody scores it
    assert doc["aggregate"]["faithfulness"]["n"] == 1


def test_runs_whose_faithfulness_scorers_differ_are_not_compared():
    rules = AR.score_run(KEYS, STAGED, ["faithfulness"])
    sage = AR.score_run(KEYS, STAGED, ["faithfulness"], judge=judged(JudgedAnswer("q2", 1.0)))
    with pytest.raises(AR.NotComparable, match="faithfulness: run A scored by rules"):
        AR.compare_answer_runs(rules, sage, ["faithfulness"], permutations=100)
    with pytest.raises(AR.NotComparable):
        AR.answer_drift(sage, rules, {"faithfulness": 0.05}, permutations=100)
