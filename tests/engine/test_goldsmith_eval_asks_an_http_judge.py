"""``goldsmith eval --judge-url`` against ``goldsmith answer-judge-stub`` running as a real
process: open answers get the stub's score and reason as answer_correctness, the JSON and the
table name the scorer and the judge's settings as configured, ``compare`` and ``drift`` judge
both runs with the same judge, and judge options without what they need are bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from goldsmith.cli import main

REPO = Path(__file__).resolve().parents[2]
QRELS = [
    {
        "query_id": "q1",
        "query": "How long is the refund period?",
        "judgments": [{"id": "c1", "grade": 2}],
        "reference_answer": "Refunds within 7 days with a receipt.",
        "reference_facts": [
            {"text": "refund period is 7 days", "chunk_ids": ["c1"]},
            {"text": "receipt is required", "chunk_ids": []},
        ],
    },
    {
        "query_id": "q2",
        "query": "Can I return opened items?",
        "judgments": [{"id": "c3", "grade": 2}],
        "reference_answer": "No",
        "answer_type": "boolean",
    },
    {
        "query_id": "q3",
        "query": "What does the warranty cover?",
        "judgments": [{"id": "c5", "grade": 2}],
        "reference_answer": "Manufacturing defects.",
    },
]
RUN = [
    {
        "query_id": "q1",
        "results": [{"id": "c1"}],
        "contexts": [{"id": "c1", "text": "The refund period is 7 days."}],
        "response": "The refund period is 7 days.",
    },
    {"query_id": "q2", "results": [{"id": "c3"}], "response": "No."},
    {"query_id": "q3", "results": [{"id": "c5"}], "response": "It covers manufacturing defects."},
]
WORSE = [{**r, "response": "I do not know."} if r["query_id"] == "q3" else r for r in RUN]


def jsonl(path: Path, rows: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


@pytest.fixture(scope="module")
def stub_url():
    env = {**os.environ, "PYTHONPATH": str(REPO), "STUB_TOKEN": "tok-123"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "goldsmith.cli", "answer-judge-stub", "--port", "0",
         "--delay-ms", "2", "--token-env", "STUB_TOKEN"],
        stdout=subprocess.PIPE, text=True, env=env, cwd=REPO,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("http://127.0.0.1:") and "answer judge stub" in line
        yield line.split()[0]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def judge_args(stub_url, monkeypatch):
    monkeypatch.setenv("STUB_AUTH", "Authorization: Bearer tok-123")
    return ["--judge-url", stub_url, "--judge-name", "stub", "--judge-model", "m-1",
            "--judge-prompt-version", "v2", "--judge-temperature", "0",
            "--judge-header-env", "STUB_AUTH"]  # fmt: skip


@pytest.fixture
def files(tmp_path):
    return (
        jsonl(tmp_path / "qrels.jsonl", QRELS),
        jsonl(tmp_path / "run.jsonl", RUN),
        jsonl(tmp_path / "worse.jsonl", WORSE),
    )


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_json_has_the_judges_scores_reasons_and_settings(files, judge_args, capsys):
    q, r, _ = files
    code, out, err = run_main(
        capsys, "eval", q, r, "-m", "context_recall@5", "answer_correctness",
        "--format", "json", *judge_args,
    )  # fmt: skip
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert doc["per_query"]["q1"]["answer_correctness"] == 0.5
    assert doc["reasons"]["q1"]["answer_correctness"] == "1 of 2 facts stated; missing: 2"
    assert doc["per_query"]["q3"]["answer_correctness"] == 1.0
    assert doc["reasons"]["q3"]["answer_correctness"] == "2 of 2 reference words in the response"
    assert doc["reasons"]["q2"]["answer_correctness"] == "says no, as the reference"
    assert doc["per_query"]["q1"]["fact_coverage"] == 0.5  # the rules' figure stays
    assert doc["scored_by"] == {
        "q1": {"answer_correctness": "judge:stub"},
        "q2": {"answer_correctness": "rules"},
        "q3": {"answer_correctness": "judge:stub"},
    }
    answers = doc["settings"]["answers"]
    assert answers["metrics"]["answer_correctness"] == "judge:stub"
    assert {k: answers["judge"][k] for k in ("name", "model", "prompt_version", "temperature")} == {
        "name": "stub",
        "model": "m-1",
        "prompt_version": "v2",
        "temperature": 0.0,
    }
    assert (answers["judge"]["judged"], answers["judge"]["failed"]) == (2, 0)
    assert doc["judge_failures"] == {}
    assert doc["aggregate"]["answer_correctness"]["mean"] == pytest.approx(2.5 / 3)


def test_the_table_names_the_judge(files, judge_args, capsys):
    q, r, _ = files
    code, out, _ = run_main(
        capsys, "eval", q, r, "-m", "answer_correctness", "--per-query", *judge_args
    )
    assert code == 0
    assert "    answer_correctness (judge:stub): 1 of 2 facts stated; missing: 2" in out
    assert "    answer_correctness: says no, as the reference" in out
    assert (
        "answer_correctness of open answers scored by judge:stub (model m-1, prompt v2, "
        "temperature 0): 2 judged, 0 failed (left out); 1 by rules" in out
    )


def test_compare_and_drift_judge_both_runs_alike(files, judge_args, capsys):
    q, r, worse = files
    code, out, err = run_main(
        capsys, "compare", q, r, worse, "-m", "answer_correctness", "--format", "json",
        "--permutations", "200", *judge_args,
    )  # fmt: skip
    assert code == 0, err
    row = json.loads(out)["metrics"]["answer_correctness"]
    # q3: the stub gave 1.0 in A; "I do not know." holds no reference word in B.
    assert row["diff"] == pytest.approx(-1 / 3) and row["losses"] == 1
    code, out, err = run_main(
        capsys, "drift", q, r, worse, "--max-answer-drop", "answer_correctness=0.05",
        "--format", "json", "--permutations", "200", *judge_args,
    )  # fmt: skip
    assert code == 3, err
    fired = json.loads(out)["answer_drift"]["fired"]
    assert [f["metric"] for f in fired] == ["answer_correctness"]


def test_judge_options_without_what_they_need_are_bad_input(files, stub_url, capsys):
    q, r, _ = files
    code, _, err = run_main(capsys, "eval", q, r, "-m", "answer_correctness", "--judge-model", "x")
    assert code == 2 and err == "goldsmith: --judge-model needs --judge-url\n"
    code, _, err = run_main(capsys, "eval", q, r, "-m", "recall@5", "--judge-url", stub_url)
    assert code == 2 and "--judge-url needs an answer metric: -m answer_correctness" in err
    code, _, err = run_main(
        capsys, "eval", q, r, "-m", "answer_correctness", "--judge-url", "ftp://x"
    )
    assert code == 2 and "the URL must start with http:// or https://" in err
    code, out, err = run_main(
        capsys, "eval", q, r, "-m", "context_recall@5", "--judge-url", stub_url
    )
    assert code == 0 and "none of which was asked for (-m answer_correctness)" in err
    # Without the token the stub refuses: every judged answer is reported, none scored.
    code, out, err = run_main(
        capsys, "eval", q, r, "-m", "answer_correctness", "--judge-url", stub_url,
        "--format", "json",
    )  # fmt: skip
    assert code == 0
    assert "judge:judge gave no score for 2 of 2 answers, left unscored: q1: HTTP 401" in err
    assert json.loads(out)["judge_failures"] == {"q1": "HTTP 401", "q3": "HTTP 401"}
