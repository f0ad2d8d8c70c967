"""A project's tie rule on small hand-made queries of two, three and four annotators
(docs/design.md "Agreement conventions"), and the flag reasons as a lead reads them."""

from __future__ import annotations

import pytest

from goldsmith import agreement as A


def settle(grades: dict[int, dict[int, int]], tie_rule: str, **flags):
    """(flag reasons, candidate → final grade and provenance) as the app settles a query."""
    reasons = A.flag_reasons(
        kappa=flags.get("kappa"),
        threshold=0.6,
        grades=grades,
        ambiguous=flags.get("ambiguous", False),
        tie_rule=tie_rule,
    )
    votes: dict[int, list[int]] = {}
    for by in grades.values():
        for cid, g in by.items():
            votes.setdefault(cid, []).append(g)
    finals = (
        {} if reasons else {c: A.rule_resolution(v, tie_rule=tie_rule) for c, v in votes.items()}
    )
    return reasons, finals


TWO = {1: {10: 2, 11: 1, 12: 0}, 2: {10: 2, 11: 2, 12: 1}}  # alice, bob: two one-grade ties


@pytest.mark.parametrize(
    ("tie_rule", "expected"),
    [
        ("lower", {10: (2, "unanimous"), 11: (1, "tie_lower"), 12: (0, "tie_lower")}),
        ("higher", {10: (2, "unanimous"), 11: (2, "tie_higher"), 12: (1, "tie_higher")}),
    ],
)
def test_two_annotators_one_grade_apart_resolve_by_the_tie_rule(tie_rule, expected):
    assert settle(TWO, tie_rule) == ([], expected)


def test_with_the_lead_rule_a_tie_between_two_annotators_flags_the_query():
    assert settle(TWO, "lead") == (["tie"], {})


@pytest.mark.parametrize("tie_rule", A.TIE_RULES)
def test_three_annotators_one_grade_apart_always_have_a_majority(tie_rule):
    grades = {1: {10: 2, 11: 1}, 2: {10: 1, 11: 1}, 3: {10: 2, 11: 1}}
    assert settle(grades, tie_rule) == ([], {10: (2, "majority"), 11: (1, "unanimous")})


def test_four_annotators_split_two_and_two_resolve_by_the_tie_rule():
    grades = {1: {10: 1}, 2: {10: 1}, 3: {10: 0}, 4: {10: 0}}
    assert settle(grades, "lower") == ([], {10: (0, "tie_lower")})
    assert settle(grades, "higher") == ([], {10: (1, "tie_higher")})
    assert settle(grades, "lead") == (["tie"], {})


@pytest.mark.parametrize("tie_rule", A.TIE_RULES)
def test_a_flagged_query_is_not_resolved_by_the_tie_rule(tie_rule):
    apart = {1: {10: 2, 11: 1}, 2: {10: 0, 11: 0}}
    assert settle(apart, tie_rule) == (["two_apart"], {})
    assert settle(TWO, tie_rule, kappa=0.29)[0] == ["low_kappa"]
    assert settle(TWO, tie_rule, ambiguous=True)[0] == ["ambiguous"]


def test_three_annotators_all_apart_are_never_resolved_by_a_tie_rule():
    for tie_rule in A.TIE_RULES:
        assert A.rule_resolution([2, 1, 0], tie_rule=tie_rule) is None


def test_the_flag_reasons_read_as_sentences():
    grades = {1: {10: 2, 11: 1, 12: 0}, 2: {10: 0, 11: 1, 12: 1}}
    sentences = A.flag_sentences(
        reasons=["low_kappa", "two_apart", "ambiguous"],
        kappa=0.2857,
        threshold=0.6,
        grades=grades,
        names={1: "alice", 2: "bob"},
        chunk_numbers={10: 3, 11: 1, 12: 2},
        ambiguous_by=["bob"],
    )
    assert sentences == [
        "κ 0.29 below 0.6",
        "alice 2 and bob 0 on chunk 3",
        "marked ambiguous by bob",
    ]


def test_a_tie_left_to_the_lead_names_the_chunk():
    sentences = A.flag_sentences(
        reasons=["tie"],
        kappa=0.7,
        threshold=0.6,
        grades={1: {10: 1, 11: 0}, 2: {10: 1, 11: 1}},
        names={1: "alice", 2: "bob"},
        chunk_numbers={10: 1, 11: 2},
        ambiguous_by=[],
    )
    assert sentences == ["bob 1 and alice 0 on chunk 2, no majority"]


def test_many_chunks_two_apart_are_summed_up_after_a_few():
    grades = {1: {c: 2 for c in range(6)}, 2: {c: 0 for c in range(6)}}
    sentences = A.flag_sentences(
        reasons=["two_apart"],
        kappa=None,
        threshold=0.6,
        grades=grades,
        names={1: "alice", 2: "bob"},
        chunk_numbers={c: c + 1 for c in range(6)},
        ambiguous_by=[],
    )
    assert sentences[:3] == [f"alice 2 and bob 0 on chunk {n}" for n in (1, 2, 3)]
    assert sentences[3] == "and 3 more chunks two grades apart"
