"""Context recall@K: the share of a query's key facts whose supporting chunk (or, without a
link, whose text) is among the top K contexts; the reason names the missing facts and every
fact says which rule decided it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith.answers.model import AnswerKey, Context, KeyFact, RankedItem, StagedQuery
from goldsmith.answers.scoring import AnswerSettings, context_recall, score_answers

REFUND = (
    KeyFact("refund period is 7 days", ("c7",)),
    KeyFact("exceptions beyond 7 days", ("c8",)),
)


def test_the_fields_worked_example_one_of_two_facts_retrieved_is_one_half():
    key = AnswerKey("q1", reference_answer="7 days, with exceptions", facts=REFUND)
    run = StagedQuery("q1", results=(RankedItem("c7"), RankedItem("c3")))
    result = score_answers([key], [run], ["context_recall@5"])
    assert result.column("context_recall@5").tolist() == [0.5]
    assert result.reasons[0]["context_recall@5"] == "fact 2 not in the top 5 contexts"
    checks = result.fact_checks[0]["context_recall@5"]
    assert [(c.found, c.rule, c.detail) for c in checks] == [
        (True, "chunk link", "c7 in context 1"),
        (False, "chunk link", "none of c8"),
    ]


def test_facts_without_links_are_found_by_the_stated_text_rule():
    facts = tuple(KeyFact(f.text) for f in REFUND)
    key = AnswerKey("q1", facts=facts)
    contexts = (
        Context("a", "Our refund period is 7 days from delivery."),
        Context("b", "Shipping is free on orders over 50 euros."),
    )
    value, reason, checks = context_recall(
        key, StagedQuery("q1", contexts=contexts), 5, AnswerSettings()
    )
    assert value == 0.5 and reason == "fact 2 not in the top 5 contexts"
    assert [c.rule for c in checks] == ["containment", "overlap"]
    assert checks[1].detail.startswith("term overlap 0.") and checks[1].detail.endswith("< 0.75")


def test_the_overlap_rule_needs_the_facts_numbers_too():
    key = AnswerKey("q1", facts=(KeyFact("the refund period is 7 days"),))
    wrong = StagedQuery("q1", contexts=(Context("a", "Refund period: 14 days."),))
    right = StagedQuery("q1", contexts=(Context("a", "Refund period: seven days."),))
    s = AnswerSettings(fact_overlap=0.6)
    assert context_recall(key, wrong, 5, s)[0] == 0.0
    assert context_recall(key, wrong, 5, s)[2][0].detail == (
        "its terms are there but not its numbers or dates"
    )
    assert context_recall(key, right, 5, s)[0] == 1.0


def test_chinese_facts_are_matched_by_words():
    key = AnswerKey("q1", facts=(KeyFact("退款期限为7天"), KeyFact("质量问题可以延长退款期限")))
    run = StagedQuery("q1", contexts=(Context("a", "本店退款期限为7天，节假日除外。"),))
    value, reason, checks = context_recall(key, run, 5, AnswerSettings())
    assert value == 0.5 and reason == "fact 2 not in the top 5 contexts"
    assert checks[0].found and not checks[1].found


def test_contexts_default_to_the_top_k_results():
    key = AnswerKey("q1", facts=REFUND)
    run = StagedQuery("q1", results=(RankedItem("c1"), RankedItem("c7"), RankedItem("c8")))
    r = score_answers([key], [run], ["context_recall@1", "context_recall@2", "context_recall@3"])
    assert r.values.tolist() == [[0.0, 0.5, 1.0]]


def test_a_query_missing_from_the_run_scores_zero_and_one_without_facts_is_not_scored():
    keys = [AnswerKey("q1", facts=REFUND), AnswerKey("q2", reference_answer="yes")]
    r = score_answers(keys, [], ["context_recall@5"])
    assert r.column("context_recall@5")[0] == 0.0
    assert r.reasons[0]["context_recall@5"] == "missing from the run"
    assert r.scored("context_recall@5") == ("q1",)
    assert r.eval_result("context_recall@5").no_relevant == ("q2",)


ids = st.sampled_from([f"c{i}" for i in range(8)])
facts = st.lists(
    st.builds(
        KeyFact,
        st.sampled_from(["refund in 7 days", "free shipping", "two year warranty", "x"]),
        st.lists(ids, max_size=3, unique=True).map(tuple),
    ),
    min_size=1,
    max_size=6,
)
contexts = st.lists(
    st.builds(
        Context, ids, st.sampled_from(["refund in 7 days", "free shipping over 50", "", "x y"])
    ),
    max_size=10,
)


@settings(max_examples=200, deadline=None)
@given(facts, contexts)
def test_context_recall_is_a_share_that_never_falls_as_k_grows(fs, cs):
    key = AnswerKey("q", facts=tuple(fs))
    run = StagedQuery("q", contexts=tuple(cs))
    values = [context_recall(key, run, k, AnswerSettings())[0] for k in range(1, 12)]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert values == sorted(values)
    found = [context_recall(key, run, 11, AnswerSettings())[2][i].found for i in range(len(fs))]
    assert values[-1] == sum(found) / len(fs)
