"""The goldsmith command line: output shapes, and bad input → exit 2 with one FILE:LINE line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from goldsmith.cli import main
from goldsmith.formats import goldset as F
from tests.goldset_files import goldset_text

QRELS = "s1 0 c1 2\ns1 0 c2 2\ns2 0 c5 2\ns3 0 c9 1\ns4 0 c11 2\n"
RUN = "s1 Q0 c1 1 0.9 bm25\ns1 Q0 c3 2 0.8 bm25\ns2 Q0 c6 1 0.7 bm25\ns2 Q0 c5 2 0.6 bm25\n"


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(QRELS)
    r.write_text(RUN)
    return q, r


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_json_has_settings_aggregate_per_query_and_exclusions(files, capsys):
    q, r = files
    code, out, err = run_main(
        capsys, "eval", str(q), str(r), "-m", "recall@10", "mrr", "--per-query", "--format", "json"
    )
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert set(doc) == {"settings", "aggregate", "per_query", "excluded", "missing_from_run"}
    assert doc["settings"]["relevance_threshold"] == 2 and doc["settings"]["order"] == "rank"
    assert set(doc["aggregate"]["recall@10"]) == {"mean", "ci_low", "ci_high", "n"}
    assert doc["aggregate"]["recall@10"]["n"] == 3
    assert doc["aggregate"]["recall@10"]["mean"] == pytest.approx(0.5)
    assert doc["per_query"]["s2"] == {"recall@10": 1.0, "mrr": 0.5}
    assert doc["excluded"] == {"no_relevant_chunk": ["s3"], "not_in_qrels": []}
    assert doc["missing_from_run"] == ["s3", "s4"]


def test_eval_without_per_query_leaves_it_out_of_json(files, capsys):
    code, out, _ = run_main(capsys, "eval", *map(str, files), "--format", "json")
    assert code == 0 and "per_query" not in json.loads(out)
    assert "recall@10" in json.loads(out)["aggregate"]


def test_eval_csv_and_table_formats(files, capsys):
    code, out, _ = run_main(capsys, "eval", *map(str, files), "-m", "hit@1", "--format", "csv")
    assert code == 0 and out.splitlines()[0] == "metric,mean,ci_low,ci_high,n"
    code, out, _ = run_main(
        capsys, "eval", *map(str, files), "-m", "hit@1", "--per-query", "--format", "csv"
    )
    assert out.splitlines() == ["query_id,hit@1", "s1,1.0", "s2,0.0", "s4,0.0"]
    code, out, _ = run_main(capsys, "eval", *map(str, files), "--relevance-level", "1")
    assert code == 0 and "ndcg@10" in out and "relevant: grade >= 1" in out


def test_eval_accepts_jsonl_runs_and_goldset_qrels(tmp_path, capsys):
    gold = tmp_path / "gold.jsonl"
    queries = [
        F.GoldenQuery("a", "q a", (F.GoldJudgment("c1", 2),), category="x"),
        F.GoldenQuery("b", "q b", (F.GoldJudgment("c2", 2),), category="y"),
    ]
    gold.write_text(goldset_text("p", "v1", queries))
    run = tmp_path / "run.jsonl"
    run.write_text('{"query_id": "a", "results": [{"id": "c1", "score": 1}]}\n')
    code, out, err = run_main(
        capsys, "eval", str(gold), str(run), "-m", "hit@1", "--format", "json"
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["aggregate"]["hit@1"]["mean"] == 0.5
    assert doc["categories"]["x"]["hit@1"]["mean"] == 1.0


def test_bad_input_exits_2_with_one_file_line_reason(tmp_path, files, capsys):
    bad = tmp_path / "qrels.txt"
    bad.write_text("q1 0 c1 2\n" * 11 + "q1 0 c2 x\n")
    code, out, err = run_main(capsys, "eval", str(bad), str(files[1]))
    assert code == 2 and out == ""
    assert err == f"goldsmith: {bad}:12: grade 'x' is not an integer\n"


@pytest.mark.parametrize(
    "argv, reason",
    [
        (["eval", "{q}", "missing.txt"], "missing.txt: No such file or directory"),
        (["eval", "{q}", "{r}", "-m", "P_5"], "unknown metric 'P_5'"),
        (["eval", "{q}", "{r}", "--order", "sideways"], "invalid choice"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_other_bad_input_also_exits_2_in_one_line(files, capsys, argv, reason):
    q, r = files
    code, _, err = run_main(capsys, *(a.format(q=q, r=r) for a in argv))
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("goldsmith: ") and reason in err


def test_compare_reports_difference_and_tests(tmp_path, files, capsys):
    q, r = files
    better = tmp_path / "b.txt"
    better.write_text(RUN + "s1 Q0 c2 3 0.5 x\ns4 Q0 c11 1 1.0 x\n")
    code, out, _ = run_main(
        capsys,
        "compare",
        str(q),
        str(r),
        str(better),
        "-m",
        "recall@10",
        "--permutations",
        "2000",
        "--format",
        "json",
    )
    assert code == 0
    doc = json.loads(out)
    row = doc["metrics"]["recall@10"]
    assert doc["n"] == 3 and row["diff"] == pytest.approx(0.5)
    assert (row["wins"], row["ties"], row["losses"]) == (2, 1, 0)
    assert {"p_randomization", "p_ttest", "p_holm", "ci_low", "ci_high"} <= set(row)
    code, out, _ = run_main(capsys, "compare", str(q), str(r), str(better), "--permutations", "500")
    assert code == 0 and "W/T/L" in out


def test_agreement_json_has_every_coefficient_and_groups(tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    rows = ["group,item,annotator,label"]
    rows += [f"q1,c{i},ann,{i % 3}" for i in range(6)] + [f"q1,c{i},bob,{i % 3}" for i in range(6)]
    rows += ["q2,c1,ann,0", "q2,c1,bob,0", "q2,c2,ann,0", "q2,c2,bob,0"]
    labels.write_text("\n".join(rows) + "\n")
    code, out, err = run_main(capsys, "agreement", str(labels), "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    for key in (
        "percent_agreement",
        "cohen_kappa",
        "cohen_kappa_linear",
        "cohen_kappa_quadratic",
        "gwet_ac1",
        "fleiss_kappa",
        "krippendorff_alpha_nominal",
        "krippendorff_alpha_ordinal",
        "pairwise",
        "groups",
    ):
        assert key in doc
    assert doc["cohen_kappa"] == pytest.approx(1.0)
    assert doc["groups"]["q2"]["cohen_kappa"] is None and doc["groups"]["q2"]["unanimous"] is True
    assert doc["pairwise"][0]["annotator_a"] == "ann"
    code, out, _ = run_main(capsys, "agreement", str(labels))
    assert code == 0 and "unanimous" in out


def test_agreement_bad_label_exits_2(tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    labels.write_text("item,annotator,label\nc1,ann,2\nc1,bob,high\n")
    code, _, err = run_main(capsys, "agreement", str(labels))
    assert (code, err) == (2, f"goldsmith: {labels}:3: label 'high' is not an integer\n")


def test_the_console_script_runs_as_a_process(files):
    q, r = files
    proc = subprocess.run(
        [sys.executable, "-m", "goldsmith.cli", "eval", str(q), str(r), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert proc.returncode == 0 and json.loads(proc.stdout)["aggregate"]
    bad = subprocess.run(
        [sys.executable, "-m", "goldsmith.cli", "eval", str(q), str(q)],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith(f"goldsmith: {q}:1: expected 6 columns")
