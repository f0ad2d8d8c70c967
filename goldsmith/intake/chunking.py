"""Chunking whole documents into passages: pure, no Django.

Paragraphs (separated by blank lines) are packed greedily into chunks of at most `max_chars`
characters. A paragraph longer than that is cut at the last whitespace before the limit.
Consecutive chunks overlap by up to `overlap` characters (the next chunk starts at a word
boundary at most `overlap` characters before the previous one ended).

Chinese has no spaces between words: a paragraph is cut after the last Chinese sentence end
before the limit (the ideographic full stop 。 and the full-width ！？； as Chinese is typed,
with ｡ and ． and the closing quotes or brackets that follow) rather than at a space, unless
that would leave less than half a chunk and a space comes later. The overlap starts after a
Chinese sentence end or pause (，、：) as well as after a space. Text without these marks is
chunked exactly as before.

Every chunk carries its character offsets, and ``text[start:end] == chunk.text`` always holds,
so that judgments can be matched by span after re-chunking.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PARAGRAPH_RE = re.compile(r"\S(?:.*?\S)?(?=\s*\n\s*\n|\s*\Z)", re.S)
# A Chinese sentence end with the closing quotes and brackets after it; a Chinese pause
# (，、：) where an overlap may start.
_SENTENCE_END_RE = re.compile("[。｡！？；．][”’」』）》〉】〕]*")
_CHINESE_MARKS = frozenset("。｡！？；．，、：")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


def _paragraphs(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _PARAGRAPH_RE.finditer(text)]


def _cut(text: str, start: int, limit: int) -> int:
    """End of a piece starting at `start`: just after the last Chinese sentence end before
    `limit` when it leaves at least half a piece, else the later of the last whitespace and
    that sentence end, else `limit`."""
    if limit >= len(text):
        return len(text)
    sentence_end = _last_sentence_end(text, start + 1, limit)
    if sentence_end > start + (limit - start) // 2:
        return sentence_end
    space = text.rfind(" ", start + 1, limit + 1)
    newline = text.rfind("\n", start + 1, limit + 1)
    cut = max(space, newline, sentence_end)
    return cut if cut > start else limit


def _last_sentence_end(text: str, lower: int, limit: int) -> int:
    """The end of the last Chinese sentence end (with its closing marks) that lies within
    ``text[lower:limit]``; -1 when there is none. Text without such marks costs one scan."""
    window = text[lower:limit]
    if window.isascii():
        return -1
    best = -1
    for match in _SENTENCE_END_RE.finditer(window):
        best = lower + match.end()
    return best


def _overlap_start(text: str, end: int, overlap: int, floor: int) -> int:
    """Where the next chunk starts: a word start at most `overlap` characters before `end`."""
    if overlap <= 0:
        return end
    lower = max(end - overlap, floor + 1)
    if lower >= end:
        return end
    space = text.find(" ", lower, end)
    window = text[lower:end]
    if not window.isascii():  # or after a Chinese sentence end or pause, whichever is first
        mark = next((lower + i for i, ch in enumerate(window) if ch in _CHINESE_MARKS), -1)
        if mark != -1 and (space == -1 or mark < space):
            space = mark
    if space == -1:
        return end
    start = space + 1
    while start < end and text[start].isspace():
        start += 1
    return start if start < end else end


def chunk_text(text: str, *, max_chars: int = 1000, overlap: int = 100) -> list[Span]:
    """Chunks of `text` (see the module docstring); an empty or blank text gives none."""
    if max_chars < 50:
        raise ValueError("max_chars must be at least 50")
    if not 0 <= overlap < max_chars // 2:
        raise ValueError("overlap must be between 0 and half of max_chars")
    spans: list[Span] = []
    paragraphs = _paragraphs(text)
    chunk_start: int | None = None
    chunk_end = 0

    def emit(start: int, end: int) -> None:
        piece = text[start:end]
        # Trim the edges so that offsets point at the first and last visible character.
        lead = len(piece) - len(piece.lstrip())
        trail = len(piece.rstrip())
        if trail > lead:
            spans.append(Span(start + lead, start + trail, text[start + lead : start + trail]))

    for p_start, p_end in paragraphs:
        if chunk_start is not None:
            if p_end - chunk_start <= max_chars:
                chunk_end = p_end
                continue
            emit(chunk_start, chunk_end)
            carried = _overlap_start(text, chunk_end, overlap, chunk_start)
            chunk_start = None
            # Carry the previous chunk's tail only when it and the new paragraph still fit.
            if p_end - carried <= max_chars:
                chunk_start, chunk_end = carried, p_end
                continue
        start = p_start
        # A paragraph longer than max_chars: cut it into pieces at whitespace.
        while p_end - start > max_chars:
            end = _cut(text, start, start + max_chars)
            emit(start, end)
            following = _overlap_start(text, end, overlap, start)
            while following < p_end and text[following].isspace():
                following += 1
            start = following if following > start else end
        chunk_start, chunk_end = start, p_end
    if chunk_start is not None:
        emit(chunk_start, chunk_end)
    return spans
