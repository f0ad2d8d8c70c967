"""The run page of a RAG run shows, in plain words, the first stage beside the final list
("First stage recall@20 1.00 → final recall@5 0.75"), the answer metrics, the four quadrants
with their counts, queries (each linked to its row of reasons), categories and what to look at,
and places the queries again when the lead edits the thresholds on the settings page."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from tests.evaluation.rag_stub import EXPECTED_QUADRANTS, make_rag_golden
from tests.evaluation.test_a_jsonl_run_file_keeps_every_stage import rag_run_file


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def _count(html: str, key: str) -> int:
    found = re.search(
        rf'data-quadrant="{key}">\s*<h3>[^<]*<span class="badge" data-field="count">(\d+)</span>',
        html,
    )
    assert found, key
    return int(found.group(1))


@pytest.mark.django_db
def test_the_run_page_shows_the_stages_the_answer_metrics_and_the_quadrants(personas):
    golden = make_rag_golden(personas.project)
    retriever = retriever_save(
        project=personas.project,
        name="rag file",
        kind="runfile",
        run_file=SimpleUploadedFile("rag.jsonl", rag_run_file()),
    )
    run = evaluation_run_create(
        project=personas.project, retriever=retriever, version=golden.version, enqueue=False
    )
    run = evaluation_run_execute_inline(run_id=run.pk)
    page = Client()
    page.force_login(personas.victor)
    url = f"/projects/{personas.project.pk}/runs/{run.pk}/"
    html = page.get(url).content.decode()
    text = _text(html)
    assert "First stage recall@20 1.00 → final recall@5 0.75" in text, text[:3000]
    assert "Answer correctness" in text and "context_recall@5" in text
    for key, queries in EXPECTED_QUADRANTS.items():
        assert _count(html, key) == len(queries)
        for q in queries:
            assert f'href="#answer-{q}"' in html
    assert "Context found, answer wrong" in text
    assert "look at chunking, query rewriting" in text
    assert 'id="answer-q5"' in html and "14" in text  # the reason names what the answer says
    assert "quadrants-by-category" in html and "refunds" in text
    csv_text = page.get(f"{url}report.csv").content.decode()
    header, *lines = csv_text.splitlines()
    assert "answer_correctness" in header.split(",") and "first_stage:recall@20" in header
    q5 = next(line for line in lines if line.startswith("q5,")).split(",")
    assert q5[header.split(",").index("exact_match")] == "0.0"

    # The lead edits the recall threshold: q2 (recall 0.5) moves to "context found, answer
    # right", with no new run.
    lead = Client()
    lead.force_login(personas.alice)
    settings_url = f"/projects/{personas.project.pk}/evaluation-settings/"
    form = lead.get(settings_url).context["form"]
    data = {k: v for k, v in form.initial.items() if v is not None}
    data.update(quadrant_recall_threshold="0.5", max_answer_drop="answer_correctness=0.05")
    response = lead.post(settings_url, data)
    assert response.status_code == 302, _text(response.content.decode())[-2000:]
    html = page.get(url).content.decode()
    assert _count(html, "high_recall_high_correctness") == 2
    assert _count(html, "low_recall_high_correctness") == 1
    assert "high at or above 0.5) and its answer correctness (high at or above 0.7)" in _text(html)
