"""When no judgment reaches the relevance level, every query would drop out of the means:
`goldsmith eval` (and compare) refuse with exit 2, say why and suggest `--relevance-level`; a
run report (its page and `run_evaluation`) carries the same sentence as a warning."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from goldsmith.cli import main as goldsmith


def run_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = goldsmith(list(args))
    return status, out.getvalue(), err.getvalue()


def files(tmp_path, grades: dict[str, int]):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"q1 0 {doc} {g}\n" for doc, g in grades.items()))
    run.write_text("".join(f"q1 Q0 {doc} {r} {1 / r} x\n" for r, doc in enumerate(grades, 1)))
    return str(qrels), str(run)


def test_trec_qrels_that_mark_relevant_with_1_are_refused_with_a_way_out(tmp_path):
    qrels, run = files(tmp_path, {"a": 1, "b": 0, "c": 1})
    status, out, err = run_cli("eval", qrels, run, "-m", "recall@10", "--format", "json")
    assert (status, out) == (2, "")
    assert err.startswith("goldsmith: ") and err.count("\n") == 1
    assert f"no judgment in {qrels} reaches relevance level 2 (the highest grade is 1)" in err
    assert "add --relevance-level 1" in err

    status, out, err = run_cli("eval", qrels, run, "-m", "recall@10", "--relevance-level", "1")
    assert (status, err) == (0, "")
    assert "recall@10  1.0000" in out


def test_qrels_with_a_relevant_grade_get_no_warning(tmp_path):
    qrels, run = files(tmp_path, {"a": 2, "b": 0})
    assert run_cli("eval", qrels, run, "-m", "recall@10")[2] == ""


def test_qrels_with_nothing_above_0_are_refused_without_a_level_to_suggest(tmp_path):
    qrels, run = files(tmp_path, {"a": 0})
    status, _, err = run_cli("eval", qrels, run, "-m", "recall@10", "--relevance-level", "1")
    assert status == 2
    assert "reaches relevance level 1 (the highest grade is 0)" in err
    assert "--relevance-level" not in err


def test_compare_refuses_them_in_one_line(tmp_path):
    qrels, run = files(tmp_path, {"a": 1, "b": 1})
    status, _, err = run_cli("compare", qrels, run, run, "-m", "recall@10", "--permutations", "10")
    assert status == 2
    assert err.count("\n") == 1 and "reaches relevance level 2" in err


def test_a_run_report_on_a_version_without_a_relevant_grade_warns(personas, tmp_path, capsys):
    from annotation.services.goldsets import LoadedGoldset, golden_set_version_import
    from evaluation.models import EvaluationRun
    from evaluation.services.retrievers import retriever_save
    from goldsmith.formats.goldset import GoldenQuery, GoldJudgment

    queries = [
        GoldenQuery(query_id=f"q{i}", query=f"question {i}", judgments=(GoldJudgment(f"c{i}", 1),))
        for i in range(1, 4)
    ]
    golden_set_version_import(
        project=personas.project,
        by=None,
        loaded=LoadedGoldset(queries=queries, header=None, corpus=None, source_name="t.jsonl"),
        fmt="jsonl",
        label="v1",
    )
    path = tmp_path / "run.txt"
    path.write_text("".join(f"q{i} Q0 c{i} 1 1.0 x\n" for i in range(1, 4)))
    retriever = retriever_save(project=personas.project, name="file", kind="runfile", config={})
    retriever_save(project=personas.project, retriever=retriever, run_file=path)
    capsys.readouterr()
    try:
        call_command(
            "run_evaluation", project="Acme Support", label="v1", retriever="file", inline=True
        )
    except CommandError as error:  # nothing relevant fails the targets: exit 3, not a crash
        assert error.returncode == 3
    err = capsys.readouterr().err
    run = EvaluationRun.objects.get()
    assert run.state == "succeeded", run.error
    [warning] = run.report["warnings"]
    assert "no judgment reaches the relevance threshold 2 (the highest grade is 1)" in warning
    assert "relevance threshold 1" in warning
    assert f"warning: {warning}" in err

    client = Client()
    client.force_login(personas.victor)
    page = client.get(reverse("run-detail", args=[personas.project.pk, run.pk])).content.decode()
    assert "no judgment reaches the relevance threshold 2" in page


def test_a_lenient_run_on_the_same_version_has_no_warning(personas):
    from goldsmith import reporting

    items = [reporting.GoldItem("q1", "", judgments=(reporting.GoldJudgment("c1", 1),))]
    assert reporting.threshold_warnings(items, 1) == []
    assert reporting.threshold_warnings([], 2) == []
