"""In Chromium: a lead imports a corpus, then uploads a second file in the default add mode
(nothing is retired), then chooses replace for a third, sees what it would do (added, changed,
retired and the chunks a frozen version cites) before anything is stored, and confirms."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from annotation.models import Chunk, CorpusVersion
from annotation.services.goldsets import golden_set_version_freeze
from tests.annotation.corpus_files import V1, write_corpus
from tests.annotation.goldset_factories import make_query

pytestmark = pytest.mark.e2e


@pytest.fixture
def eager_tasks():
    from config.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True  # the upload's import runs in the live server's thread
    yield
    app.conf.task_always_eager = before


def upload(page, url: str, path: Path, replace: bool = False) -> None:
    page.goto(url)
    page.set_input_files("input[name=file]", str(path))
    if replace:
        page.check("input[name=mode][value=replace]")
    else:
        assert page.is_checked("input[name=mode][value=add]")  # the default
    page.click("form[enctype] button[type=submit]")


def live(project) -> set[str]:
    return set(
        Chunk.objects.filter(project=project, removed=False).values_list("chunk_id", flat=True)
    )


def test_add_keeps_the_corpus_and_replace_shows_its_counts_first(
    personas, live_server, sign_in, tmp_path, eager_tasks
):
    project = personas.project
    corpus_url = f"{live_server.url}/projects/{project.pk}/corpus/"
    page = sign_in("alice")
    upload(page, corpus_url, write_corpus(tmp_path, "v1.jsonl", V1))
    page.wait_for_selector("#import-version")
    assert "1" in page.inner_text("#import-version")

    chunk = {c.chunk_id: c for c in Chunk.objects.filter(project=project)}
    make_query(project, "contact", {chunk["kb-3"]: 2})
    golden_set_version_freeze(project=project, by=personas.alice)

    upload(page, corpus_url, write_corpus(tmp_path, "more.jsonl", {"kb-5": "Plans renew."}))
    page.wait_for_selector("#import-version")
    assert "add or update" in page.inner_text("#import-kind")
    assert live(project) == {*V1, "kb-5"}  # nothing retired

    only = {"kb-1": V1["kb-1"], "kb-2": "Refunds take ten working days."}
    upload(page, corpus_url, write_corpus(tmp_path, "whole.jsonl", only), replace=True)
    page.wait_for_selector("#replace-preview")
    counts = {
        name: re.findall(r"\d+", page.inner_text(f"#preview-{name}"))[-1]
        for name in ("added", "changed", "retired", "cited-frozen")
    }
    assert counts == {"added": "0", "changed": "1", "retired": "3", "cited-frozen": "1"}
    assert live(project) == {*V1, "kb-5"} and CorpusVersion.objects.count() == 2

    page.click("#confirm-replace")
    page.wait_for_selector("#import-version")
    assert "replace" in page.inner_text("#import-kind")
    assert live(project) == {"kb-1", "kb-2"}
    assert CorpusVersion.objects.get(number=3).retired == 3

    shots = os.environ.get("GOLDSMITH_SCREENSHOTS")
    if shots:  # for a person to look at: the corpus page in both languages
        page.goto(corpus_url)
        page.screenshot(path=f"{shots}/corpus-en.png", full_page=True)
        context = page.context.browser.new_context(
            viewport={"width": 1280, "height": 900},
            extra_http_headers={"Accept-Language": "zh-hans"},
        )
        zh = context.new_page()
        zh.goto(f"{live_server.url}/login/")
        zh.fill("input[name=username]", "alice")
        from tests.conftest import PASSWORD

        zh.fill("input[name=password]", PASSWORD)
        zh.click("main button[type=submit], main input[type=submit]")
        zh.wait_for_url(lambda url: "/login/" not in url)
        zh.goto(corpus_url)
        zh.screenshot(path=f"{shots}/corpus-zh.png", full_page=True)
        upload(zh, corpus_url, write_corpus(tmp_path, "again.jsonl", V1), replace=True)
        zh.wait_for_selector("#replace-preview")
        zh.screenshot(path=f"{shots}/preview-zh.png", full_page=True)
        zh.goto("about:blank")
        context.close()
