"""Around every form: the language picker names each language in itself, a help text is shown
as written (never read as markup), and the site has an icon."""

from __future__ import annotations

from pathlib import Path

import pytest
from django import forms

pytestmark = pytest.mark.django_db
TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


class Sample(forms.Form):
    patterns = forms.CharField(help_text="Replaced by <NAME> in imported queries.")


def test_a_help_text_is_escaped_in_the_layout_pages_use():
    form = Sample()
    for html in (str(form), form.as_div()):
        assert "Replaced by &lt;NAME&gt; in imported queries." in html, html


def test_no_page_uses_a_layout_that_reads_help_texts_as_markup():
    # Django's p, table and ul layouts mark help texts safe; the site's renderer escapes them
    # only in the div layout (config/forms.py).
    for template in TEMPLATES.rglob("*.html"):
        text = template.read_text(encoding="utf-8")
        for layout in (".as_p", ".as_table", ".as_ul"):
            assert layout not in text, f"{template.relative_to(TEMPLATES)} uses {layout}"


def test_the_language_picker_names_each_language_in_itself(client, django_user_model):
    user = django_user_model.objects.create_user("alice", password="pw-alice-123")
    client.force_login(user)
    for language in ("en", "zh-hans"):
        html = client.get("/", headers={"accept-language": language}, follow=True).content
        page = html.decode()
        assert ">English</option>" in page
        assert ">简体中文</option>" in page
        assert "英语" not in page and "Simplified Chinese" not in page


def test_the_site_has_an_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    icon = client.get(response["Location"])
    assert icon.status_code == 200
    assert b"<svg" in b"".join(icon.streaming_content if icon.streaming else [icon.content])
