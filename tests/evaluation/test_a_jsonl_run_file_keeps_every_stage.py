"""A JSONL run file carrying `candidates`, `contexts` and `response` (docs/formats.md, "stages")
keeps them: uploaded through the API, every stage is stored per query and a run of it reports
the same first-stage figures and quadrants as the RAG stub's run. A file whose stage is wrong
is refused whole, the error naming the uploaded file, the line and the field."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evaluation.models import QueryResult, Retriever, RunFile, RunFileRow
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from goldsmith.answers.model import Context, RankedItem, StagedQuery
from goldsmith.formats.jsonl import jsonl_run_lines
from tests.evaluation.rag_stub import EXPECTED_QUADRANTS, make_rag_golden, rag_table


def rag_run_file() -> bytes:
    """The RAG stub's answers as a JSONL run with every stage."""
    staged = []
    for qid, s in rag_table().items():
        staged.append(
            StagedQuery(
                query_id=qid,
                results=tuple(
                    RankedItem(c, round(1.0 - i / 100, 4)) for i, c in enumerate(s.reranked)
                ),
                candidates=tuple(
                    RankedItem(c, round(1.0 - i / 100, 4)) for i, c in enumerate(s.candidates)
                ),
                contexts=tuple(Context(i, t) for i, t in s.contexts),
                response=s.answer,
            )
        )
    return "".join(jsonl_run_lines(staged)).encode()


def _upload(client, project, retriever, name: str, data: bytes):
    return client.post(
        f"/api/v1/projects/{project.pk}/retrievers/{retriever.pk}/run-file/",
        {"file": SimpleUploadedFile(name, data)},
        format="multipart",
    )


@pytest.mark.django_db
def test_an_uploaded_jsonl_run_keeps_its_stages_and_reports_them(personas, api_client_for):
    golden = make_rag_golden(personas.project)
    client = api_client_for(personas.alice)
    made = client.post(
        f"/api/v1/projects/{personas.project.pk}/retrievers/",
        {"name": "rag file", "kind": "runfile"},
        format="json",
    )
    assert made.status_code == 201, made.content
    retriever = Retriever.objects.get(pk=made.json()["id"])

    response = _upload(client, personas.project, retriever, "rag run.jsonl", rag_run_file())
    assert response.status_code == 201, response.content
    row = RunFileRow.objects.get(run_file__retriever=retriever, query_id="q2")
    assert row.ids[0] == "r2a" and len(row.candidates) == 20 and row.candidate_scores[0] == 1.0
    assert row.contexts[0] == {"id": "r2a", "text": "The refund period is 7 days from delivery."}
    assert row.response.startswith("The refund period is 7 days.")
    assert RunFileRow.objects.get(run_file__retriever=retriever, query_id="q8").response is None

    run = evaluation_run_create(
        project=personas.project, retriever=retriever, version=golden.version, enqueue=False
    )
    run = evaluation_run_execute_inline(run_id=run.pk)
    assert run.state == "succeeded", run.error
    stored = QueryResult.objects.get(run=run, query_id="q2")
    assert stored.candidates == row.candidates and stored.contexts == row.contexts
    assert stored.response == row.response
    report = client.get(f"/api/v1/projects/{personas.project.pk}/runs/{run.pk}/report/").json()
    assert report["answers"]["aggregate"]["first_stage:recall@20"]["mean"] == 1.0
    assert report["quadrants"] == {q: len(v) for q, v in EXPECTED_QUADRANTS.items()}


@pytest.mark.django_db
def test_a_run_file_with_a_bad_stage_is_refused_whole(personas, api_client_for):
    client = api_client_for(personas.alice)
    made = client.post(
        f"/api/v1/projects/{personas.project.pk}/retrievers/",
        {"name": "rag file", "kind": "runfile"},
        format="json",
    )
    retriever = Retriever.objects.get(pk=made.json()["id"])
    good = {"query_id": "q1", "results": [{"id": "c1"}], "response": "yes"}
    bad = {
        "query_id": "q2",
        "results": [{"id": "c2"}],
        "contexts": [{"id": "c2", "text": 7}],
    }
    data = (json.dumps(good) + "\n" + json.dumps(bad) + "\n").encode()
    response = _upload(client, personas.project, retriever, "rag 评测.jsonl", data)
    assert response.status_code == 400
    detail = str(response.json()["detail"])
    assert "rag 评测.jsonl:2:" in detail and "contexts[0].text" in detail, detail
    assert not RunFile.objects.filter(retriever=retriever).exists()
    assert not RunFileRow.objects.exists()
