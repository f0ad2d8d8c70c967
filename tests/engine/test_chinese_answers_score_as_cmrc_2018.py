"""Chinese answer F1 and exact match equal the CMRC 2018 evaluation script's
(``cmrc2018_evaluate.py``, v5, in the ymcui/cmrc2018 repository): character-level F1 on the
longest common substring after its punctuation removal, Latin runs cut by NLTK's
``word_tokenize``, the best over several references; exact match after the punctuation removal.

The oracle below follows the script step by step, written again here (the script is Python 2
and not on PyPI). Its one departure: ``word_tokenize`` first splits a run into sentences with
NLTK's Punkt model, a data download this machine does not have, so the oracle tokenizes a run
as one line, as the engine does (docs/formats.md says so)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith.answers import text as T
from goldsmith.answers.model import AnswerKey, StagedQuery
from goldsmith.answers.scoring import score_answers

nltk = pytest.importorskip("nltk")

# The script's list, as it writes it: "……" is one entry of two characters.
SCRIPT_PUNCTUATION = [
    "-", ":", "_", "*", "^", "/", "\\", "~", "`", "+", "=",
    "，", "。", "：", "？", "！", "“", "”", "；", "’", "《", "》", "……", "·", "、",
    "「", "」", "（", "）", "－", "～", "『", "』",
]  # fmt: skip
SCRIPT_HAN = re.compile("[\u4e00-\u9fa5]")


def latin_words(run: str) -> list[str]:
    return nltk.word_tokenize(run, preserve_line=True)


def oracle_segments(text: str, drop_punctuation: bool) -> list[str]:
    """mixed_segmentation: each character in turn; punctuation skipped when asked; a Han
    character or a punctuation mark closes the pending run (tokenized) and is a segment of its
    own; anything else joins the pending run; the last run is tokenized at the end."""
    text = text.lower().strip()
    segments: list[str] = []
    pending = ""
    for char in text:
        if drop_punctuation and char in SCRIPT_PUNCTUATION:
            continue
        if SCRIPT_HAN.search(char) or char in SCRIPT_PUNCTUATION:
            if pending != "":
                segments.extend(latin_words(pending))
                pending = ""
            segments.append(char)
        else:
            pending += char
    if pending != "":
        segments.extend(latin_words(pending))
    return segments


def oracle_without_punctuation(text: str) -> str:
    """remove_punctuation: lower-cased and stripped, then every listed mark left out."""
    text = text.lower().strip()
    return "".join(char for char in text if char not in SCRIPT_PUNCTUATION)


def oracle_lcs_length(first: list[str], second: list[str]) -> int:
    """find_lcs: a full (len+1) × (len+1) table of common suffix lengths; the longest."""
    table = [[0] * (len(second) + 1) for _ in range(len(first) + 1)]
    longest = 0
    for i in range(len(first)):
        for j in range(len(second)):
            if first[i] == second[j]:
                table[i + 1][j + 1] = table[i][j] + 1
                longest = max(longest, table[i + 1][j + 1])
    return longest


def oracle_f1(answers: list[str], prediction: str) -> float:
    """calc_f1_score: per answer, 0 without a common substring, else the harmonic mean of
    its share of the prediction and of the answer; the largest."""
    scores = []
    for answer in answers:
        answer_segments = oracle_segments(answer, drop_punctuation=True)
        prediction_segments = oracle_segments(prediction, drop_punctuation=True)
        common = oracle_lcs_length(answer_segments, prediction_segments)
        if common == 0:
            scores.append(0.0)
            continue
        precision = common / len(prediction_segments)
        recall = common / len(answer_segments)
        scores.append(2 * precision * recall / (precision + recall))
    return max(scores)


def oracle_em(answers: list[str], prediction: str) -> float:
    """calc_em_score: 1 as soon as one answer equals the prediction without punctuation."""
    for answer in answers:
        if oracle_without_punctuation(answer) == oracle_without_punctuation(prediction):
            return 1.0
    return 0.0


pieces = st.sampled_from(
    ["长", "长江", "北京", "北京市", "臺灣", "台湾", "退款", "期限", "为", "是", "7", "天",
     "1420", "年", "node.js", "Node", "C++", "3.14", "iPhone", "the", "cannot", "gonna",
     "it's", "\"ok\"", "(a)", "U.S.", "e.g.", "…", "……", "．", "é", "㐀", "\u3000", " ", "  ",
     *SCRIPT_PUNCTUATION, ".", ",", "?", "!", "'", "%", "$", "&", "#", "@"]
)  # fmt: skip
texts = st.one_of(
    st.lists(pieces, max_size=10).map("".join),
    st.text(alphabet="长江北京市臺灣台湾年天 abcXYZ019.,'\"()?!-:/。，、（）《》…", max_size=14),
)


@settings(max_examples=600, deadline=None)
@given(texts, st.lists(texts, min_size=1, max_size=3))
def test_f1_and_exact_match_equal_the_script_on_chinese_pairs(prediction, answers):
    if not any(T.is_cmrc_pair(prediction, a) for a in answers):
        answers = [*answers, "北京"]  # a Chinese pair: the rule the engine uses for Chinese
    chinese = [a for a in answers if T.is_cmrc_pair(prediction, a)]
    f1, _ = T.best_over_references(T.token_f1, prediction, chinese)
    em, _ = T.best_over_references(T.text_exact_match, prediction, chinese)
    assert f1 == pytest.approx(oracle_f1(chinese, prediction), abs=1e-12)
    assert em == oracle_em(chinese, prediction)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_segments_equal_mixed_segmentation_without_punctuation(text):
    assert T.cmrc_segments(text) == oracle_segments(text, drop_punctuation=True)


@pytest.mark.parametrize(
    ("prediction", "reference", "f1", "em"),
    [
        ("长", "长江", 0.667, 0.0),  # issue 24: 0 as a bag of jieba words
        ("北京", "北京市", 0.8, 0.0),
        ("臺灣", "台湾", 0.0, 0.0),  # no traditional/simplified folding (1 before)
        ("node.js。", "node.js", 1.0, 1.0),  # full-width punctuation goes without Han too
        ("1420年", "1420年。", 1.0, 1.0),
    ],
)
def test_the_issues_worked_examples(prediction, reference, f1, em):
    assert T.token_f1(prediction, reference) == pytest.approx(f1, abs=5e-4)
    assert T.text_exact_match(prediction, reference) == em
    assert oracle_f1([reference], prediction) == pytest.approx(f1, abs=5e-4)


def test_the_run_report_takes_the_best_of_several_reference_answers():
    key = AnswerKey("q1", reference_answer="长江", alternatives=("长江流域", "长"))
    result = score_answers([key], [StagedQuery("q1", response="长")], ["answer_f1", "squad_em"])
    assert result.column("answer_f1")[0] == 1.0
    assert result.column("squad_em")[0] == 1.0
    assert result.reasons[0]["answer_f1"] == "CMRC 2018 F1 1.00 against reference answer 3 of 3"
    assert result.reasons[0]["squad_em"] == (
        "the text of reference answer 3 of 3 (CMRC 2018 normalisation)"
    )
