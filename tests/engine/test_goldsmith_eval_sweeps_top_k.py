"""`goldsmith eval --sweep`: the top-K choice from files, as a table, JSON or CSV, with the
weights of a scenario and the user's edits; `precision` and `f1` without a cut-off."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from goldsmith import metrics as M
from goldsmith.cli import main
from goldsmith.formats.detect import read_qrels, read_run
from tests.engine.test_metrics_trec_eval import trec_eval_dir

# Two queries; each has one relevant chunk first and three more at ranks 4-6.
QRELS = "".join(f"q{q} 0 {c} 2\n" for q in (1, 2) for c in "abcd")
RUN = "".join(f"q{q} Q0 {c} {r} {10 - r} run\n" for q in (1, 2) for r, c in enumerate("axybcd", 1))


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(QRELS)
    r.write_text(RUN)
    return [str(q), str(r)]


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_sweep_table_marks_the_best_k_and_says_why_there_is_no_latency(files, capsys):
    code, out, err = run_main(capsys, "eval", *files, "-m", "recall@5", "--sweep")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert "recall@5" in lines[1]  # the means first
    at = next(i for i, line in enumerate(lines) if line.startswith("top-K choice"))
    assert "scenario default" in lines[at]
    assert "0.4·mrr@K + 0.3·ndcg@K + 0.2·precision@K + 0.1·recall@K" in lines[at]
    assert lines[at + 1].split() == ["K", "mrr@K", "ndcg@K", "precision@K", "recall@K", "score"]
    rows = lines[at + 2 : at + 7]
    assert [r.split()[0] for r in rows] == ["1", "3", "5", "10", "20"]
    assert rows[0].endswith("<- best K") and sum("best K" in r for r in rows) == 1
    assert rows[0].split()[1:5] == ["1.0000", "1.0000", "1.0000", "0.2500"]
    assert "best K: 1" in out
    assert "latency: no latency was recorded (a run file carries none)" in out


def test_the_sweep_json_is_the_engine_s_sweep(files, capsys):
    code, out, _ = run_main(
        capsys, "eval", *files, "--sweep-ks", "1-6,10", "--scenario", "summarisation",
        "--format", "json",
    )  # fmt: skip
    assert code == 0
    topk = json.loads(out)["topk"]
    arrays = M.prepare(read_qrels(files[0]), read_run(files[1]))
    want = M.topk_sweep(arrays, [1, 2, 3, 4, 5, 6, 10], weights=M.topk_weights("summarisation"))
    assert topk["ks"] == [1, 2, 3, 4, 5, 6, 10]
    assert topk["scenario"] == "summarisation"
    assert topk["weights"] == {"recall": 0.45, "precision": 0.25, "ndcg": 0.2, "mrr": 0.1}
    assert topk["score"] == pytest.approx(list(want.score))
    assert topk["best_k"] == want.best_k == 6
    assert set(topk["means"]) == set(M.TOPK_FAMILIES)
    assert topk["latency"]["per_k"] is None


def test_weight_edits_imply_the_sweep_and_lay_over_the_scenario(files, capsys):
    code, out, _ = run_main(
        capsys, "eval", *files, "--weights", "recall=0.9,precision=0", "--format", "json"
    )
    assert code == 0
    topk = json.loads(out)["topk"]
    assert topk["weights"] == {"mrr": 0.4, "ndcg": 0.3, "recall": 0.9}
    assert topk["ks"] == [1, 3, 5, 10, 20]
    # without precision, K = 10 and 20 both hold every relevant chunk and tie: the smaller wins
    assert topk["score"][3] == topk["score"][4] > topk["score"][2]
    assert topk["best_k"] == 10


def test_the_sweep_as_csv_has_one_row_per_k(files, capsys):
    code, out, _ = run_main(capsys, "eval", *files, "--sweep-ks", "1,2", "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["k"] for r in rows] == ["1", "2"]
    assert [r["best"] for r in rows] == ["True", "False"]
    assert float(rows[1]["precision"]) == 0.5 and float(rows[1]["recall"]) == 0.25


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["--sweep-ks", "0-3"], "--sweep-ks: '0-3': cut-offs are whole numbers from 1 up"),
        (["--sweep-ks", "five"], "--sweep-ks: 'five' is not a cut-off or a range"),
        (["--weights", "mrr"], "top-K weights are written metric=weight"),
        (["--weights", "pass=1"], "top-K weight for unknown metric 'pass'"),
        (["--weights", "mrr=0,ndcg=0,precision=0,recall=0"], "at least one positive weight"),
    ],
)
def test_a_bad_sweep_request_exits_2_with_a_reason(files, capsys, argv, reason):
    code, out, err = run_main(capsys, "eval", *files, *argv)
    assert code == 2 and out == ""
    assert err.startswith("goldsmith: ") and reason in err


def test_precision_and_f1_without_a_cut_off_from_the_command_line_equal_trec_eval(capsys):
    d = trec_eval_dir()
    code, out, _ = run_main(
        capsys, "eval", str(d / "qrels.test"), str(d / "results.test"), "-m", "precision,f1",
        "--relevance-level", "1", "--order", "score", "--no-relevant", "zero", "--format", "json",
    )  # fmt: skip
    assert code == 0
    agg = json.loads(out)["aggregate"]
    # trec_eval's out.test.aq: set_P all 0.0873, set_F all 0.1194
    assert agg["precision"]["mean"] == pytest.approx(0.0873, abs=5e-5)
    assert agg["f1"]["mean"] == pytest.approx(0.1194, abs=5e-5)
