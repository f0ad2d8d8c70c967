"""What our JavaScript shows that does not go through the JavaScript catalog
(tests/config/test_every_page_is_translated.py).

A string literal with letters in it, written where a person reads it — assigned to
textContent, innerText, innerHTML, title, placeholder, value or an aria label, passed to
alert/confirm/prompt, to setAttribute for a visible attribute, or to one of our own helpers that
show a message — must be the message of a gettext/ngettext/pgettext call. Literals anywhere else
(CSS classes, URLs, keys, states) are code, not words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# `x.textContent = …;` `alert(…)` `el.setAttribute("title", …)` `showSync(…)`: the expression
# shown, up to the end of the statement.
SHOWN = re.compile(
    r"""\.(?:textContent|innerText|innerHTML|title|placeholder|value|ariaLabel)\s*=(?!=)\s*"""
    r"""(?P<a>.*?);[ \t]*$"""
    r"""|\b(?:alert|confirm|prompt|showSync)\((?P<b>.*?)\);[ \t]*$"""
    r"""|\.setAttribute\(\s*["'](?:title|placeholder|aria-label|alt)["']\s*,(?P<c>.*?)\);[ \t]*$"""
    r"""|\bmarkEntry\([^;]*?,\s*["']error["']\s*,\s*null\s*,(?P<d>.*?)\);[ \t]*$""",
    re.DOTALL | re.MULTILINE,
)
LITERAL = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`""")
MARKED = re.compile(r"\b(?:n?gettext|pgettext|npgettext)\(\s*$")
MARKED_PLURAL = re.compile(
    r"\b(?:ngettext|npgettext)\((?:\s*[\"'][^\"']*[\"']\s*,)+\s*$", re.DOTALL
)


@dataclass(frozen=True)
class Unmarked:
    path: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


def _words(literal: str) -> bool:
    body = re.sub(r"\$\{[^}]*\}", " ", literal[1:-1])
    return re.search(r"[A-Za-z]{2,}", body) is not None


def unmarked(path: Path, root: Path) -> list[Unmarked]:
    source = path.read_text(encoding="utf-8")
    # Comments are not shown: blank them, keeping the line numbers.
    code = re.sub(
        r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), source, flags=re.DOTALL
    )
    code = re.sub(r"(?m)(^|[^:\"'])//.*$", lambda m: m.group(1), code)
    found = []
    for statement in SHOWN.finditer(code):
        group = next(name for name in "abcd" if statement.group(name) is not None)
        start = statement.start(group)
        expression = statement.group(group)
        for literal in LITERAL.finditer(expression):
            before = expression[: literal.start()]
            if MARKED.search(before) or MARKED_PLURAL.search(before):
                continue
            after = expression[literal.end() :]
            if re.search(r"[=!]==?\s*$", before) or re.match(r"\s*[=!]==?", after):
                continue  # compared, not shown
            if _words(literal.group(0)):
                line = code.count("\n", 0, start + literal.start()) + 1
                found.append(Unmarked(str(path.relative_to(root)), line, literal.group(0)))
    return found


def scripts(root: Path) -> list[Path]:
    return sorted((root / "static" / "js").rglob("*.js"))
