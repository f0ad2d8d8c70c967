"""Tokenizers: Chinese is cut into words (jieba) or bigrams, mixed Chinese–English text keeps
English words, product names, identifiers and numbers whole, offsets always point at the
original text, and the default tokenizer does what highlighting did before."""

from __future__ import annotations

import subprocess
import sys
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith.intake.tokenizers import (
    TOKENIZERS,
    detect_language,
    get_tokenizer,
    is_han_token,
    to_simplified,
)

MIXED = (
    "我用iPhone15买的AirPods Pro怎么退货？调用get_user_id()返回None，gpt-4o和node.js、C++、C#、3.14"
)


def test_chinese_is_cut_into_words_and_english_stays_whole():
    words = get_tokenizer("zh-words").tokens(MIXED)
    assert words[:8] == ["我", "用", "iphone15", "买", "的", "airpods", "pro", "怎么"]
    for whole in ("退货", "调用", "get_user_id", "返回", "none", "gpt-4o", "node.js", "c++", "c#"):
        assert whole in words
    assert "3.14" in words


def test_bigrams_pair_the_characters_of_a_chinese_run():
    bigrams = get_tokenizer("zh-bigrams").tokens("退款期限是多久 iPhone15")
    assert bigrams == ["退款", "款期", "期限", "限是", "是多", "多久", "iphone15"]
    # Interrogatives, fillers and a final particle are cut out whole; a lone character stays.
    assert get_tokenizer("zh-bigrams").tokens("请问如何退款吗") == ["请问", "如何", "退款", "吗"]
    assert get_tokenizer("zh-bigrams").tokens("买 iPhone") == ["买", "iphone"]


def test_full_width_forms_and_traditional_characters_are_normalised():
    for name in ("zh-words", "zh-bigrams"):
        tokenizer = get_tokenizer(name)
        assert tokenizer.tokens("ＡＢＣ１２３") == ["abc123"]
        assert tokenizer.tokens("怎麼退款") == tokenizer.tokens("怎么退款")
    assert to_simplified("電腦軟體怎麼退貨") == "电脑软体怎么退货"
    assert to_simplified("plain ascii") == "plain ascii"


def test_terms_drop_stop_words_and_fold_interrogatives():
    words = get_tokenizer("zh-words")
    assert words.terms("如何退款") == words.terms("怎么退款") == ["怎么", "退款"]
    assert words.terms("请问我的订单在哪儿") == ["订单", "哪里"]
    assert words.terms("为什么不能退款") == ["为什么", "不能", "退款"]  # negation kept
    assert words.terms("How do I return the iPhone") == ["return", "iphone"]
    # Highlighting leaves interrogatives out.
    assert words.query_terms("如何退款？退款期限多久") == ["退款", "期限", "多久"]


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(
        alphabet=st.sampled_from(list("退款期限怎麼如何的是abZ9_.-+# ，。！？\nＡ１㐀𠀀ｶ")),
        max_size=60,
    ),
    name=st.sampled_from(["zh-words", "zh-bigrams", "default"]),
)
def test_every_token_points_at_its_place_in_the_original_text(text, name):
    tokens = get_tokenizer(name).tokenize(text)
    assert [t.text for t in tokens] == get_tokenizer(name).tokens(text)
    for token in tokens:
        piece = text[token.start : token.end]
        assert piece
        if is_han_token(token.text) and name != "default":
            assert len(token.text) == len(piece)  # folded to simplified, same length
        else:
            normal = piece if name == "default" else unicodedata.normalize("NFKC", piece)
            assert token.text == normal.lower()


def test_highlighting_finds_chinese_words_inside_chinese_text():
    chunk = "退款期限是七天，請在期限內申請退款。iPhone15可以退，iPhone150不行"
    for name in ("zh-words", "zh-bigrams"):
        tokenizer = get_tokenizer(name)
        segments = tokenizer.highlight(chunk, tokenizer.query_terms("退款期限 iphone15"))
        assert "".join(piece for piece, _ in segments) == chunk
        marked = [piece for piece, is_term in segments if is_term]
        assert marked[0] == "退款期限" and "期限" in marked and "退款" in marked
        assert "iPhone15" in marked and "iPhone150" not in "".join(marked)


def test_the_default_tokenizer_highlights_as_the_annotation_page_always_did():
    default = get_tokenizer("default")
    assert default.query_terms("How do I parse JSON in Python?") == ["parse", "json", "python"]
    assert default.query_terms("the a of") == []
    assert default.query_terms("parse_json() fails") == ["parse_json", "fails"]
    text = "Parsing JSON with python's json module: json.loads parses a str."
    assert default.highlight(text, ["parse", "json", "python"]) == [
        ("Parsing ", False),
        ("JSON", True),
        (" with ", False),
        ("python", True),
        ("'s ", False),
        ("json", True),
        (" module: ", False),
        ("json", True),
        (".loads parses a str.", False),
    ]
    assert default.highlight("A naïve CAFÉ", ["naïve", "café"]) == [
        ("A ", False),
        ("naïve", True),
        (" ", False),
        ("CAFÉ", True),
    ]
    assert default.highlight("anything", []) == [("anything", False)]
    assert default.highlight("", ["x"]) == []
    # Today's behaviour, kept: a Chinese sentence is one token, found only whole.
    assert default.query_terms("退款期限") == ["退款期限"]
    assert default.highlight("退款期限是七天", ["退款期限"]) == [("退款期限是七天", False)]


def test_a_mostly_chinese_sample_is_detected():
    assert detect_language(["怎么退款", "iPhone 15 如何退货", "how to return", "退款期限"]) == "zh"
    assert detect_language(["我用iPhone15买的AirPods Pro怎么退货"]) == "zh"
    assert detect_language(["how to parse json", "pip install 失败", "numpy to list"]) == "other"
    assert detect_language(["東京で寿司を食べたいです"]) == "other"  # Japanese
    assert detect_language(["", "123", "???"]) == "other"


def test_an_unknown_tokenizer_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="default, zh-words, zh-bigrams"):
        get_tokenizer("zh-hanzi")
    assert TOKENIZERS == ("default", "zh-words", "zh-bigrams")
    # the character-level baseline of bench/zh_retrieval_bench.py, not offered to projects
    assert get_tokenizer("zh-chars").tokens("退款 iPhone15") == ["退", "款", "iphone15"]


def test_jieba_and_opencc_load_on_first_use_and_silently():
    code = (
        "import sys\n"
        "import goldsmith.cli, goldsmith.intake.normalize, goldsmith.intake.pii\n"
        "import goldsmith.intake.sampling, goldsmith.retrievers.builtin\n"
        "from goldsmith.intake.pii import scrub\n"
        "scrub('我的手机13812345678')\n"
        "assert 'jieba' not in sys.modules and 'opencc' not in sys.modules, 'loaded early'\n"
        "from goldsmith.intake.tokenizers import get_tokenizer\n"
        "print(get_tokenizer('zh-words').tokens('怎麼退款'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['怎么', '退款']"
    assert done.stderr == ""  # jieba's "Building prefix dict…" lines are silenced
