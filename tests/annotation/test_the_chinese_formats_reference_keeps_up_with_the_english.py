"""docs/formats.zh-hans.md is docs/formats.md in Chinese, served at /docs/formats/ to a reader
whose language is zh-hans (issue 23). A change to the English text that the Chinese one does not
follow fails here: both have the same headings with the same ids (the import forms link to
#query-log and #corpus-chunks-or-whole-documents in either), the same code blocks byte for byte,
the same tables with as many rows, and every name the English writes as code."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from django.test import Client

from annotation.views.formats import FORMATS_DOC, formats_doc_path, render_formats

CHINESE = FORMATS_DOC.with_name("formats.zh-hans.md")


def parts(doc: Path) -> dict[str, object]:
    """What a translation keeps as it is, read from the page as the view renders it."""
    page = render_formats(doc.read_text(encoding="utf-8"))
    blocks = re.findall(r"<pre><code[^>]*>(.*?)</code></pre>", page, re.S)
    prose = re.sub(r"<pre>.*?</pre>", "", page, flags=re.S)
    return {
        "headings": re.findall(r"<h(\d) id=\"([^\"]+)\"", page),
        "code blocks": [html.unescape(block) for block in blocks],
        "table rows": [
            table.count("<tr>") for table in re.findall(r"<table>.*?</table>", page, re.S)
        ],
        "inline code": set(
            " ".join(html.unescape(code).split())
            for code in re.findall(r"<code>(.*?)</code>", prose, re.S)
        ),
    }


def test_the_chinese_text_has_every_heading_code_block_and_table_row_of_the_english():
    english, chinese = parts(FORMATS_DOC), parts(CHINESE)
    for name in ("headings", "code blocks", "table rows"):
        assert chinese[name] == english[name], name
    ids = [anchor for _, anchor in english["headings"]]  # type: ignore[attr-defined]
    assert "query-log" in ids and "corpus-chunks-or-whole-documents" in ids
    # Every name the English writes as code is in the Chinese as code (the Chinese may set a
    # few more in code: `null`, `docno`, the file names of other documents).
    missing = english["inline code"] - chinese["inline code"]  # type: ignore[operator]
    assert not missing, missing


def test_every_heading_of_the_chinese_text_is_in_chinese():
    headings = re.findall(r"^#+ (.*?) \{#[a-z0-9_-]+\}$", CHINESE.read_text(encoding="utf-8"), re.M)
    assert len(headings) == len(parts(FORMATS_DOC)["headings"])  # type: ignore[arg-type]
    for heading in headings:
        latin = heading.startswith(("TREC", "JSONL"))  # "TREC qrels" is written so in Chinese
        assert re.search("[\u4e00-\u9fff]", heading) or latin, heading


def test_a_language_without_its_own_text_reads_the_english():
    assert formats_doc_path("zh-hans") == (CHINESE, "zh-hans")
    assert formats_doc_path("en") == (FORMATS_DOC, "en")
    assert formats_doc_path("fr") == (FORMATS_DOC, "en")
    assert formats_doc_path(None) == (FORMATS_DOC, "en")


@pytest.mark.parametrize(
    ("accept", "lang", "words"),
    [("zh-CN,zh;q=0.9", "zh-hans", "查询日志"), ("en-US,en;q=0.9", "en", "Query log")],
)
def test_the_page_is_in_the_readers_language_with_the_same_anchors(personas, accept, lang, words):
    client = Client(HTTP_ACCEPT_LANGUAGE=accept)
    client.force_login(personas.alice)
    page = client.get("/docs/formats/").content.decode()
    assert f'<article class="card doc" id="formats-doc" lang="{lang}">' in page
    assert f'<h3 id="query-log">{words}</h3>' in page
    for anchor in ("corpus-chunks-or-whole-documents", "what-an-error-looks-like", "trec-run"):
        assert f'id="{anchor}"' in page
    assert "退款多久到账？" in page and "<table>" in page
