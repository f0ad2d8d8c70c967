"""A run that lists the same id twice for one query (trec_eval refuses such a file) is scored
with the id counted once, at its first place in the ranking, as the design says; `goldsmith
eval` keeps the first and names FILE:LINE of the repeat on stderr, for TREC and JSONL runs."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

from goldsmith.cli import main as goldsmith
from goldsmith.formats.detect import run_repeats

QRELS = "q1 0 a 2\nq1 0 b 2\nq2 0 c 2\n"


def run_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = goldsmith(list(args))
    return status, out.getvalue(), err.getvalue()


def test_a_trec_run_keeps_the_first_copy_and_names_the_line_of_the_repeat(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text("q1 Q0 a 1 3 x\nq1 Q0 z 2 2 x\nq1 Q0 a 3 1 x\nq2 Q0 c 1 1 x\n")
    status, out, err = run_cli(
        "eval", str(qrels), str(run), "-m", "recall@2", "precision", "--format", "json"
    )
    assert status == 0
    agg = json.loads(out)["aggregate"]
    # q1 lists a, z (the second a dropped): recall@2 = 1/2, precision = 1/2; q2: 1 and 1
    assert agg["recall@2"]["mean"] == 0.75 and agg["precision"]["mean"] == 0.75
    assert err.count("\n") == 1
    assert f"warning: {run}:3: id 'a' is listed again for query 'q1' (first on line 1)" in err
    assert "copies dropped: 1, in queries: 1" in err


def test_a_jsonl_run_names_the_line_of_the_list(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.jsonl"
    qrels.write_text(QRELS)
    run.write_text(
        '{"query_id": "q2", "results": [{"id": "c"}]}\n'
        '{"query_id": "q1", "results": [{"id": "b"}, {"id": "b"}, {"id": "a"}]}\n'
    )
    status, out, err = run_cli("eval", str(qrels), str(run), "-m", "recall@2")
    assert status == 0
    assert "recall@2  1.0000" in out  # b, a after the copy is dropped
    assert f"{run}:2: id 'b' is listed again for query 'q1' (earlier on this line)" in err


def test_a_run_without_repeats_says_nothing(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text("q1 Q0 a 1 3 x\nq1 Q0 b 2 2 x\nq2 Q0 c 1 1 x\n")
    assert run_cli("eval", str(qrels), str(run), "-m", "recall@2")[2] == ""


def test_every_repeat_is_found_in_file_order(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("# a comment\nq1 Q0 a 1 3 x\nq2 Q0 a 1 3 x\nq1 Q0 a 2 2 x\n\nq1 Q0 a 3 1 x\n")
    found = run_repeats(run, "trec")
    assert [(r.query_id, r.id, r.line, r.first_line) for r in found] == [
        ("q1", "a", 4, 2),
        ("q1", "a", 6, 2),
    ]
    assert run_repeats(run, "trec", {"q2"}) == []
