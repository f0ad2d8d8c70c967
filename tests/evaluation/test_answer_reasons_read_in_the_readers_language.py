"""The answer scorers' reasons, stored in a run's report in English with their templates, read
in the reader's language on the run page: every shape of reason the engine gives (context
recall, fact coverage, token F1, exact match of numbers, dates, yes/no and choices, conflicts,
missing answers) is said in Chinese for a zh-hans reader and unchanged for an English one; an
answer judge's own words (stored without a template) are shown as they came."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from goldsmith.answers.model import AnswerKey, Context, KeyFact, StagedQuery
from goldsmith.answers.scoring import score_answers
from tests.evaluation.conftest import stored_and_said

FACTS = (
    KeyFact("refunds take 7 days", ("c1",)),
    KeyFact("exceptions beyond 7 days need a manager", ("c2",)),
    KeyFact("the form is online", ("c3",)),
)
CONTEXTS = (Context("c1", "Refunds take 7 days."), Context("c9", "Unrelated text."))

CASES: list[tuple[AnswerKey, StagedQuery | None]] = [
    # open answers with facts: some found, some missing, one stated, all stated
    (AnswerKey("q1", "Refunds take 7 days.", "open", facts=FACTS),
     StagedQuery("q1", contexts=CONTEXTS, response="Refunds take 7 days.")),
    (AnswerKey("q2", "Refunds take 7 days.", "open", facts=FACTS[:1]),
     StagedQuery("q2", contexts=CONTEXTS, response="Refunds take 7 days.")),
    (AnswerKey("q3", "x", "open", facts=FACTS[:2]),
     StagedQuery("q3", contexts=(Context("c1", "a"), Context("c2", "b")),
                 response="refunds take 7 days; exceptions beyond 7 days need a manager")),
    (AnswerKey("q4", "Refunds take 7 days.", "open", facts=FACTS[:1]),
     StagedQuery("q4", contexts=(Context("c8", "nothing"),), response="It takes 14 days.")),
    # open answer without facts: token F1 only
    (AnswerKey("q5", "seven days", "open"), StagedQuery("q5", response="seven days")),
    # closed answers: numbers, dates, yes/no, choices, right and wrong
    (AnswerKey("q6", "7 days", "number"), StagedQuery("q6", response="7 days")),
    (AnswerKey("q7", "7 days", "number"), StagedQuery("q7", response="14 days")),
    (AnswerKey("q8", "7 days", "number"), StagedQuery("q8", response="soon")),
    (AnswerKey("q9", "7 days", "number"), StagedQuery("q9", response="7 days or 14 days")),
    (AnswerKey("q10", "2024-03-05", "date"), StagedQuery("q10", response="on 2024-03-05")),
    (AnswerKey("q11", "2024-03-05", "date"), StagedQuery("q11", response="on 2024-04-05")),
    (AnswerKey("q12", "2024-03-05", "date"), StagedQuery("q12", response="later")),
    (AnswerKey("q13", "yes", "boolean"), StagedQuery("q13", response="Yes, it can.")),
    (AnswerKey("q14", "yes", "boolean"), StagedQuery("q14", response="No.")),
    (AnswerKey("q15", "yes", "boolean"), StagedQuery("q15", response="Perhaps.")),
    (AnswerKey("q16", "red", "choice", ("red", "blue")), StagedQuery("q16", response="red")),
    (AnswerKey("q17", "red", "choice", ("red", "blue")), StagedQuery("q17", response="blue")),
    (AnswerKey("q18", "red", "choice", ("red", "blue")), StagedQuery("q18", response="green")),
    (AnswerKey("q19", "red", "choice", ("red", "blue")), StagedQuery("q19", response="red, blue")),
    # no response, and a query missing from the run
    (AnswerKey("q20", "7 days", "number", facts=FACTS[:1]), StagedQuery("q20", contexts=CONTEXTS)),
    (AnswerKey("q21", "7 days", "number", facts=FACTS[:1]), None),
]  # fmt: skip
METRICS = ["context_recall@1", "fact_coverage", "answer_f1", "exact_match", "answer_correctness"]


def shown(reason: str) -> str:
    """A reason as the run page shows it: stored, then said in the active language."""
    return stored_and_said({"reason": reason})[1]["reason"]


def engine_reasons() -> set[str]:
    keys = [key for key, _ in CASES]
    run = [staged for _, staged in CASES if staged is not None]
    result = score_answers(keys, run, METRICS)
    return {reason for per_query in result.reasons for reason in per_query.values()}


def test_the_cases_give_every_shape_of_reason():
    reasons = engine_reasons()
    for shape in (
        r"all \d+ facts in the top 1 contexts|the fact is in the top 1 contexts",
        r"facts? [\d, and]+ not in the top 1 contexts",
        r"all \d+ facts stated",
        r"the fact is stated",
        r"facts? [\d, and]+ missing",
        r"token F1 .* against the reference answer( \(no key facts\))?",
        r"says .*, as the reference",
        r"says .*, reference .*",
        r"says .* but also .*",
        r"states no number \(reference .*\)",
        r"states no date \(reference .*\)",
        r"no yes/no answer found \(reference .*\)",
        r"names no choice \(reference .*\)",
        r"names several choices: .*",
        r"chose .*, as the reference",
        r"chose .*, reference .*",
        r"missing from the run",
    ):
        assert any(re.fullmatch(shape, r) for r in reasons), shape


def test_an_english_reader_reads_them_as_the_engine_gave_them():
    with translation.override("en"):
        for reason in engine_reasons():
            assert shown(reason) == reason


def test_a_chinese_reader_reads_every_one_in_chinese():
    with translation.override("zh-hans"):
        for reason in engine_reasons():
            said = shown(reason)
            assert said != reason and re.search(r"[\u4e00-\u9fff]", said), reason
            # what remains in Latin letters is the answers' own values and F1
            left = set(re.findall(r"[A-Za-z]+", said)) - {"F", "days", "or", "red", "blue"}
            left -= {"green", "soon", "later", "Perhaps", "Yes", "No", "yes", "no", "it", "can"}
            assert not left, (reason, said)


@pytest.mark.parametrize(
    "judge_words", ["The answer misses the exception.", "答案遗漏了例外情况。", "fact 2 missing!"]
)
def test_an_answer_judges_own_words_are_shown_as_they_came(judge_words):
    with translation.override("zh-hans"):
        assert shown(judge_words) == judge_words
