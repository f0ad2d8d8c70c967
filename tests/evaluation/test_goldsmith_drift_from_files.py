"""`goldsmith drift QRELS BASELINE_RUN CURRENT_RUN`: the verdict, the drift rules and their
significance from files, for CI systems that keep their own runs; exit 3 when a rule fires.
Its numbers equal the web report's: both call `goldsmith.verdicts.assess`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

from evaluation.services.runs import baseline_set
from goldsmith.cli import main
from tests.evaluation.conftest import make_golden
from tests.evaluation.run_files import answers_with, run_with, write_run


def qrels_for(tmp_path: Path, n: int = 20) -> Path:
    """q1..qn with two relevant chunks each (as `make_golden`), in TREC qrels."""
    path = tmp_path / "qrels.txt"
    path.write_text(
        "".join(f"q{i} 0 r{i}a 2\nq{i} 0 r{i}b 2\nq{i} 0 n{i} 0\n" for i in range(1, n + 1))
    )
    return path


def drift(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["drift", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    q = qrels_for(tmp_path)
    base = write_run(tmp_path / "base.txt", answers_with([1.0] * 20))
    same = write_run(tmp_path / "same.txt", answers_with([1.0] * 20))
    tiny = write_run(tmp_path / "tiny.txt", answers_with([1.0] * 19 + [0.0]))
    worse = write_run(tmp_path / "worse.txt", answers_with([1.0] * 10 + [0.5] * 10))
    return q, base, same, tiny, worse


def test_an_unchanged_run_exits_0_with_a_pass(files, capsys):
    q, base, same, *_ = files
    code, out, err = drift(capsys, q, base, same)
    assert code == 0, err
    assert out.startswith("Pass: the run meets its targets")
    assert "no drift rule fired" in out


def test_a_005_drop_fires_nothing_and_is_within_noise(files, capsys):
    q, base, _same, tiny, _ = files
    code, out, _ = drift(capsys, q, base, tiny, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["exit_status"] == 0
    assert doc["drift"]["fired"] == []
    sig = doc["drift"]["significance"]["recall@5"]
    assert sig["diff"] == pytest.approx(-0.05) and sig["beyond_noise"] is False


def test_a_real_drop_exits_3_and_says_it_is_beyond_the_noise(files, capsys):
    q, base, _same, _tiny, worse = files
    code, out, _ = drift(capsys, q, base, worse)
    assert code == 3
    assert "drift: mean recall@5 dropped 0.2500 (1.0000 → 0.7500), more than 0.05" in out
    assert "beyond the noise" in out
    assert out.startswith("Fail: the run is below a floor")  # pass rate 50 % < 70 %
    assert "passing in the baseline, failing now: q11, q12" in out


def test_the_json_holds_settings_verdict_and_drift(files, capsys):
    q, base, _same, _tiny, worse = files
    code, out, _ = drift(capsys, q, base, worse, "--format", "json", "--preset", "messy")
    doc = json.loads(out)
    assert set(doc) == {"settings", "verdict", "drift", "exit_status"}
    assert doc["settings"]["preset"] == "messy" and doc["settings"]["pass_threshold"] == 0.5
    assert doc["settings"]["recall_floor"] == 0.5 and doc["settings"]["k"] == 5
    # Under the messy preset every query passes at 0.5: recall 0.75 meets the 0.60 target.
    assert doc["verdict"]["verdict"] == "pass"
    assert {f["rule"] for f in doc["drift"]["fired"]} == {"max_recall_drop"}
    assert code == 3 and doc["exit_status"] == 3


def test_gate_warn_exits_3_on_a_warn(files, tmp_path, capsys):
    q, *_ = files
    passing = write_run(tmp_path / "pass.txt", answers_with([1.0] * 17 + [0.5] * 3))
    assert drift(capsys, q, passing, passing, "--gate", "warn")[0] == 0  # 85 % pass: a pass
    warn = write_run(tmp_path / "warn.txt", answers_with([1.0] * 15 + [0.5] * 5))
    assert drift(capsys, q, warn, warn)[0] == 0  # pass rate 75 %: a warn, under gate fail
    code, out, _ = drift(capsys, q, warn, warn, "--gate", "warn")
    assert code == 3 and out.startswith("Warn:")


def test_the_other_k_and_targets_can_be_given(files, capsys):
    q, base, _same, _tiny, worse = files
    code, out, _ = drift(
        capsys, q, base, worse, "--k", "1", "--recall-target", "0.4", "--recall-floor", "0.3",
        "--pass-rate-target", "0.4", "--pass-rate-floor", "0.3", "--pass-threshold", "0.5",
        "--max-recall-drop", "0.6", "--format", "json",
    )  # fmt: skip
    doc = json.loads(out)
    assert doc["verdict"]["k"] == 1 and doc["verdict"]["recall"]["mean"] == pytest.approx(0.5)
    assert doc["verdict"]["verdict"] == "pass" and code == 0


def test_jsonl_runs_are_read_as_goldsmith_eval_reads_them(files, tmp_path, capsys):
    q, base, *_ = files
    jsonl = tmp_path / "current.jsonl"
    jsonl.write_text(
        "".join(
            json.dumps({"query_id": qid, "results": [{"id": c} for c in ids]}) + "\n"
            for qid, ids in answers_with([1.0] * 10 + [0.5] * 10).items()
        )
    )
    code, out, _ = drift(capsys, q, base, jsonl, "--format", "json")
    assert code == 3 and json.loads(out)["drift"]["current"]["recall"] == pytest.approx(0.75)


def test_help_documents_the_exit_codes():
    proc = subprocess.run(
        [sys.executable, "-m", "goldsmith.cli", "drift", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "exit status:" in proc.stdout
    assert "3  a drift rule fired" in proc.stdout and "2  bad input" in proc.stdout


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        (["--recall-floor", "0.9"], "the recall floor 0.9 is above its target 0.8"),
        (["--k", "0"], "--k must be at least 1"),
        (["--preset", "nope"], "invalid choice"),
    ],
)
def test_bad_input_exits_2_in_one_line(files, capsys, extra, reason):
    q, base, same, *_ = files
    code, out, err = drift(capsys, q, base, same, *extra)
    assert code == 2 and out == ""
    assert reason in err and err.count("\n") == 1


def test_a_missing_file_exits_2(files, tmp_path, capsys):
    q, base, *_ = files
    code, _out, err = drift(capsys, q, base, tmp_path / "absent.txt")
    assert code == 2 and "absent.txt" in err


# --------------------------------------------------------------------------------------------
# The web report and the command line agree


def approx_equal(web, cli, path="") -> None:
    if isinstance(web, dict):
        assert set(web) == set(cli), path
        for key in web:
            approx_equal(web[key], cli[key], f"{path}.{key}")
    elif isinstance(web, list):
        assert len(web) == len(cli), path
        for i, (a, b) in enumerate(zip(web, cli, strict=True)):
            approx_equal(a, b, f"{path}[{i}]")
    elif isinstance(web, float):
        assert web == pytest.approx(cli, abs=1e-12), path
    else:
        assert web == cli, path


@pytest.mark.django_db
def test_the_web_report_and_goldsmith_drift_give_equal_numbers(personas, tmp_path):
    golden = make_golden(personas.project, n=40, label="v1")
    base = run_with(personas.project, golden.version, [1.0] * 30 + [0.5] * 10, tmp_path)
    baseline_set(run=base)
    recalls = [1.0] * 20 + [0.5] * 12 + [0.0] * 8
    run = run_with(personas.project, golden.version, recalls, tmp_path)
    qrels = tmp_path / "qrels.txt"
    call_command(
        "export_goldset", project="Acme Support", label="v1", format="trec", output=str(qrels)
    )
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "goldsmith.cli",
            "drift",
            str(qrels),
            str(tmp_path / f"files-{base.pk}.txt"),
            str(tmp_path / f"files-{run.pk}.txt"),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 3, cli.stderr
    theirs = json.loads(cli.stdout)
    web_verdict, web_drift = run.report["verdict"], run.report["drift"]
    approx_equal(web_verdict, theirs["verdict"])
    ours = {k: v for k, v in web_drift.items() if k not in ("baseline_run", "changed")}
    approx_equal(ours, theirs["drift"])
    assert web_verdict["verdict"] == "fail"
    assert {f["rule"] for f in web_drift["fired"]} >= {"max_recall_drop", "min_recall"}
    assert web_drift["significance"]["recall@5"]["beyond_noise"] is True
