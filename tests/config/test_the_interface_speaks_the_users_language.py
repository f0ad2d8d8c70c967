"""The language of the pages: the browser's, until the user picks one; the choice is kept on
the account, so it survives signing out and follows the user to another browser."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import UserLanguage
from tests.conftest import PASSWORD

CHINESE_BROWSER = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9,en;q=0.5"}
ENGLISH_BROWSER = {"HTTP_ACCEPT_LANGUAGE": "en-US,en;q=0.9"}


def signed_in(user, browser) -> Client:  # type: ignore[no-untyped-def]
    client = Client(**browser)
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_a_chinese_browser_gets_the_pages_in_chinese(personas):
    client = signed_in(personas.alice, CHINESE_BROWSER)
    page = client.get(reverse("project-home", args=[personas.project.pk]))
    html = page.content.decode()
    assert '<html lang="zh-hans">' in html
    assert "标准集" in html and "Golden sets" not in html
    assert page["Content-Language"] == "zh-hans"


def test_an_english_browser_gets_the_pages_in_english(personas):
    client = signed_in(personas.alice, ENGLISH_BROWSER)
    html = client.get(reverse("project-home", args=[personas.project.pk])).content.decode()
    assert '<html lang="en">' in html and "Golden sets" in html and "标准集" not in html


def test_the_sign_in_page_follows_the_browser(db):
    assert "用户名" in Client(**CHINESE_BROWSER).get(reverse("login")).content.decode()
    assert "Username" in Client(**ENGLISH_BROWSER).get(reverse("login")).content.decode()


def test_a_users_choice_wins_over_the_browser_and_survives_signing_out(personas):
    client = signed_in(personas.bob, CHINESE_BROWSER)
    home = reverse("project-home", args=[personas.project.pk])
    switched = client.post(reverse("language-set"), {"language": "en", "next": home})
    assert switched.status_code == 302 and switched["Location"] == home
    assert UserLanguage.objects.get(user=personas.bob).language == "en"
    assert "Golden sets" in client.get(home).content.decode()

    client.post(reverse("logout"))
    # A new browser, in Chinese, with no cookie of ours: the account's choice decides.
    elsewhere = signed_in(personas.bob, CHINESE_BROWSER)
    page = elsewhere.get(home)
    assert "Golden sets" in page.content.decode() and "标准集" not in page.content.decode()
    # ...and it keeps the sign-in page in English after signing out there too.
    assert elsewhere.cookies["goldsmith_language"].value == "en"
    elsewhere.post(reverse("logout"))
    assert "Username" in elsewhere.get(reverse("login")).content.decode()


def test_the_choice_of_one_user_is_not_another_users(personas):
    signed_in(personas.bob, ENGLISH_BROWSER).post(reverse("language-set"), {"language": "zh-hans"})
    carol = signed_in(personas.carol, ENGLISH_BROWSER)
    assert "Sign out" in carol.get(reverse("project-list")).content.decode()


def test_following_the_browser_again_forgets_the_choice(personas):
    client = signed_in(personas.bob, ENGLISH_BROWSER)
    client.post(reverse("language-set"), {"language": "zh-hans"})
    assert "退出登录" in client.get(reverse("project-list")).content.decode()
    client.post(reverse("language-set"), {"language": ""})
    assert not UserLanguage.objects.filter(user=personas.bob).exists()
    assert "Sign out" in client.get(reverse("project-list")).content.decode()


def test_a_visitor_can_switch_the_sign_in_page(db):
    client = Client(**ENGLISH_BROWSER)
    client.post(reverse("language-set"), {"language": "zh-hans", "next": reverse("login")})
    assert "用户名" in client.get(reverse("login")).content.decode()


def test_the_switcher_refuses_an_unknown_language_and_a_foreign_next(personas):
    client = signed_in(personas.bob, ENGLISH_BROWSER)
    assert client.post(reverse("language-set"), {"language": "xx"}).status_code == 404
    away = client.post(reverse("language-set"), {"language": "en", "next": "https://evil.example/"})
    assert away.status_code == 302 and away["Location"] == "/"
    assert client.get(reverse("language-set")).status_code == 405


@pytest.mark.parametrize(("language", "word"), [("zh-hans", "正在保存"), ("en", "Saving")])
def test_the_javascript_catalog_serves_each_language(db, language, word):
    response = Client().get(reverse("javascript-catalog", args=[language]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    body = response.content.decode()
    assert "function gettext" in body or "gettext" in body
    if language != "en":  # the catalog is JSON: non-ASCII letters come \u-escaped
        assert word.encode("unicode_escape").decode() in body
    assert "max-age=3600" in response["Cache-Control"]


def test_the_javascript_catalog_of_an_unknown_language_is_not_found(db):
    assert Client().get(reverse("javascript-catalog", args=["xx"])).status_code == 404


def test_every_page_loads_the_catalog_of_its_language_before_its_scripts(personas):
    client = signed_in(personas.bob, CHINESE_BROWSER)
    html = client.get(reverse("annotate-queue", args=[personas.project.pk])).content.decode()
    assert '<script src="/jsi18n/zh-hans/"></script>' in html


def test_numbers_read_naturally_in_both_languages(personas):
    """Decimals keep the point in both; no thousands separator, so ids in URLs stay whole."""
    from django.utils import translation
    from django.utils.formats import localize

    for language in ("en", "zh-hans"):
        with translation.override(language):
            assert localize(0.8125) == "0.8125"
            assert localize(12345) == "12345"
