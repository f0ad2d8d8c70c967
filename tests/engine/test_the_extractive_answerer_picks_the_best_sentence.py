"""The extractive answerer: the sentence of the top contexts sharing most terms with the query,
in English and in Chinese, so a whole answer report runs without a language model."""

from __future__ import annotations

from goldsmith.answers.extractive import answer_run, extractive_answer, sentences
from goldsmith.answers.model import Context, RankedItem, StagedQuery


def test_it_answers_with_the_best_matching_sentence():
    contexts = [
        Context("c1", "Welcome to the shop. Shipping is free over 50 euros."),
        Context("c2", "Refunds: the refund period is 7 days. Opened items are excluded."),
    ]
    assert extractive_answer("How long is the refund period?", contexts) == (
        "Refunds: the refund period is 7 days."
    )


def test_it_reads_chinese_by_words():
    contexts = [Context("c1", "欢迎光临本店。退款期限为7天。运费全免！")]
    assert extractive_answer("退款期限是多久？", contexts) == "退款期限为7天。"
    assert sentences("第一句。第二句！Third one. Fourth") == [
        "第一句。",
        "第二句！",
        "Third one.",
        "Fourth",
    ]


def test_only_the_top_contexts_are_read_and_nothing_shared_gives_no_answer():
    contexts = [Context("c1", "Nothing here."), Context("c2", "The refund period is 7 days.")]
    assert extractive_answer("refund period", contexts, top=1) == ""
    assert extractive_answer("refund period", []) == ""


def test_a_run_is_answered_from_its_contexts_or_its_results_text():
    run = [
        StagedQuery("q1", results=(RankedItem("c1", 1.0, "The refund period is 7 days."),)),
        StagedQuery("q2", results=(RankedItem("c2"),), response="kept"),
    ]
    answered = answer_run({"q1": "refund period"}, run)
    assert answered[0].response == "The refund period is 7 days."
    assert answered[1].response == "kept"
