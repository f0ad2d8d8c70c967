"""After escalation, a query's three (or more) grades settle by majority on small hand-made
cases (docs/design.md "Escalation"): a majority outvotes a grade two apart, a candidate without
a majority and a low mean pairwise kappa go to a lead, an ambiguity mark is never escalated, and
a query escalates at most once. A hypothesis test checks the rules against their plain
statement, with the kappa from scikit-learn."""

from __future__ import annotations

import math
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from goldsmith import agreement as A


def settle(grades: dict[int, dict[int, int]], tie_rule: str = "lower", **flags):
    """(flag reasons, candidate → final grade and provenance) as the app settles an escalated
    query: the kappa is the query's own (mean pairwise), unless given."""
    kappa = flags.get("kappa", A.query_stats(grades)["kappa"])
    reasons = A.flag_reasons(
        kappa=kappa,
        threshold=flags.get("threshold", 0.6),
        grades=grades,
        ambiguous=flags.get("ambiguous", False),
        tie_rule=tie_rule,
        escalated=True,
    )
    votes: dict[int, list[int]] = {}
    for by in grades.values():
        for cid, g in by.items():
            votes.setdefault(cid, []).append(g)
    rule = A.settling_tie_rule(tie_rule, escalated=True)
    finals = {} if reasons else {c: A.rule_resolution(v, tie_rule=rule) for c, v in votes.items()}
    return reasons, finals


# bob and carol two apart on candidate 11; dave, the third, sides with bob.
BOB = {10: 2, 11: 2, 12: 0, 13: 0, 14: 1}
CAROL = {10: 2, 11: 0, 12: 0, 13: 0, 14: 1}


def test_before_escalation_a_two_grade_split_is_flagged_and_escalates():
    reasons = A.flag_reasons(
        kappa=A.query_stats({1: BOB, 2: CAROL})["kappa"],
        threshold=0.6,
        grades={1: BOB, 2: CAROL},
        ambiguous=False,
        tie_rule="lower",
    )
    assert reasons == ["two_apart"]
    assert A.escalates(reasons, escalated=False)


@pytest.mark.parametrize("tie_rule", A.TIE_RULES)
def test_a_majority_outvotes_a_grade_two_apart(tie_rule):
    dave = {10: 2, 11: 2, 12: 0, 13: 0, 14: 1}
    grades = {1: BOB, 2: CAROL, 3: dave}
    # pairwise kappas: bob-carol 0.6875, bob-dave 1, carol-dave 0.6875 → mean 0.79
    assert A.query_stats(grades)["kappa"] == pytest.approx((0.6875 + 1 + 0.6875) / 3)
    assert settle(grades, tie_rule) == (
        [],
        {
            10: (2, "unanimous"),
            11: (2, "majority"),
            12: (0, "unanimous"),
            13: (0, "unanimous"),
            14: (1, "unanimous"),
        },
    )


def test_a_majority_for_the_lower_grade_decides_too():
    dave = {10: 2, 11: 0, 12: 0, 13: 0, 14: 1}
    reasons, finals = settle({1: BOB, 2: CAROL, 3: dave})
    assert (reasons, finals[11]) == ([], (0, "majority"))


def test_three_grades_without_a_majority_go_to_a_lead():
    dave = {10: 2, 11: 1, 12: 0, 13: 0, 14: 1}  # 2/0/1 on candidate 11
    assert settle({1: BOB, 2: CAROL, 3: dave}, kappa=0.9) == (["two_apart"], {})


def test_a_low_mean_pairwise_kappa_goes_to_a_lead_even_with_majorities():
    # dave agrees with bob on 11 but grades every other candidate off by one
    dave = {10: 1, 11: 2, 12: 1, 13: 1, 14: 2}
    grades = {1: BOB, 2: CAROL, 3: dave}
    assert A.query_stats(grades)["kappa"] < 0.6
    reasons, finals = settle(grades)
    assert (reasons, finals) == (["low_kappa"], {})


def test_after_escalation_ties_go_to_a_lead_whatever_the_tie_rule():
    # four annotators (a project of three, escalated once): 1/1/0/0 has no majority
    grades = {1: {10: 1, 11: 2}, 2: {10: 1, 11: 2}, 3: {10: 0, 11: 2}, 4: {10: 0, 11: 2}}
    for tie_rule in A.TIE_RULES:
        assert settle(grades, tie_rule, kappa=0.9) == (["tie"], {})


def test_an_ambiguity_mark_is_never_escalated_and_escalation_happens_once():
    assert not A.escalates(["ambiguous"], escalated=False)
    assert not A.escalates(["two_apart", "ambiguous"], escalated=False)
    assert A.escalates(["low_kappa"], escalated=False)
    assert A.escalates(["tie"], escalated=False)
    assert not A.escalates(["two_apart"], escalated=True)
    assert not A.escalates([], escalated=False)


def test_an_ambiguity_mark_still_flags_after_escalation():
    dave = dict(BOB)
    assert settle({1: BOB, 2: CAROL, 3: dave}, ambiguous=True)[0] == ["ambiguous"]


def test_the_lead_reads_only_the_split_without_a_majority():
    dave = {10: 2, 11: 2, 12: 2, 13: 0, 14: 1}  # 11: 2/0/2 has a majority; 12: 0/0/2 too
    grades = {1: BOB, 2: CAROL, 3: dave}
    names = {1: "bob", 2: "carol", 3: "dave"}
    numbers = {10: 1, 11: 2, 12: 3, 13: 4, 14: 5}
    sentences = A.flag_sentences(
        reasons=["two_apart"],
        kappa=None,
        threshold=0.6,
        grades=grades,
        names=names,
        chunk_numbers=numbers,
        ambiguous_by=[],
        escalated=True,
    )
    assert sentences == []
    split = {**dave, 11: 1}  # 2/0/1 on chunk 2
    sentences = A.flag_sentences(
        reasons=["two_apart"],
        kappa=None,
        threshold=0.6,
        grades={1: BOB, 2: CAROL, 3: split},
        names=names,
        chunk_numbers=numbers,
        ambiguous_by=[],
        escalated=True,
    )
    assert sentences == ["bob 2 and carol 0 on chunk 2"]


def _sklearn_mean_kappa(columns: list[list[int]]) -> float | None:
    kappas = []
    for i in range(len(columns)):
        for j in range(i + 1, len(columns)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                k = cohen_kappa_score(columns[i], columns[j])
            if not math.isnan(k):
                kappas.append(k)
    return sum(kappas) / len(kappas) if kappas else None


grade_lists = st.integers(min_value=1, max_value=8).flatmap(
    lambda n: st.lists(st.lists(st.integers(0, 2), min_size=n, max_size=n), min_size=3, max_size=4)
)


@settings(max_examples=300, deadline=None)
@given(columns=grade_lists, ambiguous=st.booleans(), tie_rule=st.sampled_from(A.TIE_RULES))
def test_an_escalated_querys_flags_follow_their_plain_statement(columns, ambiguous, tie_rule):
    """Flagged iff: the mean pairwise kappa (scikit-learn's, over the defined pairs) is below
    0.6, or some candidate has grades two apart and no majority, or it is marked ambiguous, or
    some candidate has no majority at all. Otherwise every candidate gets its majority grade."""
    grades = {a: dict(enumerate(col)) for a, col in enumerate(columns)}
    stats = A.query_stats(grades)
    expected_kappa = _sklearn_mean_kappa(columns)
    if expected_kappa is None:
        assert stats["kappa"] is None
    else:
        assert stats["kappa"] == pytest.approx(expected_kappa, abs=1e-9)
    reasons, finals = settle(grades, tie_rule, kappa=stats["kappa"], ambiguous=ambiguous)
    items = [[col[i] for col in columns] for i in range(len(columns[0]))]

    def majority(votes):
        top = max(votes.count(g) for g in set(votes))
        return top * 2 > len(votes)

    low = expected_kappa is not None and expected_kappa < 0.6
    apart = any(max(v) - min(v) == 2 and not majority(v) for v in items)
    no_majority = any(not majority(v) for v in items)
    assert ("low_kappa" in reasons) == low
    assert ("two_apart" in reasons) == apart
    assert ("ambiguous" in reasons) == ambiguous
    assert ("tie" in reasons) == (no_majority and not (low or apart or ambiguous))
    assert bool(reasons) == (low or no_majority or ambiguous)
    if not reasons:
        for i, votes in enumerate(items):
            grade = max(set(votes), key=votes.count)
            provenance = "unanimous" if len(set(votes)) == 1 else "majority"
            assert finals[i] == (grade, provenance)
