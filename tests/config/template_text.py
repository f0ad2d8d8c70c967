"""What a template shows that no translation tag covers.

Used by tests/config/test_every_page_is_translated.py.

A template is cut by Django's own lexer into text, {{ variables }}, {% tags %} and comments.
Text inside {% translate %} and {% blocktranslate %} … {% endblocktranslate %} is marked; every
other tag and variable becomes a placeholder, and the rest is read as HTML: a text node, or a
user-visible attribute (title, placeholder, aria-label, alt, a button's value), that still holds
letters is text a Chinese page would show in English. So is a string literal with letters
given to a template as visible text (`|default:"…"`, `{% include … caption="…" %}`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from django.template.base import Lexer, TokenType

MARK = "\ue000"  # stands for a tag or a variable: no letters in it
# Words that are the same in every language: names, symbols, formats, keys.
NOT_LANGUAGE = {
    "Goldsmith",
    "API",
    "AC1",
    "κ",
    "α",
    "sha256",
    "BM25",
    "TF-IDF",
    "JSONL",
    "CSV",
    "TREC",
    "BEIR",
    "nDCG",
    "MRR",
    "K",
    "k",
    "n",
    "w",
    "v",
    "Esc",
    "Recall",
    "Holm",
    "JSON",
    "F1",
    "p",
    "A",
    "B",
    "UTC",
    "Swagger",
    "en",
}
# String literals in templates that are never shown (a CSS class's default).
LITERALS_NOT_SHOWN = {
    ("templates/annotation/adjudicate.html", "open"),
    ("templates/evaluation/run_detail.html", "none"),
}
VISIBLE_ATTRIBUTES = {"title", "placeholder", "aria-label", "alt", "label"}
SKIPPED_ELEMENTS = {"script", "style", "code", "kbd", "pre"}
TEXT_LITERAL = re.compile(r"""(?:default:|\bcaption=|\blabel=|\btext=)(["'])(.*?)\1""")


@dataclass(frozen=True)
class Untranslated:
    path: str
    line: int
    where: str  # "text", "title attribute", "literal"
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.where} {self.text!r}"


def has_language(text: str) -> bool:
    words = re.findall(r"[A-Za-z][A-Za-z0-9\-]*", text.replace(MARK, " "))
    return any(word not in NOT_LANGUAGE for word in words)


class _Reader(HTMLParser):
    def __init__(self, path: str, lines: list[int]) -> None:
        super().__init__(convert_charrefs=True)
        self.path = path
        self.lines = lines  # template line of each character of the flattened text
        self.skipping: list[str] = []
        self.found: list[Untranslated] = []

    def _line(self) -> int:
        line, column = self.getpos()
        offset = sum(self._line_lengths[: line - 1]) + column
        return self.lines[min(offset, len(self.lines) - 1)] if self.lines else 1

    def feed_flat(self, flat: str) -> None:
        self._line_lengths = [len(part) for part in flat.splitlines(keepends=True)]
        self.feed(flat)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in SKIPPED_ELEMENTS:
            self.skipping.append(tag)
        values = dict(attrs)
        for name, value in attrs:
            visible = name in VISIBLE_ATTRIBUTES or (
                name == "value"
                and tag == "input"
                and values.get("type") in {"submit", "button", "reset"}
            )
            if visible and value and has_language(value):
                self.found.append(Untranslated(self.path, self._line(), f"{name} attribute", value))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in SKIPPED_ELEMENTS:
            self.skipping.pop()

    def handle_endtag(self, tag: str) -> None:
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()

    def handle_data(self, data: str) -> None:
        if not self.skipping and has_language(data):
            self.found.append(Untranslated(self.path, self._line(), "text", data.strip()))


def untranslated(path: Path, root: Path) -> list[Untranslated]:
    source = path.read_text(encoding="utf-8")
    name = str(path.relative_to(root))
    flat: list[str] = []
    lines: list[int] = []
    found: list[Untranslated] = []

    def put(text: str, line: int) -> None:
        flat.append(text)
        for char in text:
            lines.append(line)
            line += char == "\n"

    in_blocktranslate = in_comment = False
    for token in Lexer(source).tokenize():
        contents = token.contents.strip()
        if token.token_type == TokenType.BLOCK:
            tag = contents.split()[0] if contents else ""
            if in_comment:
                in_comment = tag != "endcomment"
                continue
            if tag == "comment":
                in_comment = True
                continue
            if tag in {"blocktranslate", "blocktrans"}:
                in_blocktranslate = True
            elif tag in {"endblocktranslate", "endblocktrans"}:
                in_blocktranslate = False
            elif tag not in {"translate", "trans", "plural"}:
                for match in TEXT_LITERAL.finditer(contents):
                    if (
                        has_language(match.group(2))
                        and (name, match.group(2)) not in LITERALS_NOT_SHOWN
                    ):
                        found.append(Untranslated(name, token.lineno, "literal", match.group(2)))
            put(MARK, token.lineno)
        elif in_comment or token.token_type == TokenType.COMMENT:
            continue
        elif token.token_type == TokenType.VAR:
            for match in TEXT_LITERAL.finditer(contents):
                if (
                    has_language(match.group(2))
                    and (name, match.group(2)) not in LITERALS_NOT_SHOWN
                ):
                    found.append(Untranslated(name, token.lineno, "literal", match.group(2)))
            put(MARK, token.lineno)
        elif in_blocktranslate:
            put(MARK, token.lineno)  # marked, markup and all
        else:
            put(token.contents, token.lineno)
    reader = _Reader(name, lines)
    reader.feed_flat("".join(flat))
    return found + reader.found


def templates(root: Path) -> list[Path]:
    return sorted((root / "templates").rglob("*.html"))
