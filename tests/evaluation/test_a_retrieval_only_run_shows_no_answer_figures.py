"""A run whose file carries no response (retrieval only) against a golden set with answer
keys: its stored report, the report API and the run page show context recall and say "this run
has no answers", with no answer correctness, fact coverage, answer F1, exact match or quadrants;
the compare API and page leave the answer rows out and say why; an answer drop rule does not
fire against it."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from evaluation.services.retrievers import evaluation_settings_update, retriever_save
from evaluation.services.runs import (
    baseline_set,
    evaluation_run_create,
    evaluation_run_execute_inline,
)
from tests.evaluation.rag_stub import make_rag_golden
from tests.evaluation.test_a_jsonl_run_file_keeps_every_stage import rag_run_file

READ_A_RESPONSE = (
    "answer_correctness", "fact_coverage", "answer_f1", "exact_match", "squad_em", "faithfulness",
)  # fmt: skip


def retrieval_only(data: bytes) -> bytes:
    """The RAG stub's run without a single response."""
    rows = [json.loads(line) for line in data.decode().splitlines()]
    return "".join(
        json.dumps({k: v for k, v in r.items() if k != "response"}) + "\n" for r in rows
    ).encode()


def _run(project, version, name: str, data: bytes):
    retriever = retriever_save(
        project=project, name=name, kind="runfile", run_file=SimpleUploadedFile(name, data)
    )
    run = evaluation_run_create(
        project=project, retriever=retriever, version=version, enqueue=False
    )
    return evaluation_run_execute_inline(run_id=run.pk)


def _text(html: bytes) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html.decode()).split())


@pytest.mark.django_db
def test_a_retrieval_only_run_has_context_recall_and_no_answer_figure(personas, api_client_for):
    golden = make_rag_golden(personas.project)
    run = _run(personas.project, golden.version, "bare.jsonl", retrieval_only(rag_run_file()))
    assert run.state == "succeeded", run.error
    answers = run.report["answers"]
    assert answers["has_answers"] is False
    assert answers["responses"] == {"queries": 7, "with_response": 0}
    assert {m.split("@")[0] for m in answers["metrics"] if ":" not in m} == {"context_recall"}
    assert not set(READ_A_RESPONSE) & set(answers["aggregate"])
    assert "quadrants" not in answers and "quadrants" not in run.report
    # A golden set imported from a file has no pool data: no pool bias is said (not 0).
    assert "pool_bias" not in run.report

    client = api_client_for(personas.victor)
    base = f"/api/v1/projects/{personas.project.pk}/runs/{run.pk}/"
    body = client.get(base + "report/").json()
    assert body["answers"]["has_answers"] is False and "quadrants" not in body
    assert "answer_correctness" not in body["answers"]["aggregate"]

    page = Client()
    page.force_login(personas.victor)
    html = page.get(f"/projects/{personas.project.pk}/runs/{run.pk}/").content
    text = _text(html)
    assert "This run has no answers" in text
    assert "Context recall" in text and "context_recall@5" in text
    assert 'id="quadrants"' not in html.decode() and "Where failures come from" not in text
    assert "Answer correctness" not in text and "answer_correctness" not in text


@pytest.mark.django_db
def test_compare_leaves_out_the_answer_rows_and_drift_rules_do_not_fire(personas, api_client_for):
    golden = make_rag_golden(personas.project)
    project = personas.project
    evaluation_settings_update(project=project, max_answer_drop={"answer_correctness": 0.05})
    rag = _run(project, golden.version, "rag.jsonl", rag_run_file())
    bare = _run(project, golden.version, "bare.jsonl", retrieval_only(rag_run_file()))

    client = api_client_for(personas.victor)
    body = client.get(f"/api/v1/projects/{project.pk}/runs/compare/?a={rag.pk}&b={bare.pk}")
    assert body.status_code == 200
    data = body.json()
    compared = {r["metric"] for r in data["answers"]}
    assert "context_recall@5" in compared and not compared & set(READ_A_RESPONSE)
    assert data["no_answers"] == ["b"]
    assert data["answers_not_comparable"]["answer_correctness"] == (
        "answer_correctness: run B has no answers (no query with a response)"
    )
    assert set(data["answers_not_comparable"]) == set(READ_A_RESPONSE)

    page = Client()
    page.force_login(personas.victor)
    text = _text(page.get(f"/projects/{project.pk}/runs/compare/?a={rag.pk}&b={bare.pk}").content)
    assert "Run B has no answers (no query came with a response)" in text
    assert "scored by different scorers" not in text

    # The retrieval-only run against the answered baseline: no answer drop rule fires.
    retriever = bare.retriever
    baseline_set(run=bare)
    again = _run_again(project, golden.version, retriever, rag_run_file())
    drift = again.report["drift"]
    assert not [f for f in drift["fired"] if f["rule"] == "max_answer_drop"]
    assert "answer_drift" not in drift


def _run_again(project, version, retriever, data: bytes):
    retriever_save(
        project=project, retriever=retriever, run_file=SimpleUploadedFile("again.jsonl", data)
    )
    run = evaluation_run_create(
        project=project, retriever=retriever, version=version, enqueue=False
    )
    return evaluation_run_execute_inline(run_id=run.pk)
