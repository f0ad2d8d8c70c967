"""`goldsmith ... | head` stops quietly when head has read enough: no traceback and no
"Broken pipe" error on stderr (Python's SIGPIPE advice: stdout to /dev/null, status 1)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

GOLDSMITH = Path(sys.executable).with_name("goldsmith")


def big_files(tmp_path: Path) -> tuple[str, str]:
    """Per-query output of ~1 MB: far more than a pipe holds, so writes hit the closed pipe."""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    with qrels.open("w") as q, run.open("w") as r:
        for n in range(8000):
            for d in range(3):
                q.write(f"query-{n} 0 doc-{d} {d}\n")
                r.write(f"query-{n} Q0 doc-{d} {d + 1} {1 / (d + 1)} x\n")
    return str(qrels), str(run)


def command() -> list[str]:
    if GOLDSMITH.exists():
        return [str(GOLDSMITH)]
    return [sys.executable, "-m", "goldsmith.cli"]


def test_a_reader_that_leaves_early_gets_a_quiet_goldsmith(tmp_path):
    qrels, run = big_files(tmp_path)
    proc = subprocess.Popen(
        [*command(), "eval", qrels, run, "--per-query", "--bootstrap", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # what head does once it has its lines
    err = proc.stderr.read().decode()
    status = proc.wait(timeout=60)
    assert first.startswith(b"query_id")
    assert err == ""
    assert status == 1  # as Python exits on EPIPE; nothing else went wrong


@pytest.mark.skipif(shutil.which("head") is None, reason="no head(1) on this machine")
def test_goldsmith_eval_into_head_prints_only_what_head_shows(tmp_path):
    qrels, run = big_files(tmp_path)
    line = " ".join([*command(), "eval", qrels, run, "--per-query", "--bootstrap", "0"])
    done = subprocess.run(
        f"{line} | head -n 3", shell=True, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    assert done.stderr == ""
    assert len(done.stdout.splitlines()) == 3


def test_a_reader_that_reads_everything_sees_status_0(tmp_path):
    qrels, run = big_files(tmp_path)
    done = subprocess.run(
        [*command(), "eval", qrels, run, "--per-query", "--bootstrap", "0"],
        capture_output=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert len(done.stdout.splitlines()) > 8000
