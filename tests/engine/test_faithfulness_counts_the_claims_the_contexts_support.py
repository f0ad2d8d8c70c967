"""Faithfulness by rules (docs/formats.md, "Faithfulness"): the share of the response's claims
that the contexts given to the model support, worked by hand in English and Chinese, with each
unsupported claim named in the reason, and held by properties over generated texts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith.answers import faithfulness as F
from goldsmith.answers import scoring as S
from goldsmith.answers.model import AnswerKey, Context, RankedItem, StagedQuery
from goldsmith.text import Text

REFUNDS = [
    "Refunds are issued within 7 days of the return.",
    "Shipping is free for orders over 50 dollars. Opened items cannot be returned.",
]


def test_an_english_response_is_scored_claim_by_claim():
    # By hand: claim 1 is copied (containment); claim 2's terms, its number left to the value
    # check, are orders, ship, free: "ship" is not "shipping", 2 of 3 < 0.75; claim 3 states
    # 97 dollars, which no context holds; claim 4 shares no term. 1 of 4 supported.
    result = F.faithfulness(
        "Refunds are issued within 7 days of the return. Orders over 50 dollars ship free. "
        "Express shipping costs 97 dollars. The moon is made of cheese.",
        REFUNDS,
    )
    assert [(c.supported, c.rule) for c in result.claims] == [
        (True, "containment"),
        (False, "terms"),
        (False, "values"),
        (False, "terms"),
    ]
    assert result.claims[0].context == 1
    assert round(result.claims[1].overlap, 2) == 0.67
    assert result.claims[2].missing == ("97 dollars",)
    assert result.value == 0.25
    assert str(result.reason) == (
        '3 of 4 claims not supported by the contexts: "Orders over 50 dollars ship free.": 0.67 '
        'of its terms in one context, fewer than 0.75; "Express shipping costs 97 dollars." '
        'states 97 dollars, which no context holds; "The moon is made of cheese.": 0.00 of its '
        "terms in one context, fewer than 0.75"
    )


def test_a_claim_is_supported_from_the_stated_share_of_its_terms_with_its_numbers():
    contexts = ["The refund period is 7 days for every order placed online."]
    # terms: refund, period, 7? (one character, not a term), days, online → all in the context
    supported = F.faithfulness("Online orders have a refund period of 7 days.", contexts)
    assert supported.value == 1.0
    assert supported.claims[0].rule == "overlap"
    # Same words, another number: its terms are there but 14 days is in no context.
    wrong = F.faithfulness("Online orders have a refund period of 14 days.", contexts)
    assert wrong.value == 0.0
    assert wrong.claims[0].rule == "values" and wrong.claims[0].missing == ("14 days",)
    assert str(wrong.reason) == (
        'the claim is not supported by the contexts: "Online orders have a refund period of '
        '14 days." states 14 days, which no context holds'
    )


def test_a_number_is_found_in_any_context_and_units_convert():
    contexts = ["Refunds take one week.", "Support answers within 24 hours."]
    assert F.faithfulness("Refunds take 7 days.", contexts).value == 1.0  # one week = 7 days
    assert F.faithfulness("Support answers within one day.", contexts).value == 1.0


def test_a_chinese_response_is_cut_into_clauses_and_its_numbers_checked():
    contexts = ["长江是中国最长的河流，全长6300公里，流经11个省份。"]
    result = F.faithfulness("长江是中国最长的河流，全长6300公里。长江全长8000公里。", contexts)
    assert [c.text for c in result.claims] == [
        "长江是中国最长的河流，",
        "全长6300公里。",
        "长江全长8000公里。",
    ]
    assert [c.supported for c in result.claims] == [True, True, False]
    assert result.claims[2].missing == ("8000公里",)
    assert result.value == 2 / 3
    assert str(result.reason) == (
        '1 of 3 claims not supported by the contexts: "长江全长8000公里。" states 8000公里, '
        "which no context holds"
    )


def test_the_reason_keeps_its_template_and_values_for_the_apps():
    result = F.faithfulness("Refunds take 30 days. The moon is cheese.", REFUNDS)
    assert isinstance(result.reason, Text)
    assert result.reason.template == (
        "%(unsupported)s of %(n)s claims not supported by the contexts: %(claims)s"
    )
    assert result.reason.values["unsupported"] == 2
    listed = result.reason.values["claims"]
    assert isinstance(listed, Text) and listed.template == "%(earlier)s; %(next)s"
    # What a report stores says the same reason again.
    stored = F.claims_json(result, 0.75)
    assert F.reason_from_json(stored) == result.reason
    assert F.reason_from_json(stored).template == result.reason.template


def test_lead_in_clauses_and_bare_yes_or_no_are_not_claims_of_their_own():
    assert F.claims("Yes. However, opened items cannot be returned.") == [
        "However, opened items cannot be returned."
    ]
    assert F.claims("是的，然而，北京是首都。") == ["是的，然而，北京是首都。"]


def test_no_response_no_context_or_no_claim_has_no_faithfulness():
    assert F.faithfulness(None, REFUNDS).value is None
    assert F.faithfulness("Refunds take 7 days.", []).value is None
    assert F.faithfulness("Refunds take 7 days.", ["", "  "]).value is None
    assert F.faithfulness("Yes.", REFUNDS).value is None
    assert F.faithfulness("", REFUNDS).value is None


def test_the_scorer_reads_the_given_contexts_else_the_top_k_results():
    key = AnswerKey("q1")  # faithfulness needs no answer key
    given_contexts = StagedQuery(
        "q1",
        results=(RankedItem("c9", text="Nothing relevant here."),),
        contexts=(Context("c1", REFUNDS[0]),),
        response=REFUNDS[0],
    )
    top_k = StagedQuery(
        "q2",
        results=(RankedItem("c8", text="Other text."), RankedItem("c1", text=REFUNDS[0])),
        response=REFUNDS[0],
    )
    no_response = StagedQuery("q3", contexts=(Context("c1", REFUNDS[0]),))
    keys = [key, AnswerKey("q2"), AnswerKey("q3"), AnswerKey("q4")]
    run = [given_contexts, top_k, no_response]
    result = S.score_answers(keys, run, ["faithfulness"], S.AnswerSettings(context_k=2))
    assert result.column("faithfulness").tolist()[:2] == [1.0, 1.0]
    assert result.per_query() == {"q1": {"faithfulness": 1.0}, "q2": {"faithfulness": 1.0}}
    # Only the first result stands for the contexts with K 1: the claim is not in it.
    cut = S.score_answers(keys, run, ["faithfulness"], S.AnswerSettings(context_k=1))
    assert cut.per_query()["q2"] == {"faithfulness": 0.0}
    assert "q3" not in cut.per_query() and "q4" not in cut.per_query()  # none, not 0


def test_answer_relevance_is_never_scored_by_rules():
    run = [StagedQuery("q1", contexts=(Context("c1", REFUNDS[0]),), response=REFUNDS[0])]
    result = S.score_answers([AnswerKey("q1", "7 days")], run, ["answer_relevance"])
    assert result.per_query() == {}


# --- Properties ------------------------------------------------------------------------------

WORDS = [
    "refund", "period", "shipping", "orders", "warranty", "battery", "screen", "invoice",
    "account", "password", "delivery", "customer", "station", "river", "mountain", "library",
]  # fmt: skip
ZH_WORDS = ["长江", "河流", "北京", "首都", "图书馆", "铁路", "大学", "城市", "历史", "发电"]


@st.composite
def sentences(draw, words=WORDS, end=". ", joiner=" "):
    n = draw(st.integers(2, 6))
    body = joiner.join(draw(st.lists(st.sampled_from(words), min_size=n, max_size=n)))
    if draw(st.booleans()):
        body += joiner + str(draw(st.integers(10, 99)))
    return body[0].upper() + body[1:] + end.strip()


english = st.lists(sentences(), min_size=1, max_size=6)
chinese = st.lists(sentences(ZH_WORDS, "。", ""), min_size=1, max_size=6)
language = st.sampled_from(["en", "zh"])


@settings(max_examples=80, deadline=None)
@given(data=st.data(), lang=language)
def test_a_response_copied_from_its_contexts_scores_one(data, lang):
    made = data.draw(english if lang == "en" else chinese)
    sep = " " if lang == "en" else ""
    contexts = [sep.join(made[: len(made) // 2 + 1]), sep.join(made[len(made) // 2 :])]
    picked = data.draw(st.lists(st.sampled_from(made), min_size=1, max_size=4))
    result = F.faithfulness(sep.join(picked), contexts)
    assert result.value == 1.0, result.reason


@settings(max_examples=80, deadline=None)
@given(data=st.data(), lang=language, number=st.integers(100_000, 999_999))
def test_a_sentence_with_a_number_no_context_holds_lowers_it(data, lang, number):
    made = data.draw(english if lang == "en" else chinese)
    sep = " " if lang == "en" else ""
    contexts = [sep.join(made)]
    response = sep.join(made[: data.draw(st.integers(1, len(made)))])
    before = F.faithfulness(response, contexts)
    if lang == "en":
        added = f"{response} The {made[0].split()[0].lower()} costs {number} dollars."
    else:
        added = f"{response}{ZH_WORDS[0]}全长{number}公里。"
    after = F.faithfulness(added, contexts)
    assert before.value is not None and after.value is not None
    assert after.value < before.value
    assert str(number) in str(after.reason)


@settings(max_examples=50, deadline=None)
@given(contexts=st.lists(st.text(max_size=40), max_size=3))
def test_no_response_has_no_faithfulness(contexts):
    assert F.faithfulness(None, contexts).value is None
    run = [StagedQuery("q1", contexts=tuple(Context(f"c{i}", t) for i, t in enumerate(contexts)))]
    assert S.score_answers([AnswerKey("q1")], run, ["faithfulness"]).per_query() == {}
