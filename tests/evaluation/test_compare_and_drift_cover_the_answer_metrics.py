"""Comparing two RAG runs includes the answer and first-stage metrics with the paired tests
(the engine's compare_answer_runs, Holm over them), on the API and the compare page; and an
answer drop rule of the project's settings fires against the baseline when answer correctness
falls by more than its limit, with a drift alert that says so."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from evaluation.models import DriftAlert
from evaluation.services.retrievers import evaluation_settings_update, retriever_save
from evaluation.services.runs import (
    baseline_set,
    evaluation_run_create,
    evaluation_run_execute_inline,
)
from tests.evaluation.rag_stub import make_rag_golden
from tests.evaluation.test_a_jsonl_run_file_keeps_every_stage import rag_run_file


def _worse(data: bytes) -> bytes:
    """The same run with q1's and q2's right answers replaced by a wrong one."""
    lines = []
    for line in data.decode().splitlines():
        obj = json.loads(line)
        if obj["query_id"] in ("q1", "q2"):
            obj["response"] = "Nobody knows."
        lines.append(json.dumps(obj))
    return ("\n".join(lines) + "\n").encode()


def _run(project, version, retriever, name: str, data: bytes):
    retriever_save(project=project, retriever=retriever, run_file=SimpleUploadedFile(name, data))
    run = evaluation_run_create(
        project=project, retriever=retriever, version=version, enqueue=False
    )
    return evaluation_run_execute_inline(run_id=run.pk)


@pytest.mark.django_db
def test_compare_and_drift_cover_the_answer_metrics(personas, api_client_for):
    golden = make_rag_golden(personas.project)
    project = personas.project
    evaluation_settings_update(project=project, max_answer_drop={"answer_correctness": 0.1})
    retriever = retriever_save(project=project, name="rag file", kind="runfile")
    good = _run(project, golden.version, retriever, "good.jsonl", rag_run_file())
    baseline_set(run=good)
    worse = _run(project, golden.version, retriever, "worse.jsonl", _worse(rag_run_file()))
    assert worse.state == "succeeded", worse.error

    # Compare (API): answer_correctness falls from 3/6 to 1/6 over the 6 queries with a key and
    # a response (q8 has none: it has no answer to score).
    client = api_client_for(personas.victor)
    body = client.get(
        f"/api/v1/projects/{project.pk}/runs/compare/?a={good.pk}&b={worse.pk}"
    ).json()
    rows = {r["metric"]: r for r in body["answers"]}
    correctness = rows["answer_correctness"]
    assert correctness["n"] == 6
    assert correctness["mean_a"] == pytest.approx(3 / 6)
    assert correctness["mean_b"] == pytest.approx(1 / 6)
    assert correctness["losses"] == 2 and correctness["wins"] == 0
    assert correctness["p_holm"] is not None
    assert rows["first_stage:recall@20"]["diff"] == 0.0
    # ... and the compare page shows them.
    page = Client()
    page.force_login(personas.victor)
    html = page.get(f"/projects/{project.pk}/runs/compare/?a={good.pk}&b={worse.pk}").content
    text = " ".join(re.sub(r"<[^>]+>", " ", html.decode()).split())
    assert "Answers and first stage" in text and "answer_correctness" in text

    # Drift: the answer drop rule fired against the baseline.
    drift = worse.report["drift"]
    fired = [f for f in drift["fired"] if f["rule"] == "max_answer_drop"]
    assert [f["metric"] for f in fired] == ["answer_correctness"]
    assert fired[0]["baseline"] == pytest.approx(3 / 6)
    assert fired[0]["value"] == pytest.approx(1 / 6)
    assert drift["answer_drift"]["limits"] == {"answer_correctness": 0.1}
    alert = DriftAlert.objects.get(run=worse)
    assert any(f["rule"] == "max_answer_drop" for f in alert.fired)
    run_page = page.get(f"/projects/{project.pk}/runs/{worse.pk}/").content.decode()
    assert "mean answer_correctness dropped 0.3333" in " ".join(
        re.sub(r"<[^>]+>", " ", run_page).split()
    )


@pytest.mark.django_db
def test_a_judged_run_is_not_compared_with_a_rules_run_on_correctness(personas, api_client_for):
    """A run whose open answers an answer judge scored is not compared with a rules-scored run
    on answer_correctness (the difference would be the scorers'), and an answer drop rule on
    it does not fire across them; the metrics both scored by the rules are still compared."""
    from evaluation.models import EvaluationRun
    from evaluation.services.answers import answer_drift_of

    golden = make_rag_golden(personas.project)
    project = personas.project
    retriever = retriever_save(project=project, name="rag file", kind="runfile")
    rules = _run(project, golden.version, retriever, "good.jsonl", rag_run_file())
    judged = _run(project, golden.version, retriever, "worse.jsonl", _worse(rag_run_file()))
    report = judged.report
    identity = {
        "scorer": "judge:sage", "name": "sage", "model": "m-1", "prompt_version": "v2",
        "temperature": 0.0,
    }  # fmt: skip
    report["answers"]["scorer"]["metrics"]["answer_correctness"] = "judge:sage"
    report["answers"]["scorer"]["judge"] = {**identity, "judged": 7, "failed": 0}
    EvaluationRun.objects.filter(pk=judged.pk).update(report=report)
    judged.refresh_from_db()

    body = api_client_for(personas.victor).get(
        f"/api/v1/projects/{project.pk}/runs/compare/?a={rules.pk}&b={judged.pk}"
    )
    assert body.status_code == 200
    data = body.json()
    compared = {row["metric"] for row in data["answers"]}
    assert "answer_correctness" not in compared and "fact_coverage" in compared
    assert "judge:sage" in data["answers_not_comparable"]["answer_correctness"]
    page = Client()
    page.force_login(personas.victor)
    html = page.get(f"/projects/{project.pk}/runs/compare/?a={rules.pk}&b={judged.pk}")
    assert "answer_correctness is not compared" in html.content.decode()

    # the same drop that fires between two rules-scored runs does not fire across scorers
    assert answer_drift_of(judged, rules, {"answer_correctness": 0.1}) is None
    fired = answer_drift_of(judged, rules, {"answer_correctness": 0.1, "fact_coverage": 0.1})
    assert fired is not None and [f["metric"] for f in fired["fired"]] == ["fact_coverage"]


@pytest.mark.django_db
def test_an_answer_drop_rule_is_stored_under_the_name_reports_use(personas):
    """A rule is read as the engine reads a metric name (as `goldsmith drift`), so it can fire;
    one that could never match a report's metric is refused with the reason."""
    from evaluation.services.retrievers import RetrieverInvalid

    project = personas.project
    record = evaluation_settings_update(
        project=project,
        max_answer_drop={"Answer_Correctness": 0.05, "first_stage:recall@50": 0.1},
    )
    assert record.max_answer_drop == {"answer_correctness": 0.05, "first_stage:recall@50": 0.1}
    for bad in ("context_recall", "answer_correctness@5", "recall@5", "bogus"):
        with pytest.raises(RetrieverInvalid, match="not an answer or first-stage metric"):
            evaluation_settings_update(project=project, max_answer_drop={bad: 0.1})
