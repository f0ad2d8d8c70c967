"""The golden-set commands work end to end and exit 2 with a one-line reason on bad input."""

from __future__ import annotations

import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

from annotation.models import GoldenSetVersion
from tests.annotation.goldset_factories import small_project
from tests.conftest import REPO, worker_environment


def test_freeze_then_export_every_format(personas, tmp_path, run_command):
    small_project(personas)
    out = run_command(
        "freeze",
        "--project",
        "Acme Support",
        "--note",
        "from the shell",
        "--split-seed",
        "3",
        "--by",
        "alice",
    )
    version = GoldenSetVersion.objects.get()
    assert out.strip().startswith(f"froze v1: 3 queries, 6 judgments, {version.content_hash};")
    assert (version.note, version.created_by, version.split_seed) == ("from the shell", "alice", 3)
    for fmt, name in (
        ("jsonl", "v1.jsonl"),
        ("trec", "v1.qrels"),
        ("beir", "v1.zip"),
        ("csv", "v1.csv"),
    ):
        out = run_command(
            "export_goldset",
            "--project",
            "Acme Support",
            "--version",
            "v1",
            "--format",
            fmt,
            "-o",
            tmp_path / name,
        )
        assert version.content_hash in out
        assert (tmp_path / name).stat().st_size > 0
    assert (tmp_path / "v1.topics.tsv").read_text().count("\n") == 3
    assert version.content_hash in (tmp_path / "v1.meta.json").read_text()
    assert not list(tmp_path.glob("*.partial"))


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["freeze", "--project", "Nope"], "no project named 'Nope'"),
        (["freeze", "--project", "Acme Support"], "no approved query to freeze"),
        (
            [
                "export_goldset",
                "--project",
                "Acme Support",
                "--version",
                "v3",
                "--format",
                "trec",
                "-o",
                "/tmp/x.qrels",
            ],
            "no version 'v3' in Acme Support",
        ),
        (
            ["import_goldset", "--project", "Acme Support", "--format", "jsonl", "/no/such.jsonl"],
            "/no/such.jsonl: no such file or folder",
        ),
        (["diff_goldset", "--project", "Acme Support", "v1", "v2"], "no version 'v1'"),
    ],
)
def test_bad_input_exits_2_with_a_reason(personas, args, reason):
    with pytest.raises(CommandError, match=reason) as error:
        call_command(*args)
    assert error.value.returncode == 2
    assert "\n" not in str(error.value)


def test_a_real_process_exits_with_status_2(personas, transactional_db):
    result = subprocess.run(
        [sys.executable, "manage.py", "freeze", "--project", "Acme Support"],
        cwd=REPO,
        env=worker_environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.strip().endswith("approve queries in Review first")
