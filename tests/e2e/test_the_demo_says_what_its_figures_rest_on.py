"""The demo as a lead and an annotator see it in a real browser: the BM25 run (no answers)
shows context recall and says "this run has no answers", with no quadrants; the run page says
how many of the golden set's grades are simulated; alice's queue marks the queries a simulation
graded for her; the dashboard, the version's counts and the JSONL and CSV exports name the
simulated grades' provenance."""

from __future__ import annotations

import csv
import io
import json

import pytest

from annotation.demo import DEMO_PASSWORD, DEMO_PROJECT
from annotation.models import GoldenSetVersion, Project
from evaluation.demo import demo_load
from evaluation.models import EvaluationRun

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def _sign_in(browser, live_server, username: str):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(f"{live_server.url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", DEMO_PASSWORD)
    page.click("main button[type=submit], main input[type=submit]")
    page.wait_for_url(lambda url: "/login/" not in url)
    return context, page


def test_the_demo_names_a_run_without_answers_and_its_simulated_grades(browser, live_server):
    demo_load()
    project = Project.objects.get(name=DEMO_PROJECT)
    version = GoldenSetVersion.objects.get(project=project, label="v1")
    simulated = version.counts["simulated_grades"]
    assert simulated > 0 and version.counts["provenance"]["simulated"] == simulated
    bm25 = EvaluationRun.objects.get(project=project, retriever__name="bm25")
    rag = EvaluationRun.objects.get(project=project, retriever__name="bm25-extractive")
    contexts = []
    try:
        context, page = _sign_in(browser, live_server, "lead")
        contexts.append(context)
        page.goto(f"{live_server.url}/projects/{project.pk}/runs/{bm25.pk}/")
        assert "This run has no answers" in page.locator("#no-answers").inner_text()
        assert page.locator("#quadrants").count() == 0
        metrics = page.locator("#answer-metrics").inner_text()
        assert "context_recall@5" in metrics and "answer_correctness" not in metrics
        assert f"{simulated} of the golden set's grades are simulated" in (
            page.locator("#simulated-grades").inner_text()
        )
        assert "every grade is a person's" not in page.locator("#machine-grades").inner_text()
        # The run with answers keeps its quadrants.
        page.goto(f"{live_server.url}/projects/{project.pk}/runs/{rag.pk}/")
        assert page.locator("#quadrants").count() == 1 and page.locator("#no-answers").count() == 0
        # The dashboard counts the simulated final grades apart.
        page.goto(f"{live_server.url}/projects/{project.pk}/dashboard/")
        row = page.locator('tr[data-provenance="simulated"]')
        assert row.count() == 1 and row.locator("td.num").inner_text() == str(simulated)
        # The exports say it per grade.
        exported = page.request.get(
            f"{live_server.url}/projects/{project.pk}/goldsets/v1/export/jsonl/"
        ).text()
        provenances = {
            j["provenance"]
            for line in exported.splitlines()
            if line.strip() and "judgments" in (doc := json.loads(line))
            for j in doc["judgments"]
        }
        assert "simulated" in provenances
        table = (
            page.request.get(f"{live_server.url}/projects/{project.pk}/goldsets/v1/export/csv/")
            .body()
            .decode("utf-8-sig")
        )
        rows = list(csv.DictReader(io.StringIO(table)))
        assert sum(r["provenance"] == "simulated" for r in rows) == simulated

        context, page = _sign_in(browser, live_server, "alice")
        contexts.append(context)
        page.goto(f"{live_server.url}/projects/{project.pk}/annotate/")
        badges = page.locator(".queue .badge.simulated")
        assert badges.count() == 24  # the demo's first round: 24 queries graded for her
        assert "graded by a simulation" in page.locator("#simulated-queue").inner_text()
    finally:
        for context in contexts:
            context.close()
