"""De-duplication of Chinese queries: the exact key folds full-width forms, Chinese punctuation
and traditional characters; near-duplicate grouping compares Chinese words (or bigrams), not a
whole sentence as one token, so "怎么退款" / "如何退款？" / "怎麼退款" group together and
"退款期限" / "退货期限" do not. Its TF-IDF vectors are scikit-learn's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith.intake.normalize import (
    _features,
    _units,
    feature_tfidf,
    near_duplicate_groups,
    normalize_query,
)
from goldsmith.intake.tokenizers import get_tokenizer


def test_the_exact_key_folds_chinese_forms_only_when_asked():
    assert normalize_query("怎麼退款。", chinese=True) == normalize_query("怎么退款.", chinese=True)
    assert normalize_query("怎么 退款？", chinese=True) == "怎么退款?"
    assert normalize_query("《三体》ＰＤＦ下载", chinese=True) == '"三体"pdf下载'
    assert normalize_query("iPhone 15 怎麼退貨", chinese=True) == "iphone 15 怎么退货"
    # Without it, today's key: NFKC, case-folded, whitespace collapsed.
    assert normalize_query("怎麼 退款。") == "怎麼 退款。"
    assert normalize_query("  Ｐython\tDocs ", chinese=True) == "python docs"


@pytest.mark.parametrize("tokenizer", ["zh-words", "zh-bigrams"])
def test_paraphrases_group_and_different_questions_do_not(tokenizer):
    texts = ["怎么退款", "如何退款？", "怎麼退款", "退款期限", "退货期限", "为什么退款失败"]
    groups = near_duplicate_groups(texts, threshold=0.85, tokenizer=tokenizer)
    assert groups[:3] == [0, 0, 0]
    assert groups[3] == 3 and groups[4] == 4 and groups[5] == 5


@pytest.mark.parametrize("tokenizer", ["zh-words", "zh-bigrams"])
def test_mixed_queries_group_by_their_english_words_too(tokenizer):
    texts = ["iPhone 15 怎么退货", "iphone15 如何退货", "iPhone 15 怎么退货？", "AirPods 怎么退货"]
    groups = near_duplicate_groups(texts, threshold=0.85, tokenizer=tokenizer)
    assert groups[0] == groups[2] == 0
    assert groups[3] == 3


def test_the_default_tokenizer_groups_as_before():
    texts = ["how do i parse json", "how do i parse json?", "how to parse json", "asyncio gather"]
    assert near_duplicate_groups(texts, threshold=0.6) == [0, 0, 0, 3]
    # A Chinese sentence is one token to it: the paraphrase is missed.
    assert near_duplicate_groups(["怎么退款", "如何退款？"], threshold=0.85) == [0, 1]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.text(alphabet=st.sampled_from(list("退款期限怎么如何的吗ab Z9-?，。")), max_size=14),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from(["zh-words", "zh-bigrams"]),
)
def test_the_chinese_vectors_are_scikit_learns(texts, tokenizer):
    """What TfidfVectorizer(analyzer=<the Chinese features>, sublinear_tf=True) gives."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    split = get_tokenizer(tokenizer).tokens

    def analyzer(text: str) -> list[str]:
        return _features(_units(split(text)))

    ours = feature_tfidf([analyzer(t) for t in texts])
    try:
        theirs = TfidfVectorizer(analyzer=analyzer, sublinear_tf=True).fit_transform(texts)
    except ValueError:  # scikit-learn refuses texts without any feature
        assert ours.nnz == 0
        return
    assert ours.nnz == theirs.nnz
    assert np.allclose((ours @ ours.T).toarray(), (theirs @ theirs.T).toarray(), atol=1e-6)
