"""In Chromium, in Chinese and in English: while an import runs, its page says the phase the
worker is in, in words ("正在读取文件", "Reading the file"), never the worker's code ("reading"),
both as the page is first drawn and as the script polling the API moves it on; when the import
ends, the page reloads with the report in its place (issue 23). The import's row is moved from phase
to phase here as the worker writes it (annotation.services.querylogs: reading, grouping,
storing; annotation.services.corpus: importing), so that each phase stays on screen long enough
to be read."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.utils import timezone

from annotation.models import CorpusImport, ImportStatus, QueryLog
from annotation.models.imports import PHASE_WORDS

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
WORDS = {
    "zh-CN": {
        "starting": "正在准备导入",
        "reading": "正在读取文件",
        "importing": "正在读取并保存文本块",
        "grouping": "正在归并近似重复的查询",
        "storing": "正在保存查询",
        "running": "运行中",
    },
    "en-US": {
        "starting": "Preparing the import",
        "reading": "Reading the file",
        "importing": "Reading and storing the chunks",
        "grouping": "Grouping near-duplicate queries",
        "storing": "Storing the queries",
        "running": "Running",
    },
}


def test_every_phase_a_worker_writes_has_words_on_the_page():
    """A phase code added to the importers without words would reach the page as nothing."""
    written = set()
    for path in (ROOT / "annotation" / "services").glob("*.py"):
        written |= set(re.findall(r"\bphase=\"([a-z_]+)\"", path.read_text(encoding="utf-8")))
    worded = set(PHASE_WORDS)
    assert {"reading", "grouping", "storing", "importing", "starting"} <= written
    assert written - {"done", "failed"} <= worded, written - worded
    assert worded == set(WORDS["en-US"]) - {"running"}


def phase_reads(page, words: str) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "(w) => document.querySelector('[data-field=phase]').textContent.trim() === w", arg=words
    )


def running(model, project, lead, **fields):  # type: ignore[no-untyped-def]
    """An import of `model` (QueryLog, CorpusImport) a worker is running."""
    return model.objects.create(
        project=project,
        status=ImportStatus.RUNNING,
        heartbeat_at=timezone.now(),
        created_by=lead,
        **fields,
    )


def move(record, phase: str, read: int) -> None:  # type: ignore[no-untyped-def]
    type(record).objects.filter(pk=record.pk).update(
        phase=phase, bytes_read=read, heartbeat_at=timezone.now()
    )


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_a_running_query_log_import_says_each_phase_in_words(
    sign_in, live_server, personas, locale
):
    words = WORDS[locale]
    log = running(
        QueryLog,
        personas.project,
        personas.alice,
        filename="客服日志.csv",
        phase="starting",
        bytes_total=4_000_000,
    )
    page = sign_in("alice", locale, 1366, 768)
    page.goto(f"{live_server.url}/projects/{personas.project.pk}/querylogs/{log.pk}/")
    phase = page.locator("[data-field=phase]")
    assert phase.inner_text().strip() == words["starting"]  # as the server drew it
    assert page.locator("[data-field=status]").inner_text().strip() == words["running"]
    for code, read in (("reading", 1_000_000), ("grouping", 4_000_000), ("storing", 4_000_000)):
        move(log, code, read)
        phase_reads(page, words[code])  # as the polling script wrote it
        text = page.locator(".import-progress").inner_text()
        assert not re.search(rf"\b{code}\b", text), text
    QueryLog.objects.filter(pk=log.pk).update(
        status=ImportStatus.DONE, phase="done", finished_at=timezone.now()
    )
    # The script reloads the page, which now holds the report instead of the progress.
    page.wait_for_selector(".import-progress", state="detached")
    assert "storing" not in page.locator("main").inner_text()


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_a_running_corpus_import_says_its_phase_in_words(sign_in, live_server, personas, locale):
    record = running(
        CorpusImport,
        personas.project,
        personas.alice,
        filename="faq.jsonl",
        phase="importing",
        bytes_total=2_000_000,
        bytes_read=500_000,
    )
    page = sign_in("alice", locale, 1366, 768)
    page.goto(f"{live_server.url}/projects/{personas.project.pk}/corpus/imports/{record.pk}/")
    phase_reads(page, WORDS[locale]["importing"])
    move(record, "importing", 1_500_000)
    page.wait_for_function(
        "() => document.querySelector('.progress').getAttribute('aria-valuenow') === '75'"
    )
    assert page.locator("[data-field=phase]").inner_text().strip() == WORDS[locale]["importing"]
    assert "importing" not in page.locator(".import-progress").inner_text()
