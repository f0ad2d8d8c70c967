"""``squad_em`` equals the official SQuAD v2.0 evaluation script (``evaluate-v2.0.py``):
``compute_exact`` on ``normalize_answer`` (lower-case, ASCII punctuation out, the articles
a/an/the out, white space collapsed), the best over the gold answers, the ones that normalise
to nothing left out unless all do (``get_raw_scores``). The oracle is written again here from
the script's definitions; the F1 of several references is checked the same way."""

from __future__ import annotations

import collections
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith.answers import text as T
from goldsmith.answers.model import AnswerKey, StagedQuery
from goldsmith.answers.scoring import score_answers


def oracle_normalize(text: str) -> str:
    """Lower-case; drop every character of string.punctuation; replace each whole word a, an
    or the by a space; join the white-space separated words with one space."""
    text = text.lower()
    text = "".join(c for c in text if c not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text, flags=re.UNICODE)
    return " ".join(text.split())


def oracle_exact(gold: str, prediction: str) -> int:
    return int(oracle_normalize(gold) == oracle_normalize(prediction))


def oracle_f1(gold: str, prediction: str) -> float:
    gold_words = oracle_normalize(gold).split() if gold else []
    pred_words = oracle_normalize(prediction).split() if prediction else []
    if not gold_words or not pred_words:
        return float(gold_words == pred_words)
    same = sum((collections.Counter(gold_words) & collections.Counter(pred_words)).values())
    if same == 0:
        return 0.0
    p, r = same / len(pred_words), same / len(gold_words)
    return 2 * p * r / (p + r)


def oracle_golds(answers: list[str]) -> list[str]:
    """get_raw_scores: the answers whose normalised text is not empty, else one empty one."""
    kept = [a for a in answers if oracle_normalize(a)]
    return kept or [""]


words = st.sampled_from(
    ["the", "a", "an", "The", "A", "refund", "Refund", "7", "days", "days.", "it's", "(seven)",
     "über", "naïve", "ÉTÉ", "anthe", "", " ", "\t", ",", "...", "!", "?", "—", "«x»"]
)  # fmt: skip
english = st.one_of(
    st.lists(words, max_size=8).map(" ".join),
    st.text(alphabet=st.characters(max_codepoint=0x2FF, blacklist_categories=("Cs",))),
)


@settings(max_examples=600, deadline=None)
@given(english, st.lists(english, min_size=1, max_size=4))
def test_squad_em_and_f1_equal_the_script_over_several_answers(prediction, answers):
    golds = oracle_golds(answers)
    em, _ = T.best_over_references(T.text_exact_match, prediction, answers)
    f1, _ = T.best_over_references(T.token_f1, prediction, answers)
    assert em == max(oracle_exact(g, prediction) for g in golds)
    assert f1 == pytest.approx(max(oracle_f1(g, prediction) for g in golds), abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(st.text(), st.text())
def test_the_squad_tokenizer_is_the_script_on_any_text(prediction, answer):
    assert T.text_exact_match(prediction, answer, "squad") == oracle_exact(answer, prediction)


def test_squad_em_scores_open_answers_and_leaves_closed_ones_to_exact_match():
    keys = [
        AnswerKey("open", reference_answer="The Eiffel Tower", alternatives=("Eiffel tower!",)),
        AnswerKey("closed", reference_answer="7 days", answer_type="number"),
        AnswerKey("wrong", reference_answer="Paris"),
    ]
    run = [
        StagedQuery("open", response="eiffel Tower"),
        StagedQuery("closed", response="7 days"),
        StagedQuery("wrong", response="Lyon"),
    ]
    result = score_answers(keys, run, ["squad_em", "exact_match"])
    em = dict(zip(result.query_ids, result.column("squad_em").tolist(), strict=True))
    assert em["open"] == 1.0 and em["wrong"] == 0.0 and em["closed"] != em["closed"]
    assert result.reasons[0]["squad_em"] == (
        "the text of reference answer 1 of 2 (SQuAD v2.0 normalisation)"
    )
    assert result.column("exact_match")[1] == 1.0
