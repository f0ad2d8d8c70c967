"""``goldsmith eval``, ``compare`` and ``drift`` with ``faithfulness``: the share of each
response's claims its contexts support, with the unsupported claims as reasons, the claims in
the JSON, a drop rule that fires, and ``answer_relevance`` refused without a judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goldsmith.cli import main
from tests.engine.test_goldsmith_eval_scores_answers import QRELS, RUN, jsonl

# q2 adds a claim whose number no context holds.
ALTERED = [
    {**r, "response": r["response"] + " A fee of 25 dollars applies."}
    if r["query_id"] == "q2"
    else r
    for r in RUN
]


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str, str]:
    return (
        str(jsonl(tmp_path / "qrels.jsonl", QRELS)),
        str(jsonl(tmp_path / "run.jsonl", RUN)),
        str(jsonl(tmp_path / "altered.jsonl", ALTERED)),
    )


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_scores_faithfulness_with_its_claims(files, capsys):
    q, r, _ = files
    code, out, err = run_main(capsys, "eval", q, r, "-m", "faithfulness", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    # q1 says 14 days, its contexts 7 days; q2 and q3 copy their contexts; q4 has no response.
    assert doc["per_query"] == {
        "q1": {"faithfulness": 0.0},
        "q2": {"faithfulness": 1.0},
        "q3": {"faithfulness": 1.0},
    }
    assert doc["aggregate"]["faithfulness"]["n"] == 3
    assert doc["aggregate"]["faithfulness"]["mean"] == pytest.approx(2 / 3)
    assert doc["reasons"]["q1"]["faithfulness"] == (
        'the claim is not supported by the contexts: "You have 14 days." states 14 days, '
        "which no context holds"
    )
    assert doc["claims"]["q1"]["unsupported"][0]["missing"] == ["14 days"]
    assert doc["claims"]["q2"] == {"claims": 1, "threshold": 0.75, "unsupported": []}


def test_drift_fires_on_a_faithfulness_drop(files, capsys):
    q, r, altered = files
    code, out, _ = run_main(
        capsys, "drift", q, r, altered, "--max-answer-drop", "faithfulness=0.05"
    )
    # q2 falls from 1 to 1/2: the mean from 2/3 to 1/2, a drop of 0.1667.
    assert code == 3
    assert "mean faithfulness dropped 0.1667 (0.6667 → 0.5000), more than 0.05" in out


def test_compare_tests_faithfulness_paired(files, capsys):
    q, r, altered = files
    code, out, _ = run_main(
        capsys, "compare", q, r, altered, "-m", "faithfulness", "--format", "json"
    )
    assert code == 0
    row = json.loads(out)["metrics"]["faithfulness"]
    assert row["n"] == 3 and row["diff"] == pytest.approx(-1 / 6)
    assert (row["wins"], row["ties"], row["losses"]) == (0, 2, 1)
    assert 0 <= row["p_randomization"] <= 1


def test_the_table_names_the_unfaithful_queries_of_each_quadrant(files, capsys):
    q, r, _ = files
    code, out, _ = run_main(
        capsys, "eval", q, r, "-m", "context_recall@5", "answer_correctness", "faithfulness"
    )
    assert code == 0
    assert "unfaithful (faithfulness below 0.7): 1 (q1)" in out


def test_answer_relevance_needs_a_judge(files, capsys):
    q, r, _ = files
    code, _, err = run_main(capsys, "eval", q, r, "-m", "answer_relevance")
    assert code == 2
    assert "answer_relevance is scored only by an answer judge" in err


def test_qrels_without_answer_keys_still_give_faithfulness_and_no_quadrants(tmp_path, capsys):
    bare = [{"query_id": r["query_id"], "judgments": r["judgments"]} for r in QRELS]
    q = str(jsonl(tmp_path / "bare.jsonl", bare))
    r = str(jsonl(tmp_path / "run.jsonl", RUN))
    code, out, err = run_main(capsys, "eval", q, r, "-m", "faithfulness", "--format", "json")
    assert (code, err) == (0, "")  # no warning: faithfulness needs no answer key
    doc = json.loads(out)
    assert doc["aggregate"]["faithfulness"]["n"] == 3
    assert "quadrants" not in doc and "diagnosis" not in doc
