"""In Chromium, a lead adds a run-file retriever with a RAG run (candidates, contexts,
responses) through the retriever page, runs it, and reads on the run page the first stage
beside the final list, the answer metrics and the four quadrants; following a query of a
quadrant leads to its reasons; raising the recall threshold on the settings page moves a query
to another quadrant."""

from __future__ import annotations

import pytest

from evaluation.models import Retriever
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from tests.evaluation.rag_stub import make_rag_golden
from tests.evaluation.test_a_jsonl_run_file_keeps_every_stage import rag_run_file

pytestmark = pytest.mark.e2e


def test_a_lead_reads_where_a_rag_runs_failures_come_from(personas, live_server, sign_in, tmp_path):
    golden = make_rag_golden(personas.project)
    run_path = tmp_path / "rag run.jsonl"
    run_path.write_bytes(rag_run_file())
    project = personas.project
    page = sign_in("alice")

    page.goto(f"{live_server.url}/projects/{project.pk}/retrievers/")
    page.fill("input[name=name]", "rag file")
    page.select_option("select[name=kind]", "runfile")
    page.set_input_files("input[name=run_file]", str(run_path))
    page.locator("form:has(input[name=run_file]) button[type=submit]").first.click()
    page.wait_for_load_state()
    retriever = Retriever.objects.get(project=project, name="rag file")
    run = evaluation_run_create(
        project=project, retriever=retriever, version=golden.version, enqueue=False
    )
    evaluation_run_execute_inline(run_id=run.pk)

    page.goto(f"{live_server.url}/projects/{project.pk}/runs/{run.pk}/")
    headline = page.locator("#stage-headline").inner_text()
    assert "First stage recall@20 1.00" in headline and "final recall@5 0.75" in headline

    def count(key: str) -> str:
        return page.locator(f"[data-quadrant={key}] [data-field=count]").inner_text()

    assert count("high_recall_low_correctness") == "2"  # q3, q5 (q8 has no response: unplaced)
    assert count("low_recall_high_correctness") == "2"
    wrong = page.locator("[data-quadrant=high_recall_low_correctness]")
    assert "the prompt" in wrong.inner_text()
    wrong.locator("ul a", has_text="q5").first.click()
    assert page.url.endswith("#answer-q5")
    row = page.locator("#answer-q5")
    assert row.is_visible() and "7" in row.inner_text()

    page.goto(f"{live_server.url}/projects/{project.pk}/evaluation-settings/")
    page.fill("input[name=quadrant_recall_threshold]", "0.5")
    page.locator("form:has(input[name=quadrant_recall_threshold]) button[type=submit]").click()
    page.wait_for_load_state()
    page.goto(f"{live_server.url}/projects/{project.pk}/runs/{run.pk}/")
    assert count("high_recall_high_correctness") == "2"
    assert count("low_recall_high_correctness") == "1"
