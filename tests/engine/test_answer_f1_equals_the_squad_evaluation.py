"""Token F1 equals the official SQuAD v2.0 evaluation script's ``compute_f1`` on English text,
and cuts Chinese into words when the project names a Chinese tokenizer (a Chinese sentence is
not one token; under ``auto`` Chinese is CMRC 2018's: test_chinese_answers_score_as_cmrc_2018)."""

from __future__ import annotations

import collections
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith.answers.text import token_f1


# The peer, written from the published definition (SQuAD v2.0 evaluate-v2.0.py).
def normalize_answer(s):
    def remove_articles(text):
        regex = re.compile(r"\b(a|an|the)\b", re.UNICODE)
        return re.sub(regex, " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def get_tokens(s):
    if not s:
        return []
    return normalize_answer(s).split()


def compute_f1(a_gold, a_pred):
    gold_toks = get_tokens(a_gold)
    pred_toks = get_tokens(a_pred)
    common = collections.Counter(gold_toks) & collections.Counter(pred_toks)
    num_same = sum(common.values())
    if len(gold_toks) == 0 or len(pred_toks) == 0:
        return int(gold_toks == pred_toks)
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(pred_toks)
    recall = 1.0 * num_same / len(gold_toks)
    return (2 * precision * recall) / (precision + recall)


words = st.sampled_from(
    ["the", "a", "an", "The", "refund", "Refund", "7", "days", "days.", "is", "it's", "(seven)",
     "über", "naïve", "A-B", "", " ", "\t", "\n", ",", "...", "ÉTÉ", "and", "anthe"]
)  # fmt: skip
texts = st.one_of(
    st.lists(words, max_size=12).map(" ".join),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), max_codepoint=0x2FFF)),
)


@settings(max_examples=500, deadline=None)
@given(texts, texts)
def test_token_f1_equals_squads_compute_f1(prediction, reference):
    assert token_f1(prediction, reference, "squad") == pytest.approx(
        compute_f1(reference, prediction), abs=1e-12
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(words, max_size=12).map(" ".join), st.lists(words, max_size=12).map(" ".join))
def test_auto_is_squad_for_text_without_chinese(prediction, reference):
    assert token_f1(prediction, reference) == pytest.approx(
        compute_f1(reference, prediction), abs=1e-12
    )


def test_chinese_is_cut_into_words_by_the_tokenizer_the_project_names():
    # 退款/期限/为/7/天 against 退款/期限/是/7/天: 4 shared words of 5 on each side.
    assert token_f1("退款期限为7天", "退款期限是7天", "zh-words") == pytest.approx(0.8)
    assert compute_f1("退款期限是7天", "退款期限为7天") == 0  # one token each: SQuAD sees nothing
    assert (
        token_f1("退款期限为7天。", "退款期限为7天", "zh-words") == 1.0
    )  # punctuation is no token
