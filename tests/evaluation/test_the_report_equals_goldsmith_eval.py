"""The numbers of a run report equal `goldsmith eval` on the exported qrels and the saved run."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

from evaluation.models import EvaluationRun
from evaluation.services.retrievers import retriever_save
from tests.evaluation.conftest import make_golden


@pytest.mark.django_db
def test_aggregates_and_confidence_intervals_match_the_command_line(
    personas, private_urls, stub_factory, tmp_path, capsys
):
    golden = make_golden(personas.project, n=40, label="v1")
    stub = stub_factory(golden.answers)
    retriever_save(project=personas.project, name="stub", kind="http", config=stub.config())
    qrels = tmp_path / "qrels.txt"
    call_command(
        "export_goldset", project="Acme Support", label="v1", format="trec", output=str(qrels)
    )
    saved = tmp_path / "run.txt"
    capsys.readouterr()
    # The stub's top 5 holds unjudged chunks (judged@5 under 0.8): not enough judgments, which
    # exits 3 under --gate warn.
    with pytest.raises(CommandError) as failed:
        call_command(
            "run_evaluation",
            project="Acme Support",
            label="v1",
            retriever="stub",
            k=[3, 5, 10],
            inline=True,
            format="json",
            save_run=str(saved),
            gate="warn",
        )
    assert failed.value.returncode == 3
    ours = json.loads(capsys.readouterr().out)
    run = EvaluationRun.objects.get()
    metrics = list(ours["aggregate"])
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "goldsmith.cli",
            "eval",
            str(qrels),
            str(saved),
            "-m",
            ",".join(metrics),
            "--pass-threshold",
            str(run.pass_threshold),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = json.loads(cli.stdout)
    assert list(theirs["aggregate"]) == metrics
    for metric in metrics:
        for field in ("mean", "ci_low", "ci_high", "n"):
            assert ours["aggregate"][metric][field] == pytest.approx(
                theirs["aggregate"][metric][field], abs=1e-12
            ), (metric, field)
    assert run.report["aggregate"] == ours["aggregate"]
