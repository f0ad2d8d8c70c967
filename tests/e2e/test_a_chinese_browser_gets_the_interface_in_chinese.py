"""A lead whose browser asks for Chinese sees the sign-in page, the annotation page (with the
words its JavaScript writes) and the dashboard in Chinese, switches to English with the
header's switcher by keyboard, and keeps English after signing out and in, in this browser and
in a fresh one."""

from __future__ import annotations

import pytest

from annotation.models import UserLanguage
from tests.annotation.factories import judging_setup
from tests.conftest import PASSWORD

pytestmark = pytest.mark.e2e


def chinese_browser(browser):  # type: ignore[no-untyped-def]
    context = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    return context


def sign_in(page, url: str, username: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url(lambda u: "/login/" not in u)


def test_a_chinese_browser_gets_chinese_pages_and_the_user_can_switch_to_english(
    personas, live_server, browser
):
    project = personas.project
    setup = judging_setup(personas, per_query=3)
    query, _ = setup.first()
    # alice leads; give her a query to grade as well, through the annotator bob's page.
    contexts = [chinese_browser(browser)]
    try:
        page = contexts[0].new_page()
        page.goto(f"{live_server.url}/login/")
        assert page.locator("html").get_attribute("lang") == "zh-hans"
        assert page.locator("label[for=id_username]").inner_text() == "用户名"

        # The annotation page, with the JavaScript's words.
        sign_in(page, live_server.url, "bob")
        page.goto(f"{live_server.url}/projects/{project.pk}/annotate/{query.pk}/")
        assert page.locator("#next-query").inner_text().startswith("下一条查询")
        assert "评分" in page.locator(".keys-card p").inner_text()
        page.keyboard.press("2")
        page.locator(".candidate >> nth=0 >> .save-state.is-saved").wait_for()
        assert page.locator(".candidate >> nth=0 >> .save-state").inner_text() == "已保存"
        page.get_by_text("所有更改已保存").wait_for()
        page.keyboard.press("?")
        help_dialog = page.locator("#help-dialog")
        assert help_dialog.is_visible()
        assert "键盘快捷键" in help_dialog.inner_text()
        assert "下一个 / 上一个文本块" in help_dialog.inner_text()
        page.keyboard.press("Escape")
        page.locator("#corpus-search input[name=q]").fill("zzzz-nothing-matches")
        page.click("#corpus-search button[type=submit]")
        page.get_by_text("没有找到文本块。").wait_for()
        page.click("header form[action$='/logout/'] button")

        # The lead's dashboard.
        sign_in(page, live_server.url, "alice")
        page.goto(f"{live_server.url}/projects/{project.pk}/dashboard/")
        assert page.locator("h1").inner_text() == "负责人仪表盘"
        assert "一致性" in page.locator("main").inner_text()

        # The switcher, by keyboard: choose English, Tab to its button, Enter.
        page.locator("#language-select").focus()
        page.locator("#language-select").select_option("en")
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        page.wait_for_load_state("load")
        page.locator("h1", has_text="Lead dashboard").wait_for()
        assert page.locator("html").get_attribute("lang") == "en"
        assert UserLanguage.objects.get(user=personas.alice).language == "en"

        # Signing out and in again keeps English, in this browser...
        page.click("header form[action$='/logout/'] button")
        sign_in(page, live_server.url, "alice")
        page.goto(f"{live_server.url}/projects/{project.pk}/dashboard/")
        assert page.locator("h1").inner_text() == "Lead dashboard"

        # ...and in a fresh Chinese browser that has never seen the switcher: the account's choice.
        contexts.append(chinese_browser(browser))
        fresh = contexts[1].new_page()
        sign_in(fresh, live_server.url, "alice")
        fresh.goto(f"{live_server.url}/projects/{project.pk}/dashboard/")
        assert fresh.locator("h1").inner_text() == "Lead dashboard"
        assert fresh.locator("#language-select").input_value() == "en"
    finally:
        for context in contexts:
            for open_page in context.pages:
                open_page.goto("about:blank")
            context.close()
