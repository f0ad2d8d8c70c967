"""docs/formats.md says what a corpus file and a query-log file hold, with examples in English
and Chinese; every example there reads through the importers' own readers, the errors it quotes
are the readers' words, and both import forms link to it, served as a page (issue 23)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.utils import translation

from goldsmith.intake.readers import ReadError, read_corpus, read_querylog
from sitewide.i18n import localize

DOC = Path(__file__).resolve().parents[2] / "docs" / "formats.md"


def section() -> str:
    text = DOC.read_text(encoding="utf-8")
    return text.split("## Corpus files and query-log files")[1].split("\n## ")[0]


def examples(part: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced example under the heading `part`."""
    body = section().split(f"### {part}")[1].split("\n### ")[0]
    return re.findall(r"```(json|csv)\n(.*?)```", body, re.S)


@pytest.mark.parametrize("part", ["Corpus: chunks or whole documents", "Query log"])
def test_every_example_reads_and_holds_english_and_chinese(part):
    found = examples(part)
    assert {language for language, _ in found} == {"json", "csv"}
    read = read_corpus if part.startswith("Corpus") else read_querylog
    texts: list[str] = []
    for language, body in found:
        name = "example.jsonl" if language == "json" else "example.csv"
        records = list(read(io.BytesIO(body.encode()), name))
        assert len(records) >= 2, body
        texts += [getattr(r, "text", None) or getattr(r, "query", "") for r in records]
    assert any(re.search("[\u4e00-\u9fff]", t) for t in texts)
    assert any(re.fullmatch(r"[\x00-\x7f]+", t) for t in texts)


def test_the_quoted_errors_are_the_readers_words_in_both_languages():
    rows = re.findall(r"^\| [^|]+ \| `([^`]+)` \| `([^`]+)` \|$", section(), re.M)
    cases = {
        "chunks.csv:7: missing field 'doc_id'": (
            "chunks.csv",
            "id,doc_id,text\n" + "".join(f"c{i},d,x\n" for i in range(5)) + "c9,,x\n",
        ),
        "chunks.jsonl:2: duplicate chunk id 'faq-1#0'": (
            "chunks.jsonl",
            '{"id": "faq-1#0", "doc_id": "d", "text": "x"}\n' * 2,
        ),
        "log.csv:3: field 'timestamp' is not a date: 'yesterday'": (
            "log.csv",
            "query,timestamp\n退款多久到账,2026-11-02T09:15:00+08:00\n查物流,yesterday\n",
        ),
    }
    quoted = dict(rows)
    for english, (name, content) in cases.items():
        assert english in quoted, english
        reader = read_corpus if name.startswith("chunks") else read_querylog
        with pytest.raises(ReadError) as failed:
            list(reader(io.BytesIO(content.encode()), name))
        assert str(failed.value) == english
        with translation.override("zh-hans"):
            assert localize(failed.value) == quoted[english]


def test_both_import_forms_link_to_the_formats_page(personas, client):
    client.force_login(personas.alice)
    project = personas.project
    for url, anchor in (
        (f"/projects/{project.pk}/corpus/", "#corpus-chunks-or-whole-documents"),
        (f"/projects/{project.pk}/querylogs/", "#query-log"),
    ):
        page = client.get(url).content.decode()
        assert f'href="/docs/formats/{anchor}"' in page, url
    doc = client.get("/docs/formats/").content.decode()
    for anchor in ("corpus-chunks-or-whole-documents", "query-log", "what-an-error-looks-like"):
        assert f'id="{anchor}"' in doc
    assert "退款多久到账？" in doc and "<table>" in doc
