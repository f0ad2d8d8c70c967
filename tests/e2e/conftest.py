"""Browser tests: Playwright's sync API driving Debian's Chromium against pytest-django's
live server. Skipped, with the reason, when /usr/bin/chromium is not installed."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PASSWORD

CHROMIUM = Path(os.environ.get("GOLDSMITH_CHROMIUM", "/usr/bin/chromium"))
# The live server runs in a thread of this process while Playwright's sync API runs an event
# loop here too; Django's async-safety check would refuse the ORM calls of the test itself.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium; .ci/run does it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def sign_in(browser, live_server):
    """`sign_in("bob")` gives a new page in a fresh browser context, signed in as bob
    (`sign_in("bob", "zh-CN", 1366, 768)`: in a Chinese browser at 1366 × 768)."""
    contexts = []

    def make(username: str, locale: str | None = None, width: int = 1280, height: int = 900):
        """`locale` ("zh-CN"): the browser's language, which the site follows."""
        options = {"locale": locale} if locale else {}
        context = browser.new_context(viewport={"width": width, "height": height}, **options)
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.goto(f"{live_server.url}/login/")
        page.fill("input[name=username]", username)
        page.fill("input[name=password]", PASSWORD)
        # The sign-in form's button (the header has a form of its own: the language switcher).
        page.click("main button[type=submit], main input[type=submit]")
        page.wait_for_url(lambda url: "/login/" not in url)
        return page

    yield make
    # Leave the pages first and give the live server a moment to finish what they sent (the
    # page reports time spent when it is hidden): a request still running while the database
    # is flushed after the test would deadlock against the flush on PostgreSQL.
    for context in contexts:
        for page in context.pages:
            page.goto("about:blank")
    time.sleep(0.5)
    for context in contexts:
        context.close()
    time.sleep(0.2)


@pytest.fixture(autouse=True)
def no_page_outlives_its_test(request):  # type: ignore[no-untyped-def]
    """A browser context a test leaves open keeps its pages talking to the session's live
    server after the test (an annotate page reports time spent; a build card polls), and the
    request lands in a later test that has no database: its traceback then fails that test,
    far from the cause. So a context left open is left, closed and reported here."""
    yield
    if "browser" not in request.fixturenames:
        return
    browser = request.getfixturevalue("browser")
    left = list(browser.contexts)
    for context in left:
        for page in context.pages:
            page.goto("about:blank")
    if left:
        time.sleep(0.5)
    for context in left:
        context.close()
    if left:
        pytest.fail(f"{len(left)} browser context(s) left open by the test: close them")
