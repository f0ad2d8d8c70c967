"""Exact match for closed answer types (number, date, yes/no, choice), after normalisation;
the conflict check; answer correctness combining them, each score with its reason."""

from __future__ import annotations

import pytest

from goldsmith.answers.model import AnswerKey, KeyFact, StagedQuery
from goldsmith.answers.scoring import AnswerSettings, conflicts, score_answers


def scored(key: AnswerKey, response: str | None, metric: str = "answer_correctness"):
    r = score_answers([key], [StagedQuery(key.query_id, response=response)], [metric])
    return float(r.values[0, 0]), r.reasons[0].get(metric)


@pytest.mark.parametrize(
    ("reference", "response"),
    [
        ("7 days", "7 days"),
        ("7 days", "seven days"),
        ("7 days", "7 天"),
        ("7 days", "七天"),
        ("7 days", "one week"),
        ("7 days", "You have 168 hours to ask."),
        ("1,234.5 USD", "$1234.50"),
        ("50%", "百分之五十"),
        ("2 years", "24 months"),
        ("3", "three"),
    ],
)
def test_numbers_with_units_match_when_they_say_the_same(reference, response):
    key = AnswerKey("q", reference_answer=reference, answer_type="number")
    value, reason = scored(key, response)
    assert value == 1.0, reason
    assert reason.endswith("as the reference")


@pytest.mark.parametrize(
    ("reference", "response", "reason"),
    [
        ("7 days", "14 days", "says 14 days, reference 7 days"),
        ("7 days", "7 business days", "says 7 business days, reference 7 days"),
        ("7 days", "It depends.", "states no number (reference 7 days)"),
        ("7 days", "7 or 14 days", "says 7 but also 14 days"),
        ("30%", "3%", "says 3%, reference 30%"),
    ],
)
def test_numbers_that_differ_do_not_match_and_say_why(reference, response, reason):
    key = AnswerKey("q", reference_answer=reference, answer_type="number")
    assert scored(key, response) == (0.0, reason)


def test_a_tolerance_accepts_close_numbers():
    key = AnswerKey("q", reference_answer="3.14159", answer_type="number")
    response = StagedQuery("q", response="about 3.14")
    exact = score_answers([key], [response], ["exact_match"])
    loose = score_answers([key], [response], ["exact_match"], AnswerSettings(number_tolerance=0.01))
    assert exact.values[0, 0] == 0.0 and loose.values[0, 0] == 1.0


@pytest.mark.parametrize(
    ("reference", "response", "value"),
    [
        ("2024-03-05", "On March 5, 2024.", 1.0),
        ("2024-03-05", "2024年3月5日", 1.0),
        ("2024-03-05", "二〇二四年三月五日", 1.0),
        ("March 5, 2024", "5 March 2024", 1.0),
        ("2024-03-05", "03/05/2024", 1.0),
        ("2024-03-05", "2024-03-06", 0.0),
        ("2024-03-05", "in March", 0.0),
        ("March 2024", "2024-03-17", 1.0),
    ],
)
def test_dates_match_in_their_common_forms(reference, response, value):
    key = AnswerKey("q", reference_answer=reference, answer_type="date")
    assert scored(key, response)[0] == value


def test_a_wrong_date_says_both_dates():
    key = AnswerKey("q", reference_answer="2024-03-05", answer_type="date")
    assert scored(key, "It shipped on 2024-03-06.") == (
        0.0,
        "says 2024-03-06, reference 2024-03-05",
    )


@pytest.mark.parametrize(
    ("reference", "response", "value"),
    [
        ("yes", "Yes, within 7 days.", 1.0),
        ("true", "yes", 1.0),
        ("是", "是的，可以退货。", 1.0),
        ("否", "不可以", 1.0),
        ("no", "不是", 1.0),
        ("yes", "No, it is not possible.", 0.0),
        ("对", "不对", 0.0),
        ("yes", "It depends.", 0.0),
    ],
)
def test_yes_and_no_in_english_and_chinese(reference, response, value):
    key = AnswerKey("q", reference_answer=reference, answer_type="boolean")
    assert scored(key, response)[0] == value


@pytest.mark.parametrize(
    ("response", "value", "reason"),
    [
        ("dhl", 1.0, "chose DHL, as the reference"),
        ("  DHL Express? No: DHL.", 1.0, "chose DHL, as the reference"),
        ("We use UPS.", 0.0, "chose UPS, reference DHL"),
        ("DHL or UPS", 0.0, "names several choices: DHL, UPS"),
        ("By boat.", 0.0, "names no choice (reference DHL)"),
    ],
)
def test_choices_match_case_and_space_insensitively(response, value, reason):
    key = AnswerKey("q", reference_answer="DHL", answer_type="choice", choices=("DHL", "UPS"))
    assert scored(key, response) == (value, reason)


def test_a_contradicting_number_in_an_open_answer_is_caught():
    key = AnswerKey(
        "q",
        reference_answer="Refunds are accepted within 7 days.",
        facts=(KeyFact("refund period is 7 days"),),
    )
    assert scored(key, "You can get a refund within 14 days.") == (
        0.0,
        "says 14 days, reference 7 days",
    )
    assert conflicts(key, "The refund period is 7 days, or one week.", AnswerSettings()) == ()
    assert conflicts(key, "退款期限为14天", AnswerSettings()) == ("says 14天, reference 7 days",)


def test_open_answers_score_their_fact_coverage_and_name_the_missing_facts():
    key = AnswerKey(
        "q",
        reference_answer="Manufacturing defects, for 2 years, not water damage.",
        facts=(
            KeyFact("covers manufacturing defects"),
            KeyFact("lasts 2 years"),
            KeyFact("water damage is excluded"),
        ),
    )
    value, reason = scored(key, "The warranty covers manufacturing defects.")
    assert value == pytest.approx(1 / 3) and reason == "facts 2 and 3 missing"


def test_open_answers_without_facts_score_token_f1():
    key = AnswerKey("q", reference_answer="the refund period is seven days")
    assert scored(key, "The refund period is seven days!") == (
        1.0,
        "token F1 1.00 against the reference answer (no key facts)",
    )
    value, reason = scored(key, "refund period seven days")  # "is" is not an article
    assert value == pytest.approx(8 / 9) and reason.startswith("token F1 0.89 ")


def test_a_query_without_a_response_or_a_reference_is_not_scored():
    value, reason = scored(AnswerKey("q", reference_answer="yes", answer_type="boolean"), None)
    assert value != value and reason is None  # no answer to score: the metric does not apply
    r = score_answers([AnswerKey("q")], [StagedQuery("q", response="yes")], ["answer_correctness"])
    assert r.scored("answer_correctness") == () and r.per_query() == {}


def test_exact_match_leaves_open_answers_out():
    keys = [
        AnswerKey("a", reference_answer="7 days", answer_type="number"),
        AnswerKey("b", reference_answer="anything"),
    ]
    run = [StagedQuery("a", response="7 days"), StagedQuery("b", response="anything")]
    r = score_answers(keys, run, ["exact_match"])
    assert r.scored("exact_match") == ("a",)
