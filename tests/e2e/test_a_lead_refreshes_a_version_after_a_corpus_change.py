"""After a corpus change a lead opens a refresh of v1 on its page, an annotator grades only the
asked candidates (one shown as replacing a retired chunk), the lead freezes v2 and the diff says
why each query changed. Screenshots of the pages in English and Chinese go to
$GOLDSMITH_SCREENSHOTS when it is set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from annotation.models import GoldenSetVersion, Judgment
from annotation.services.adjudication import queries_approve
from tests.annotation.refresh_factories import grade_all, judged_v1, update_corpus
from tests.conftest import PASSWORD

pytestmark = pytest.mark.e2e
SHOTS = os.environ.get("GOLDSMITH_SCREENSHOTS")


def shot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def test_a_lead_refreshes_v1_an_annotator_grades_what_is_asked_and_v2_says_why(
    personas, live_server, sign_in, browser
):
    judged = judged_v1(personas)
    project = personas.project
    update_corpus(project)
    base = f"{live_server.url}/projects/{project.pk}"

    alice = sign_in("alice")
    alice.goto(f"{base}/goldsets/v1/")
    alice.click("#refresh-open")
    alice.locator("#refresh-counts").wait_for()
    assert alice.locator("#refresh-untouched").inner_text() == "1"
    assert alice.locator("#refresh-touched").inner_text() == "2"
    assert alice.locator("#refresh-asked").inner_text() == "4"
    shot(alice, "refresh-en-version")

    bob = sign_in("bob")
    bob.goto(f"{base}/annotate/{judged.refund.pk}/")
    replacing = bob.locator(".candidate", has=bob.locator("[data-asked=replaces]"))
    assert "replaces retired chunk guide#1" in replacing.inner_text()
    # Only the asked candidates wait for a grade: the kept ones show bob's own grades.
    waiting = bob.locator(".candidate:not(.graded)")
    assert waiting.count() == 2
    shot(bob, "refresh-en-annotate")
    replacing.locator("button.g2").click()
    bob.locator(".candidate[data-chunk-id='guide#3'] button.g0").click()
    bob.locator(".candidate[data-chunk-id='guide#3'] .save-state.is-saved").wait_for()
    replacing.locator(".save-state.is-saved").wait_for()
    assert (
        Judgment.objects.filter(
            annotator=personas.bob,
            candidate__query=judged.refund,
            candidate__chunk__chunk_id="guide#1b",
        )
        .get()
        .grade
        == 2
    )
    grade_all(personas.bob, judged.password, {"guide#3": 1, "guide#1b": 0})
    grade_all(personas.carol, judged.password, {"guide#3": 1, "guide#1b": 0})
    grade_all(personas.carol, judged.refund, {"guide#1b": 2, "guide#3": 0})
    queries_approve(project=project, by=personas.alice)

    alice.goto(f"{base}/goldsets/v1/")
    assert alice.locator("#refresh-progress").inner_text() == "2 / 2"
    alice.click("#refresh-freeze")
    alice.locator("#why").wait_for()
    assert GoldenSetVersion.objects.filter(project=project, label="v2").exists()
    refund = alice.locator(f".why-query[data-query-id='{judged.refund.pk}']").inner_text()
    assert "chunk retired from the corpus" in refund or "retired in corpus version" in refund
    assert "re-judged by bob, carol: grade 2" in refund
    assert "replaces retired chunk guide#1" in refund
    password = alice.locator(f".why-query[data-query-id='{judged.password.pk}']").inner_text()
    assert "grade carried: only white space or punctuation changed" in password
    assert "its text changed" in password
    shot(alice, "refresh-en-diff")

    if SHOTS:  # the same pages in Chinese
        context = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(f"{live_server.url}/login/")
        page.fill("input[name=username]", "alice")
        page.fill("input[name=password]", PASSWORD)
        page.click("main button[type=submit], main input[type=submit]")
        page.wait_for_url(lambda url: "/login/" not in url)
        page.goto(f"{base}/goldsets/diff/?a=v1&b=v2")
        shot(page, "refresh-zh-diff")
        page.goto(f"{base}/goldsets/v2/")
        shot(page, "refresh-zh-version")
        page.goto("about:blank")
        context.close()
