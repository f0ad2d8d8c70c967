"""The stub answer judge (``goldsmith answer-judge-stub``) scores the share of key facts at
least half of whose content words the response holds, else the share of the reference answer's
content words, and always says why; its score is in [0, 1] for any text (a property test)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from goldsmith.answers.judge import fact_overlap_score


def test_worked_examples():
    facts = ["refund period is 7 days", "a receipt is required"]
    assert fact_overlap_score(None, facts, "The refund period is 7 days.") == (
        0.5,
        "1 of 2 facts stated; missing: 2",
    )
    assert fact_overlap_score(None, facts, "Refunds: 7 days, with the receipt required.") == (
        1.0,
        "all 2 facts stated",
    )
    assert fact_overlap_score("Manufacturing defects.", [], "It covers defects.") == (
        0.5,
        "1 of 2 reference words in the response",
    )
    assert fact_overlap_score("the", [], "anything") == (
        0.0,
        "the reference answer has no content words",
    )
    assert fact_overlap_score(None, [], "anything")[0] == 0.0


@given(
    reference=st.none() | st.text(max_size=30),
    facts=st.lists(st.text(max_size=30), max_size=4),
    response=st.text(max_size=60),
)
def test_the_score_is_a_share_with_a_reason(reference, facts, response):
    score, reason = fact_overlap_score(reference, facts, response)
    assert 0.0 <= score <= 1.0 and reason
    if facts:
        assert score * len(facts) == round(score * len(facts))
