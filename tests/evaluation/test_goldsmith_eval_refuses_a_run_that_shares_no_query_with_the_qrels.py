"""A run that answers none of the judged queries (another query set, or ids written another
way) would score 0.000 on every metric as "missing from the run": `goldsmith eval` refuses it
with exit 2 and the two first ids, for retrieval and answer metrics alike."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout

from goldsmith.cli import main as goldsmith


def run_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = goldsmith(list(args))
    return status, out.getvalue(), err.getvalue()


def test_a_trec_run_of_other_query_ids_exits_2_with_the_reason(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 a 2\nq2 0 b 2\n")
    run.write_text("1 Q0 a 1 1.0 x\n2 Q0 b 1 1.0 x\n")
    status, out, err = run_cli("eval", str(qrels), str(run), "-m", "recall@10")
    assert (status, out) == (2, "")
    assert f"{run} and {qrels} share no query id" in err
    assert "the run's first: '1', the judgments' first: 'q1'" in err


def test_one_shared_query_is_enough_to_score(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 a 2\nq2 0 b 2\n")
    run.write_text("q1 Q0 a 1 1.0 x\nq9 Q0 b 1 1.0 x\n")
    status, out, _ = run_cli("eval", str(qrels), str(run), "-m", "recall@10", "--format", "json")
    assert status == 0
    assert json.loads(out)["aggregate"]["recall@10"]["mean"] == 0.5  # q2 missing: 0


def test_a_jsonl_run_of_other_query_ids_is_refused_for_answer_metrics_too(tmp_path):
    qrels, run = tmp_path / "qrels.jsonl", tmp_path / "run.jsonl"
    qrels.write_text(
        '{"query_id": "q1", "query": "how long?", "judgments": [{"id": "a", "grade": 2}],'
        ' "reference_answer": "7 days", "answer_type": "number"}\n'
    )
    run.write_text('{"query_id": "x1", "results": [{"id": "a"}], "response": "7 days"}\n')
    status, _, err = run_cli("eval", str(qrels), str(run), "-m", "exact_match")
    assert status == 2 and "share no query id" in err
