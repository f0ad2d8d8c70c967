"""The tour of issue 21 in Chromium with a real worker: a lead uploads a corpus, v1 is judged on
it, a BM25 run passes; a file with one more chunk (the default add mode) keeps that run's recall;
the lead uploads the corpus again without two chunks and with one text changed (the re-import
retires what the file no longer holds); the next run's page reports the stale chunks first,
scores the untouched queries apart, passes on them, and no drift rule fires on the touched ones.
The page is read in English and in Simplified Chinese (screenshots in the test's folder, or
GOLDSMITH_SCREENSHOTS)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError

from evaluation.models import DriftAlert, EvaluationRun
from evaluation.services.runs import baseline_set
from tests.conftest import PASSWORD
from tests.evaluation.stale_corpus import make_stale_ready, write_corpus

pytestmark = pytest.mark.e2e


def until(page, predicate, what: str, timeout_ms: int = 90_000) -> None:  # type: ignore[no-untyped-def]
    for _ in range(timeout_ms // 250):
        if predicate():
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"timed out waiting for {what}")


def signed_in(browser, url: str, username: str, locale: str):  # type: ignore[no-untyped-def]
    context = browser.new_context(locale=locale, viewport={"width": 1280, "height": 1400})
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(f"{url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(lambda u: "/login/" not in u)
    return page


def upload_corpus(page, base: str, path: Path, replace: bool = False) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{base}/corpus/")
    page.set_input_files("input[name=file]", str(path))
    if replace:  # the file is the whole corpus now: its counts are shown, then confirmed
        page.check("input[name=mode][value=replace]")
    page.click("form[enctype] button[type=submit]")
    page.wait_for_load_state()
    if replace:
        page.wait_for_selector("#replace-preview")
        page.click("#confirm-replace")
        page.wait_for_load_state()
    # As a lead would, wait for the import to end: its page reloads itself then, and a reload
    # still to come would take the next page away.
    ended = (
        "[...document.querySelectorAll('.import-progress')]"
        ".every(e => e.dataset.status === 'done' || e.dataset.status === 'failed')"
    )
    for _ in range(300):
        try:
            if page.evaluate(ended):
                break
        except PlaywrightError:  # the page is reloading
            pass
        page.wait_for_timeout(100)
    else:
        raise AssertionError("the import did not end")


def run_bm25(page, base: str, retriever_id: int) -> EvaluationRun:  # type: ignore[no-untyped-def]
    before = EvaluationRun.objects.count()
    page.goto(f"{base}/retrievers/{retriever_id}/")
    page.fill("input[name=ks]", "5")
    page.click("form:has(input[name=ks]) button[type=submit]")
    page.wait_for_url("**/runs/*/")
    until(page, lambda: EvaluationRun.objects.count() > before, "the run")
    run = EvaluationRun.objects.latest("id")
    until(page, lambda: EvaluationRun.objects.get(pk=run.pk).finished_at, "the run to finish")
    run.refresh_from_db()
    page.wait_for_timeout(1500)  # the page reloads itself when the run ends
    page.goto(f"{base}/runs/{run.pk}/")
    return run


def test_the_next_run_after_a_corpus_update_reports_the_stale_chunks_first(
    personas, live_server, browser, celery_worker_process, tmp_path
):
    project = personas.project
    base = f"{live_server.url}/projects/{project.pk}"
    shots = Path(os.environ.get("GOLDSMITH_SCREENSHOTS", str(tmp_path)))
    shots.mkdir(parents=True, exist_ok=True)
    # The corpus through the page, then v1 judged on it (the grading itself is other tours').
    lead = signed_in(browser, live_server.url, "alice", "en-US")
    try:
        make_stale_ready(project, tmp_path)  # imports corpus-1 and v1, adds the BM25 retriever
        upload_corpus(lead, base, write_corpus(tmp_path / "same.jsonl", [1, 2, 3, 4, 5, 6]))
        retriever = project.retrievers.get(name="bm25")
        first = run_bm25(lead, base, retriever.pk)
        assert first.verdict == "pass"
        assert lead.locator("#stale-corpus").count() == 0
        baseline_set(run=first)

        # A file with one more chunk, in the default add mode: nothing is retired, v1 is not
        # stale, and the next run scores what the first one did.
        more = tmp_path / "more.jsonl"
        more.write_text(
            json.dumps(
                {"id": "c7", "doc_id": "d7", "text": "Opening hours: weekdays nine to five."}
            )
            + "\n",
            encoding="utf-8",
        )
        upload_corpus(lead, base, more)

        def live() -> set[str]:
            return set(project.chunks.filter(removed=False).values_list("chunk_id", flat=True))

        until(lead, lambda: "c7" in live(), "the added chunk")
        assert live() == {f"c{i}" for i in range(1, 8)}  # nothing retired
        added = run_bm25(lead, base, retriever.pk)
        assert added.verdict == "pass", added.report["verdict"]
        assert added.report["aggregate"]["recall@5"] == first.report["aggregate"]["recall@5"]
        assert lead.locator("#stale-corpus").count() == 0
        assert not DriftAlert.objects.filter(run=added).exists()

        # The corpus again, without c1 and c2 and with c3 rewritten.
        upload_corpus(
            lead,
            base,
            write_corpus(tmp_path / "update.jsonl", [3, 4, 5, 6], changed=(3,)),
            replace=True,
        )
        run = run_bm25(lead, base, retriever.pk)
        assert run.verdict == "pass", run.report["verdict"]
        assert not DriftAlert.objects.filter(run=run).exists()
        stale = lead.locator("#stale-corpus")
        stale.wait_for()
        text = stale.inner_text()
        assert "2 of v1's 6 relevant chunks were retired and 1 changed since v1 was judged" in text
        assert "On the 3 queries the update did not touch" in text
        main = lead.locator("main").inner_text()
        assert main.index("The golden set is stale") < main.index("Verdict:")
        assert "The verdict rests on 3 of the golden set's 6 queries." in main
        assert "3 touched by a corpus update: q1, q2, q3" in main
        assert "No drift rule fired." in main
        assert "Re-judge the queries the corpus update touched" in main
        lead.screenshot(path=str(shots / "stale-run-en.png"), full_page=True)
    finally:
        lead.context.close()

    reader = signed_in(browser, live_server.url, "alice", "zh-CN")
    try:
        reader.goto(f"{base}/runs/{run.pk}/")
        reader.locator("#stale-corpus").wait_for()
        reader.screenshot(path=str(shots / "stale-run-zh-hans.png"), full_page=True)
    finally:
        reader.context.close()
