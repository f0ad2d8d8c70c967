"""Pages run and style themselves from our own static files only, under a Content-Security-
Policy that allows nothing else (config/csp.py, settings.SECURE_CSP): no <script> with code,
no on* handler attribute, no javascript: URL, no <style> block and no style attribute in any
template or in the HTML our code builds (the SVG plots), so an injection that slipped past
escaping could not run. The browser side:
tests/e2e/test_pages_work_under_the_content_security_policy.py.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from tests.conftest import PASSWORD, REPO

SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.I | re.S)
TAG = re.compile(r"<[a-zA-Z][^<>]*>")
HANDLER = re.compile(r"""[\s"'/]on[a-z]+\s*=""", re.I)
JS_URL = re.compile(r"javascript\s*:", re.I)
STYLE_ELEMENT = re.compile(r"<style\b", re.I)
STYLE_ATTRIBUTE = re.compile(r"""[\s"'/]style\s*=""", re.I)
DATA_BLOCK = re.compile(r"""\btype\s*=\s*["']?application/(ld\+)?json""", re.I)


def inline_code(html: str) -> list[str]:
    """What a strict policy refuses in `html`, each named with a little of its text."""
    found = []
    for match in SCRIPT.finditer(html):
        attrs, code = match.group(1), match.group(2)
        if DATA_BLOCK.search(attrs):
            continue  # a JSON data block is never run
        if "src" not in attrs.lower() or code.strip():
            found.append(f"inline <script>: {match.group(0)[:80]!r}")
    for tag in TAG.finditer(html):
        text = tag.group(0)
        if HANDLER.search(text):
            found.append(f"event handler attribute: {text[:80]!r}")
        if STYLE_ATTRIBUTE.search(text):
            found.append(f"style attribute: {text[:80]!r}")
    found += [
        f"javascript: URL near {html[m.start() - 20 : m.end() + 20]!r}"
        for m in JS_URL.finditer(html)
    ]
    found += [
        f"<style> block near {html[m.start() : m.end() + 40]!r}"
        for m in STYLE_ELEMENT.finditer(html)
    ]
    return found


def templates() -> list[Path]:
    folders = [Path(d) for t in settings.TEMPLATES for d in t["DIRS"]]
    folders += [REPO / app / "templates" for app in ("annotation", "evaluation", "config")]
    return sorted(p for folder in folders if folder.exists() for p in folder.rglob("*.html"))


def html_strings_in_code() -> list[tuple[Path, int, str]]:
    """String literals of our Python code that may hold markup; an f-string is read whole,
    with {} for each value put in (the plots build their SVG that way)."""
    found = []
    for folder in ("goldsmith", "sitewide", "annotation", "evaluation", "config"):
        for path in sorted((REPO / folder).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            parts = {
                id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values
            }
            for node in ast.walk(tree):
                if isinstance(node, ast.JoinedStr):
                    text = "".join(
                        v.value if isinstance(v, ast.Constant) else "{}" for v in node.values
                    )
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    if id(node) in parts:
                        continue
                    text = node.value
                else:
                    continue
                if "<" in text:
                    found.append((path, node.lineno, text))
    return found


def test_the_scan_finds_each_kind_of_inline_code():
    assert inline_code('<script src="/static/js/a.js"></script>') == []
    assert inline_code('<script type="application/json" id="x">{"a": 1}</script>') == []
    assert inline_code("<p>on=1 style is a word; javascript is a language</p>") == []
    for bad in (
        "<script>alert(1)</script>",
        '<script src="/a.js">alert(1)</script>',
        '<form id="f" onsubmit="return false">',
        "<input type=checkbox onclick='go()'>",
        '<a href="javascript:void(0)">',
        "<style>p { color: red }</style>",
        '<span style="width: 40%"></span>',
        '<svg class="plot" style="max-width:238px">',
    ):
        assert len(inline_code(bad)) == 1, bad


def test_every_template_is_free_of_inline_script_and_style():
    found = [
        f"{p.relative_to(REPO)}: {what}" for p in templates() for what in inline_code(p.read_text())
    ]
    assert templates(), "no template found"
    assert not found, "\n".join(found)


def test_the_html_our_code_builds_is_free_of_inline_script_and_style():
    found = [
        f"{path.relative_to(REPO)}:{line}: {what}"
        for path, line, text in html_strings_in_code()
        for what in inline_code(text)
    ]
    assert not found, "\n".join(found)


def test_the_policy_allows_only_our_own_files():
    header = Client().get("/login/")["Content-Security-Policy"]
    directives = dict(
        (d.split()[0], d.split()[1:]) for d in (part.strip() for part in header.split(";")) if d
    )
    assert directives["default-src"] == ["'self'"]
    assert directives["script-src"] == ["'self'"]
    assert directives["style-src"] == ["'self'"]
    assert directives["object-src"] == ["'none'"]
    assert directives["base-uri"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["form-action"] == ["'self'"]
    assert "unsafe" not in header and "*" not in header


def test_djangos_technical_error_pages_go_without_it_when_debugging(settings, client):
    """With DEBUG on, a 404 is Django's own page for the developer, inline style included."""
    settings.DEBUG = True
    response = client.get("/no-such-page/")
    assert response.status_code == 404 and "Content-Security-Policy" not in response
    settings.DEBUG = False
    assert "Content-Security-Policy" in client.get("/no-such-page/")


@pytest.mark.parametrize(
    "path",
    ["/login/", "/", "/projects/{p}/", "/projects/{p}/dashboard/", "/api/docs/", "/no-such-page/"],
)
def test_every_page_carries_the_policy_and_no_inline_code(personas, path):
    client = Client()
    assert client.login(username="alice", password=PASSWORD)
    response = client.get(path.format(p=personas.project.pk))
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert not inline_code(response.content.decode()), inline_code(response.content.decode())
