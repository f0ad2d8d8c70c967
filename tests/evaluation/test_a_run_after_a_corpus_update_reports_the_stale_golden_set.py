"""After the corpus changes under a frozen version, a run's report says so first, scores the
untouched queries apart, and its verdict and drift read those only: through `run_evaluation`,
the stored report, the API, the run page, and a run a real worker makes."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from evaluation.models import DriftAlert, EvaluationRun, Retriever, RunState
from evaluation.services.runs import baseline_set, evaluation_run_create
from tests.conftest import wait_for
from tests.evaluation.stale_corpus import make_stale_ready, update_corpus
from tests.evaluation.test_the_run_pages_show_progress_report_and_comparison import login


def run_bm25(project, *extra: str) -> tuple[EvaluationRun, dict, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "run_evaluation", "--project", str(project.pk), "--version", "v1", "--retriever", "bm25",
        "--inline", "--format", "json", *extra, stdout=out, stderr=err,
    )  # fmt: skip
    return EvaluationRun.objects.latest("id"), json.loads(out.getvalue()), err.getvalue()


@pytest.mark.django_db
def test_the_stale_report_comes_first_and_no_drift_rule_fires_on_touched_queries(
    personas, tmp_path, client, api_client_for
):
    project = personas.project
    make_stale_ready(project, tmp_path)
    first, doc, _ = run_bm25(project)
    assert first.verdict == "pass"
    assert doc["corpus"] is None
    assert doc["verdict"]["basis"]["queries"] == 6
    baseline_set(run=first)

    update_corpus(project, tmp_path)
    run, doc, _ = run_bm25(project)
    section = run.report["corpus"]
    assert section["stale"] and section["touched"] == ["q1", "q2", "q3"]
    assert (
        section["relevant_total"],
        section["relevant_retired"],
        section["relevant_changed"],
    ) == (
        6,
        2,
        1,
    )
    assert section["words"][0] == (
        "2 of v1's 6 relevant chunks were retired and 1 changed since v1 was judged."
    )
    assert section["untouched"]["aggregate"]["recall@5"]["mean"] == 1.0
    # the overall figures fell with the corpus; the verdict and drift read q4..q6 only
    assert run.report["aggregate"]["recall@5"]["mean"] < 0.7
    assert run.verdict == "pass"
    verdict = run.report["verdict"]
    assert verdict["basis"]["queries"] == 3 and verdict["basis"]["touched"] == 3
    assert verdict["basis"]["warning"]
    assert "3 touched by a corpus update: q1, q2, q3" in verdict["basis_words"]
    assert run.report["drift"]["fired"] == []
    assert run.report["drift"]["untouched_queries"] == 3
    assert not DriftAlert.objects.filter(run=run).exists()
    assert doc["corpus"]["touched"] == ["q1", "q2", "q3"]
    hints = client  # the hint names the fix
    api = api_client_for(personas.victor)
    body = api.get(f"/api/v1/projects/{project.pk}/runs/{run.pk}/").json()
    assert body["corpus"]["touched"] == ["q1", "q2", "q3"]
    assert body["verdict_detail"]["basis"]["touched"] == 3
    assert body["drift"]["untouched_queries"] == 3
    report = api.get(f"/api/v1/projects/{project.pk}/runs/{run.pk}/report/").json()
    assert report["hints"][0]["rule"] == "rejudge_touched"

    login(hints, personas.victor)
    page = hints.get(f"/projects/{project.pk}/runs/{run.pk}/").content.decode()
    assert page.index('id="stale-corpus"') < page.index('id="verdict"')
    assert "2 of v1&#x27;s 6 relevant chunks were retired and 1 changed" in page
    assert 'id="untouched-metrics"' in page
    assert "Re-judge the queries the corpus update touched" in page
    assert "Compared on the 3 queries that no corpus update touched in either run" in page
    first_page = hints.get(f"/projects/{project.pk}/runs/{first.pk}/").content.decode()
    assert 'id="drift-untouched"' not in first_page and 'id="stale-corpus"' not in first_page


@pytest.mark.django_db
def test_not_enough_judgments_exits_3_only_under_gate_warn(personas, tmp_path):
    project = personas.project
    make_stale_ready(project, tmp_path)
    # a version that judges only the relevant chunk: BM25's top 5 is mostly unjudged
    from annotation.services.goldsets import LoadedGoldset, golden_set_version_import
    from goldsmith.formats.goldset import GoldenQuery, GoldJudgment

    thin = [
        GoldenQuery(query_id=f"q{i}", query=q, judgments=(GoldJudgment(f"c{i}", 2),))
        for i, q in enumerate(["refund policy", "invoice policy", "password policy"], 1)
    ]
    golden_set_version_import(
        project=project,
        by=None,
        loaded=LoadedGoldset(queries=thin, header=None, corpus=None, source_name="thin.jsonl"),
        fmt="jsonl",
        label="thin",
    )
    args = ["--project", str(project.pk), "--version", "thin", "--retriever", "bm25", "--inline"]
    call_command("run_evaluation", *args, stdout=io.StringIO(), stderr=io.StringIO())
    run = EvaluationRun.objects.latest("id")
    assert run.verdict == "unjudged"
    assert run.report["verdict"]["summary"].startswith("Not enough judgments: judged@5 is")
    with pytest.raises(CommandError) as stopped:
        call_command(
            "run_evaluation", *args, "--gate", "warn", stdout=io.StringIO(), stderr=io.StringIO()
        )
    assert stopped.value.returncode == 3


def test_a_real_worker_records_the_corpus_and_scores_the_untouched_queries(
    personas, tmp_path, celery_worker_process, api_client_for
):
    project = personas.project
    version = make_stale_ready(project, tmp_path)
    update_corpus(project, tmp_path)
    retriever = Retriever.objects.get(project=project, name="bm25")
    run = evaluation_run_create(project=project, retriever=retriever, version=version)
    api = api_client_for(personas.victor)
    url = f"/api/v1/projects/{project.pk}/runs/{run.pk}/"

    def finished():
        body = api.get(url).json()
        return body if body["state"] in ("succeeded", "failed", "cancelled") else None

    body = wait_for(finished, timeout=120, message="the run to finish")
    assert body["state"] == RunState.SUCCEEDED, body
    assert body["corpus"]["touched"] == ["q1", "q2", "q3"]
    assert body["verdict"] == "pass"
    assert body["verdict_detail"]["basis"]["queries"] == 3
