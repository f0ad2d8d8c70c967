"""The de-duplication key's variant fold (`fold_variants`) keeps what a mainland user typed: no
word of jieba's dictionary in simplified characters is rewritten into another (the round trip
through Taiwan's words it replaced rewrote 68 of the 20,000 most frequent: 查询 → 查找, 接口 →
界面), but for 帐, the account 账. The same words typed in traditional characters (OpenCC's
s2t, s2hk, s2tw) fold back to themselves wherever a conversion of characters alone brings them
back, but for the Taiwan and Hong Kong words read as mainland ones (軟體 → 软件), and for a text
that OpenCC's t2s leaves as it is (Taiwan's 接著 is also simplified text: it is kept). The
table of those words is built from the installed OpenCC's, and rebuilt when it was built from
another.
"""

from __future__ import annotations

from functools import cache

import opencc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import zh_variant_fold_bench as bench
from goldsmith.intake import regional_words
from goldsmith.intake.tokenizers import _account_zhang, fold_variants

t2s = opencc.OpenCC("t2s").convert


@cache
def simplified(top: int | None) -> list[str]:
    return bench.simplified_words(top)


def test_no_simplified_word_of_jiebas_dictionary_is_rewritten():
    words = simplified(None)
    assert len(words) > 340_000
    changed = [w for w in words if fold_variants(w) != _account_zhang(w)]
    assert changed == []


# Deferred: jieba's dictionary is read when the test runs, not when the suite is collected.
WORDS = st.deferred(lambda: st.lists(st.sampled_from(simplified(20_000)), min_size=1, max_size=6))


@given(WORDS, st.booleans())
@settings(max_examples=300, deadline=None)
def test_a_simplified_sentence_is_kept_as_typed(words, spaced):
    text = (" " if spaced else "").join(words)
    assert fold_variants(text) == _account_zhang(text)


@pytest.mark.parametrize("convert", ["s2t", "s2hk", "s2tw"])
def test_common_words_typed_in_traditional_fold_back_as_a_character_conversion_does(convert):
    to_traditional = opencc.OpenCC(convert).convert
    by_characters = bench.characters_only()
    regional = bench.regional_words()[0]
    for word in simplified(20_000):
        typed = to_traditional(word)
        if t2s(typed) == typed or by_characters(typed) != _account_zhang(word):
            # Not traditional (Taiwan's 接著 is also simplified text, kept as typed), or
            # OpenCC's own conversion misses it (想像, 專著).
            continue
        if fold_variants(typed) != _account_zhang(word):
            # Only a regional word may read it otherwise (Taiwan's 網路 is the mainland 网络).
            assert any(key in bench.variant_steps(typed) for key in regional), (word, typed)


def test_the_table_is_built_from_the_installed_opencc_and_rebuilt_when_stale(tmp_path):
    kept, left = regional_words.regional_words()
    rows = regional_words.load()
    assert {typed: rows.get(typed) for typed in kept} == kept
    assert all(rows[typed] == t2s(typed) for typed, (_, why) in left.items() if len(typed) > 1)
    assert fold_variants("軟體") == "软件" and "軟體" in kept
    assert fold_variants("查詢") == "查询" and "查詢" in left
    # A table built from another OpenCC (or cut short) is built again, whole.
    stale = tmp_path / "table.tsv"
    stale.write_text("# OpenCC 0.0: built by goldsmith.intake.regional_words\n軟體\t软体\n")
    assert regional_words.load(stale) == rows
    assert regional_words.load(stale) == rows
    assert stale.read_text("utf-8").count("\n") == len(rows) + 1
