"""The whole pipeline in Chinese, in Chromium with a Chinese interface and a real Celery worker:
a lead uploads a Chinese corpus and a raw Chinese query log (a mobile number in it is scrubbed),
samples, pools with BM25 and TF-IDF (every sampled query gets candidates, and its relevant
chunk where the test collection has one), two annotators grade by keyboard, the lead approves
and freezes, and a built-in BM25 run scores the version, its page in Chinese and its tokenizer
recorded. The corpus and queries are the project's own Chinese test collection
(annotation/demo_data/zh_collection, written here)."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from annotation.demo import ZH_COLLECTION
from annotation.models import (
    Candidate,
    CorpusImport,
    GoldenSetVersion,
    LogQuery,
    Query,
    QueryLog,
    QueryReview,
)
from evaluation.models import EvaluationRun
from tests.conftest import PASSWORD

pytestmark = pytest.mark.e2e

COLLECTION = ZH_COLLECTION
SAMPLED = 4


def relevant_chunks() -> dict[str, set[str]]:
    """Query text → the chunk ids the collection grades 2."""
    texts = {
        q["id"]: q["text"]
        for q in map(json.loads, (COLLECTION / "queries.jsonl").read_text().splitlines())
    }
    relevant: dict[str, set[str]] = defaultdict(set)
    for line in (COLLECTION / "qrels.txt").read_text().splitlines():
        qid, _, chunk, grade = line.split()
        if int(grade) == 2:
            relevant[texts[qid]].add(chunk)
    return relevant


def until(page, predicate, what: str, timeout_ms: int = 90_000) -> None:  # type: ignore[no-untyped-def]
    """Poll the database while the page's event loop runs (the worker does the work)."""
    for _ in range(timeout_ms // 250):
        if predicate():
            return
        page.wait_for_timeout(250)
    raise AssertionError(f"timed out waiting for {what}")


def chinese_page(browser, url: str, username: str):  # type: ignore[no-untyped-def]
    context = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto(f"{url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(lambda u: "/login/" not in u)
    return page


def test_a_chinese_team_goes_from_raw_files_to_a_run(
    personas, live_server, browser, celery_worker_process, tmp_path
):
    project = personas.project
    base = f"{live_server.url}/projects/{project.pk}"
    relevant = relevant_chunks()
    log = tmp_path / "用户查询.csv"
    rows = ["query,category"]
    for text in relevant:
        rows.append(f'"{text}",售后')
    rows.append('"我的手机号是13812345678，退款到账了吗",售后')
    log.write_text("\n".join(rows) + "\n", encoding="utf-8")

    lead = chinese_page(browser, live_server.url, "alice")
    try:
        # The corpus: a Chinese upload sets the project's tokenizer.
        lead.goto(f"{base}/corpus/")
        assert lead.locator("html").get_attribute("lang") == "zh-hans"
        lead.set_input_files("input[name=file]", str(COLLECTION / "corpus.jsonl"))
        lead.click("form[enctype] button[type=submit]")
        until(lead, lambda: CorpusImport.objects.filter(status="done").exists(), "the corpus")
        # The page reloads itself when the import ends (a reload of ours would race it).
        lead.locator("#tokenizer-detected").wait_for()
        assert "zh-bigrams" in lead.locator("#tokenizer-detected").inner_text()
        project.refresh_from_db()
        assert project.tokenizer == "zh-bigrams"

        # The raw query log, scrubbed and imported by the worker.
        lead.goto(f"{base}/querylogs/")
        lead.set_input_files("input[name=log-file]", str(log))
        lead.click("form:has(input[value=upload]) button[type=submit]")
        lead.wait_for_url("**/querylogs/*/")
        until(lead, lambda: QueryLog.objects.filter(status="done").exists(), "the query log")
        texts = set(LogQuery.objects.filter(log__project=project).values_list("text", flat=True))
        assert "13812345678" not in "".join(texts)
        assert any("退款到账了吗" in t for t in texts)

        # A seeded sample of the log becomes the project's queries.
        lead.goto(f"{base}/sampling/")
        lead.fill("input[name=n]", str(SAMPLED))
        lead.click("button[name=what][value=create]")
        lead.wait_for_load_state()
        queries = list(Query.objects.filter(project=project))
        assert len(queries) == SAMPLED

        # Pools from both built-in retrievers; then two annotators per query.
        lead.goto(f"{base}/pools/")
        lead.fill("input[name=build-k]", "3")
        lead.click("form:has(input[value=build]) button[type=submit]")
        lead.locator("#pool-build[data-running=false]").wait_for(timeout=120_000)  # the worker's
        assert lead.locator("#pool-build .badge").inner_text() == "已完成"
        for query in queries:
            pooled = set(query.candidates.values_list("chunk__chunk_id", flat=True))
            assert pooled, f"no candidate for {query.text!r}"
            if relevant.get(query.text):
                assert pooled & relevant[query.text], f"{query.text!r} missed its answer"
        lead.fill("input[name=assign-per_query]", "2")
        lead.click("form:has(input[name=assign-per_query]) button[type=submit]")
        lead.wait_for_load_state()

        # Bob and carol grade every query by keyboard: 2 for the collection's answer, else 0.
        for username in ("bob", "carol"):
            page = chinese_page(browser, live_server.url, username)
            page.goto(f"{base}/annotate/")
            page.click(f"a[href$='/projects/{project.pk}/annotate/next/']")
            for _ in range(SAMPLED):
                page.wait_for_url("**/annotate/*/")
                query = Query.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
                page.locator(".candidate.focused").wait_for()
                for card in page.locator(".candidate[data-candidate-id]").all():
                    candidate = Candidate.objects.get(
                        pk=int(card.get_attribute("data-candidate-id"))
                    )
                    grade = "2" if candidate.chunk.chunk_id in relevant.get(query.text, ()) else "0"
                    page.keyboard.press(grade)
                page.get_by_text("所有更改已保存").wait_for()
                page.keyboard.press("n")
            page.context.close()

        # Agreed grades resolve by rule; the lead approves them all and freezes.
        assert set(QueryReview.objects.values_list("state", flat=True)) == {"resolved"}
        lead.goto(f"{base}/review/")
        assert "已定案，待批准" in lead.locator("main").inner_text()
        lead.click("button[name=all_resolved]")
        lead.wait_for_load_state()
        lead.goto(f"{base}/goldsets/")
        lead.click("form button.primary[type=submit]")
        lead.wait_for_url(lambda url: "/goldsets/v1/" in url)
        version = GoldenSetVersion.objects.get(project=project)
        assert version.query_count == SAMPLED

        # A built-in BM25 retriever runs against the version in the worker.
        lead.goto(f"{base}/retrievers/")
        lead.fill(".retriever-form input[name=name]", "BM25 中文")
        lead.select_option(".retriever-form select[name=kind]", "bm25")
        lead.click(".retriever-form button[type=submit]")
        lead.wait_for_url("**/retrievers/*/")
        lead.fill("input[name=ks]", "3")
        lead.click("form:has(input[name=ks]) button[type=submit]")
        lead.wait_for_url("**/runs/*/")
        run = EvaluationRun.objects.get(version=version)
        until(lead, lambda: EvaluationRun.objects.get(pk=run.pk).finished_at, "the run")
        run.refresh_from_db()
        assert run.state == "succeeded" and run.tokenizer == "zh-bigrams"
        lead.locator("#run-tokenizer").wait_for()
        assert "分词方式" in lead.locator("#run-tokenizer").inner_text()
        assert "评测运行" in lead.title() or "评测运行" in lead.locator("main").inner_text()
    finally:
        lead.context.close()
