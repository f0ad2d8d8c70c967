"""docs/formats.md as a page, so that the import forms can link to what a corpus or query-log
file holds (the same file a reader of the repository reads; no second copy to drift). A reader
whose language has its own text (docs/formats.zh-hans.md) gets that one; both give every
heading the same id, so a link to #query-log lands on the same section in either."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import markdown as markdown_lib
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.utils import translation
from django.utils.safestring import SafeString, mark_safe

DOCS = Path(settings.BASE_DIR) / "docs"
FORMATS_DOC = DOCS / "formats.md"
# "toc" gives every heading the id the forms link to (#query-log,
# #corpus-chunks-or-whole-documents); a translated heading carries the English one's id
# written out ({#query-log}, read by "attr_list"), as Chinese words make no slug.
EXTENSIONS = ["tables", "fenced_code", "toc", "attr_list"]


def formats_doc_path(language: str | None) -> tuple[Path, str]:
    """The formats reference in `language` when it has been translated, else the English one;
    with the language the text is in."""
    if language and language != "en":
        translated = DOCS / f"formats.{language}.md"
        if translated.exists():
            return translated, language
    return FORMATS_DOC, "en"


def render_formats(text: str) -> str:
    return markdown_lib.markdown(text, extensions=EXTENSIONS)


@lru_cache(maxsize=4)
def _rendered(doc: Path, mtime_ns: int) -> SafeString:
    # The repository's own document, not user input: rendered as written.
    return mark_safe(render_formats(doc.read_text(encoding="utf-8")))


@login_required
def formats_doc(request: HttpRequest) -> HttpResponse:
    doc, language = formats_doc_path(translation.get_language())
    html = _rendered(doc, doc.stat().st_mtime_ns)
    return render(request, "annotation/formats_doc.html", {"html": html, "doc_language": language})


urlpatterns = [path("docs/formats/", formats_doc, name="docs-formats")]
