"""A query typed in Taiwan's or Hong Kong's script and words shares its de-duplication key with
the same question typed on the mainland, and two different questions never share one.

The pairs (tests/data/zh_variants/pairs.tsv) were written for these tests: 60 "same" pairs from
customer service and IT support (accounts, refunds, software, devices, invoices) and 12 "apart"
pairs that differ by one word. Three "same" pairs are words OpenCC's dictionaries do not know
(逾時/超时, 當掉/崩溃, 保固/保修): the key does not guess them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from goldsmith.intake.normalize import display_text, normalize_query
from goldsmith.intake.tokenizers import fold_variants

PAIRS = Path(__file__).parent.parent / "data" / "zh_variants" / "pairs.tsv"
UNKNOWN_TO_OPENCC = {"資料庫連線逾時", "程式當掉了", "保固期多久"}


def pairs(expect: str) -> list[tuple[str, str]]:
    rows = [
        line.split("\t")
        for line in PAIRS.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    return [(typed, mainland) for kind, typed, mainland in rows if kind == expect]


def key(text: str) -> str:
    return normalize_query(text, chinese=True)


def test_the_list_is_long_enough_to_measure():
    assert len(pairs("same")) >= 50
    assert len(pairs("apart")) >= 10


@pytest.mark.parametrize(("typed", "mainland"), pairs("same"))
def test_the_same_question_in_either_script_is_one_query(typed, mainland):
    if typed in UNKNOWN_TO_OPENCC:
        assert key(typed) != key(mainland)  # stated in the docs; a dictionary change shows here
    else:
        assert key(typed) == key(mainland)


@pytest.mark.parametrize(("one", "other"), pairs("apart"))
def test_different_questions_stay_apart(one, other):
    assert key(one) != key(other)


def test_zhang_is_an_account_but_in_the_curtain_words():
    assert fold_variants("退款多久到帳") == "退款多久到账"
    assert fold_variants("帐户") == "账户"
    assert fold_variants("蚊帳") == "蚊帐"
    assert fold_variants("搭帳篷") == "搭帐篷"


def test_words_fold_whichever_way_they_were_typed():
    assert fold_variants("軟體") == fold_variants("软体") == fold_variants("软件") == "软件"
    assert fold_variants("線上") == fold_variants("线上") == fold_variants("在线") == "在线"
    assert fold_variants("plain English") == "plain English"


def test_the_stored_text_keeps_full_width_punctuation_and_the_script_typed():
    assert display_text("請問，退款多久到帳？  （急）") == "請問，退款多久到帳？ （急）"
    assert display_text("ＩＰＨＯＮＥ１５") == "IPHONE15"
    assert key("請問，退款多久到帳？") == key("请问,退款多久到账?")
