"""At 1366 x 768, in English and in Simplified Chinese (Chromium): the top bar and the project
navigation each stay on one line (grouped, never wrapping), the presets table fits its card and
its headers are not one character a line, the webhook field is as wide as the form, and the
sticky query header never covers the chunk in focus, however long the query. Screenshots go to
$GOLDSMITH_SCREENSHOTS (or the test's folder) for a person to look at (issue 23, §4)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from annotation.services.assignment import queries_assign
from annotation.services.projects import project_setup
from tests.annotation.factories import make_chunks, make_query, pool

pytestmark = pytest.mark.e2e

WIDTH, HEIGHT = 1366, 768
LONG_QUERY = (
    "退款多久到账？我在 11 月 2 日申请了退款，订单里有三件商品，其中一件已经退货签收，"
    "另外两件还没有寄回，请问部分退款和全部退款分别要多久到账，信用卡和余额支付有什么不同，"
    "how long does a partial refund take when part of the order was already returned?"
)
REFUND = "退款审核通过后，原路退回，一般 1–3 个工作日到账；信用卡以银行入账时间为准。"
CHUNKS = [(f"文档 {i}", REFUND * 6) for i in range(8)]


def one_line(page, selector: str) -> None:
    boxes = [b for b in (e.bounding_box() for e in page.query_selector_all(selector)) if b]
    assert boxes, selector
    tops = {round(b["y"]) for b in boxes}
    assert max(tops) - min(tops) <= 4, (selector, sorted(tops))
    assert max(b["x"] + b["width"] for b in boxes) <= WIDTH, selector


@pytest.fixture
def setup(personas):
    project = personas.project
    for extra in ("电商客服 FAQ", "Internal search", "Docs portal"):
        project_setup(name=extra, leads=["alice"], annotators=["bob"])
    chunks = make_chunks(project, CHUNKS)
    query = make_query(project, LONG_QUERY, category="售后")
    pool(query, chunks)
    queries_assign(project=project, per_query=2)
    return query


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_the_pages_fit_1366_pixels(personas, setup, sign_in, live_server, locale, tmp_path):
    folder = Path(os.environ.get("GOLDSMITH_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    base = f"{live_server.url}/projects/{personas.project.pk}"
    lead = sign_in("alice", locale, WIDTH, HEIGHT)

    lead.goto(f"{base}/")
    lead.screenshot(path=str(folder / f"home-{locale}.png"))
    one_line(lead, "nav.subnav a")
    one_line(lead, "header.topbar > *")
    sub = lead.eval_on_selector("nav.subnav", "n => [n.scrollWidth, n.clientWidth]")
    assert sub[0] <= sub[1], sub  # nothing scrolled out of sight either

    lead.goto(f"{base}/evaluation-settings/")
    lead.screenshot(path=str(folder / f"settings-{locale}.png"), full_page=True)
    card = lead.locator("#presets").bounding_box()
    table = lead.locator("#presets table.presets").bounding_box()
    assert table["x"] + table["width"] <= card["x"] + card["width"], (table, card)
    headers = "#presets table.presets th"
    line = lead.eval_on_selector(headers, "e => parseFloat(getComputedStyle(e).lineHeight)")
    for th in lead.query_selector_all(headers):
        box = th.bounding_box()
        assert box["height"] <= 2 * line + 16, (th.inner_text(), box)  # at most two lines
    webhook = lead.locator("input[name=webhook_url]")
    holder = webhook.locator("xpath=..").bounding_box()
    assert webhook.bounding_box()["width"] >= 0.95 * holder["width"]

    bob = sign_in("bob", locale, WIDTH, HEIGHT)
    bob.goto(f"{base}/annotate/{setup.pk}/")
    head = bob.locator(".query-head")
    for step in range(8):
        bob.keyboard.press("j")
        bob.wait_for_timeout(100)
        focused = bob.locator(".candidate.focused").bounding_box()
        header = head.bounding_box()
        assert focused["y"] >= header["y"] + header["height"] - 1, (step, focused, header)
    for step in range(7):
        bob.keyboard.press("k")
        bob.wait_for_timeout(100)
        focused = bob.locator(".candidate.focused").bounding_box()
        header = head.bounding_box()
        assert focused["y"] >= header["y"] + header["height"] - 1, ("up", step, focused, header)
    bob.screenshot(path=str(folder / f"annotate-{locale}.png"))
