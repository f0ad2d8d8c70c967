"""`goldsmith eval --corpus` and `goldsmith drift --corpus`: from an exported golden set, a saved
run and the corpus file (or a file of live chunk ids), the touched and untouched queries and the
untouched figures equal the app's report on the same run."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from evaluation.models import EvaluationRun
from goldsmith.cli import main
from tests.evaluation.stale_corpus import make_stale_ready, update_corpus


@pytest.fixture
def stale_files(personas, tmp_path):
    project = personas.project
    make_stale_ready(project, tmp_path)
    args = ["--project", str(project.pk), "--version", "v1", "--retriever", "bm25", "--inline"]
    call_command(
        "run_evaluation", *args, "--save-run", str(tmp_path / "before.trec"),
        stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    update_corpus(project, tmp_path)
    call_command(
        "run_evaluation", *args, "--save-run", str(tmp_path / "after.trec"),
        stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    call_command(
        "export_goldset", "--project", str(project.pk), "--version", "v1", "--format", "jsonl",
        "-o", str(tmp_path / "v1.jsonl"), stdout=io.StringIO(),
    )  # fmt: skip
    ids = tmp_path / "live-ids.txt"
    ids.write_text("c3\nc4\nc5\nc6\n", encoding="utf-8")
    return tmp_path, EvaluationRun.objects.latest("id")


def cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(map(str, argv)))
    return code, capsys.readouterr().out


@pytest.mark.django_db
def test_goldsmith_eval_with_the_corpus_file_reports_what_the_app_reports(stale_files, capsys):
    folder, run = stale_files
    code, out = cli(
        capsys, "eval", folder / "v1.jsonl", folder / "after.trec", "-m", "recall@5", "ndcg@5",
        "--corpus", folder / "corpus-2.jsonl", "--format", "json",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)["corpus"]
    web = run.report["corpus"]
    assert doc["touched"] == web["touched"] == ["q1", "q2", "q3"]
    assert doc["relevant_changed"] == web["relevant_changed"] == 1
    assert doc["words"][0] == web["words"][0]
    for m in ("recall@5", "ndcg@5"):
        assert doc["untouched"]["aggregate"][m]["mean"] == pytest.approx(
            web["untouched"]["aggregate"][m]["mean"]
        )
        assert doc["untouched"]["aggregate"][m]["n"] == web["untouched"]["aggregate"][m]["n"]
    code, table = cli(
        capsys, "eval", folder / "v1.jsonl", folder / "after.trec", "-m", "recall@5",
        "--corpus", folder / "corpus-2.jsonl",
    )  # fmt: skip
    assert table.startswith("2 of v1's 6 relevant chunks were retired and 1 changed")


@pytest.mark.django_db
def test_a_file_of_live_ids_sees_retirement_only_and_says_so(stale_files, capsys):
    folder, _run = stale_files
    _code, out = cli(
        capsys, "eval", folder / "v1.jsonl", folder / "after.trec", "-m", "recall@5",
        "--corpus", folder / "live-ids.txt", "--format", "json",
    )  # fmt: skip
    doc = json.loads(out)["corpus"]
    assert doc["touched"] == ["q1", "q2"]  # c3's new text cannot be seen
    assert "chunk ids only" in doc["words"][0]


@pytest.mark.django_db
def test_goldsmith_drift_fires_on_the_touched_queries_only_without_the_corpus(stale_files, capsys):
    folder, run = stale_files
    base = ["drift", folder / "v1.jsonl", folder / "before.trec", folder / "after.trec"]
    code, _ = cli(capsys, *base, "--format", "json")
    assert code == 3  # q1, q2 lost their chunks: recall drops
    code, out = cli(capsys, *base, "--corpus", folder / "corpus-2.jsonl", "--format", "json")
    doc = json.loads(out)
    assert code == 0, doc["drift"]["fired"]
    assert doc["drift"]["fired"] == []
    assert doc["drift"]["untouched_queries"] == 3
    assert doc["verdict"]["verdict"] == run.verdict == "pass"
    assert doc["verdict"]["basis"] == run.report["verdict"]["basis"]
