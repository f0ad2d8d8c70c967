"""docs/formats.md as a page, so that the import forms can link to what a corpus or query-log
file holds (the same file a reader of the repository reads; no second copy to drift)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import markdown as markdown_lib
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.utils.safestring import SafeString, mark_safe

FORMATS_DOC = Path(settings.BASE_DIR) / "docs" / "formats.md"


@lru_cache(maxsize=2)
def _rendered(mtime_ns: int) -> SafeString:
    # The repository's own document, not user input: rendered as written. "toc" gives every
    # heading the id the forms link to (#query-log, #corpus-chunks-or-whole-documents).
    text = FORMATS_DOC.read_text(encoding="utf-8")
    html = markdown_lib.markdown(text, extensions=["tables", "fenced_code", "toc"])
    return mark_safe(html)


@login_required
def formats_doc(request: HttpRequest) -> HttpResponse:
    html = _rendered(FORMATS_DOC.stat().st_mtime_ns)
    return render(request, "annotation/formats_doc.html", {"html": html})


urlpatterns = [path("docs/formats/", formats_doc, name="docs-formats")]
