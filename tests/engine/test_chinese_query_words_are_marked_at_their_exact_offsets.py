"""Query-term highlighting of a Chinese project marks a query's words at their exact character
offsets in the original chunk, whatever stands before them (full-width forms, traditional
characters, characters outside the BMP) and in whatever form the chunk writes them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith.intake.tokenizers import get_tokenizer, search_fold


def marks(segments):
    """(start, end, piece) of each marked segment, offsets counted in the original text."""
    out, at = [], 0
    for piece, marked in segments:
        if marked:
            out.append((at, at + len(piece), piece))
        at += len(piece)
    return out


@pytest.mark.parametrize("name", ["zh-words", "zh-bigrams"])
def test_a_query_word_is_marked_where_the_chunk_writes_it(name):
    chunk = "𠀀ＡＰＩ文檔：請在訂單頁申請發票，iPhone15 發票在 7 天內開具。"
    tokenizer = get_tokenizer(name)
    found = marks(tokenizer.highlight(chunk, tokenizer.query_terms("请问发票 iphone15")))
    first = chunk.index("發票")
    assert (first, first + 2, "發票") in found
    second = chunk.index("發票", first + 1)
    assert (second, second + 2, "發票") in found
    start = chunk.index("iPhone15")
    assert (start, start + 8, "iPhone15") in found
    for begin, end, piece in found:
        assert chunk[begin:end] == piece


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from(list("退款期限發票开具申请的ＡＰＩapi 1５，。𠀀")), max_size=40
    ),
    query=st.text(alphabet=st.sampled_from(list("退款期限发票开具申请ＡＰＩapi 15")), max_size=8),
    name=st.sampled_from(["zh-words", "zh-bigrams"]),
)
def test_every_mark_is_a_query_word_at_its_place(text, query, name):
    tokenizer = get_tokenizer(name)
    terms = tokenizer.query_terms(query)
    segments = tokenizer.highlight(text, terms)
    assert "".join(piece for piece, _ in segments) == text
    folded_terms = [search_fold(t) for t in terms]
    for begin, end, piece in marks(segments):
        assert text[begin:end] == piece
        assert any(t in search_fold(piece) for t in folded_terms), (piece, terms)
