"""Chunking Chinese documents: a long paragraph is cut after a sentence end (。！？；), the
overlap starts after a sentence end or pause, and offsets stay exact in characters for mixed
Chinese and English text."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith.intake.chunking import chunk_text

SENTENCES = [
    "退款政策说明如下。",
    "我们支持七天无理由退货，请在收到商品后七天内申请！",
    "iPhone 15 的保修期是多久？",
    "如需帮助，请联系客服；",
    "“订单已发货。”",
]


def test_a_chinese_paragraph_is_cut_after_a_sentence_end():
    text = "".join(SENTENCES * 6)
    chunks = chunk_text(text, max_chars=80, overlap=20)
    assert len(chunks) > 3
    for chunk in chunks[:-1]:
        assert chunk.text[-1] in "。！？；”", chunk.text
        assert len(chunk.text) <= 80
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
    # The next chunk starts inside the previous one, after a sentence end or a pause.
    for a, b in itertools.pairwise(chunks):
        assert b.start < a.end
        assert text[b.start - 1] in "。！？；，”"


def test_english_text_is_cut_at_spaces_as_before():
    text = " ".join(["word"] * 100)
    chunks = chunk_text(text, max_chars=52, overlap=10)
    assert [len(c.text) for c in chunks[:3]] == [49, 49, 49]
    assert all(c.text.startswith("word") and c.text.endswith("word") for c in chunks)


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from(list("退款期限是七天ab Z9 \n。！？；，、”")), max_size=3000
    ),
    size=st.integers(min_value=50, max_value=600),
    overlap=st.integers(min_value=0, max_value=24),
)
def test_offsets_always_point_at_the_chunk_text_in_mixed_documents(text, size, overlap):
    spans = chunk_text(text, max_chars=size, overlap=overlap)
    for span in spans:
        assert text[span.start : span.end] == span.text
        assert 0 < len(span.text) <= size
    covered = set()
    for span in spans:
        covered.update(range(span.start, span.end))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
