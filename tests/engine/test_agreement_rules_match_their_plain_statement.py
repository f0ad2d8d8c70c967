"""A query's flags, its final grades by rule, its statistics and the project's pooled figures,
on generated grades, against a plain re-statement of each rule (docs/design.md "Agreement
conventions") or against the one-group functions they must equal."""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith import agreement as A

grade = st.integers(min_value=0, max_value=2)
votes = st.lists(grade, max_size=7)


def query_grades(min_annotators: int = 1) -> st.SearchStrategy[dict[int, dict[int, int]]]:
    """annotator → candidate → grade; every annotator graded at least one candidate."""
    return st.dictionaries(
        st.integers(min_value=1, max_value=6),
        st.dictionaries(st.integers(min_value=100, max_value=106), grade, min_size=1),
        min_size=min_annotators,
        max_size=4,
    )


def plain_rule(grades: list[int], tie_rule: str = "lead") -> tuple[int, str] | None:
    """Unanimous when every grade is the same; else the grade more than half the votes gave;
    else, when the grades are one apart, the lower one ("tie → lower") or the higher one
    ("tie → higher") as the tie rule says; else none (the lead's, or nothing to resolve)."""
    if not grades:
        return None
    if len(set(grades)) == 1:
        return grades[0], "unanimous"
    for g in set(grades):
        if 2 * grades.count(g) > len(grades):
            return g, "majority"
    if max(grades) - min(grades) == 1 and tie_rule == "lower":
        return min(grades), "tie_lower"
    if max(grades) - min(grades) == 1 and tie_rule == "higher":
        return max(grades), "tie_higher"
    return None


tie_rules = st.sampled_from(["lower", "higher", "lead"])


@given(votes, tie_rules)
@settings(max_examples=300, deadline=None)
def test_the_resolution_rule_is_unanimous_else_majority_else_the_tie_rule(grades, tie_rule):
    assert A.rule_resolution(grades, tie_rule=tie_rule) == plain_rule(grades, tie_rule)


def test_the_rule_names_are_the_stored_provenances():
    assert A.rule_resolution([2, 2], tie_rule=A.LEAD) == (2, A.UNANIMOUS) == (2, "unanimous")
    assert A.rule_resolution([1, 1, 0], tie_rule=A.LEAD) == (1, A.MAJORITY) == (1, "majority")
    assert A.rule_resolution([2, 1], tie_rule=A.LOWER) == (1, A.TIE_LOWER) == (1, "tie_lower")
    assert A.rule_resolution([2, 1], tie_rule=A.HIGHER) == (2, A.TIE_HIGHER) == (2, "tie_higher")


def test_an_unknown_tie_rule_is_refused():
    with pytest.raises(ValueError, match="unknown tie rule"):
        A.rule_resolution([1, 0], tie_rule="coin")


@given(
    query_grades(),
    st.none() | st.floats(min_value=-1, max_value=1),
    st.floats(min_value=0, max_value=1),
    st.booleans(),
    tie_rules,
)
@settings(max_examples=300, deadline=None)
def test_flag_reasons_follow_the_rules_in_their_order(
    grades, kappa, threshold, ambiguous, tie_rule
):
    per_candidate: dict[int, list[int]] = {}
    for by_candidate in grades.values():
        for cid, g in by_candidate.items():
            per_candidate.setdefault(cid, []).append(g)
    expected = []
    if kappa is not None and kappa < threshold:
        expected.append("low_kappa")
    if any(
        abs(a - b) == 2 for gs in per_candidate.values() for a, b in itertools.combinations(gs, 2)
    ):
        expected.append("two_apart")
    if ambiguous:
        expected.append("ambiguous")
    if not expected and any(plain_rule(gs, tie_rule) is None for gs in per_candidate.values()):
        expected.append("tie")
    got = A.flag_reasons(
        kappa=kappa, threshold=threshold, grades=grades, ambiguous=ambiguous, tie_rule=tie_rule
    )
    assert got == expected


def test_an_undefined_kappa_is_never_low():
    grades = {1: {10: 0, 11: 0}, 2: {10: 0, 11: 0}}
    for tie_rule in A.TIE_RULES:
        assert (
            A.flag_reasons(
                kappa=None, threshold=0.6, grades=grades, ambiguous=False, tie_rule=tie_rule
            )
            == []
        )


def same(got: float | None, expected: float | None) -> bool:
    if expected is None:
        return got is None
    return got is not None and abs(got - expected) < 1e-12


def report_of(grades: dict[int, dict[int, int]]) -> A.AgreementReport:
    """The query as a labels file's group would be: a candidates × annotators matrix."""
    annotators = sorted(grades)
    items = sorted({cid for by in grades.values() for cid in by})
    m = np.full((len(items), len(annotators)), np.nan)
    for j, uid in enumerate(annotators):
        for cid, g in grades[uid].items():
            m[items.index(cid), j] = g
    return A.agreement_report(m)


@given(query_grades())
@settings(max_examples=200, deadline=None)
def test_a_querys_stats_are_its_group_report(grades):
    stats = A.query_stats(grades)
    report = report_of(grades)
    assert stats["n_annotators"] == report.n_annotators
    assert stats["n_items"] == report.n_items
    assert same(stats["kappa"], report.cohen_kappa)
    assert same(stats["kappa_linear"], report.cohen_kappa_linear)
    assert same(stats["raw_agreement"], report.percent_agreement)
    assert same(stats["ac1"], report.gwet_ac1)


def test_a_query_with_no_grade_has_no_figure():
    assert A.query_stats({}) == {
        "n_annotators": 0,
        "n_items": 0,
        "kappa": None,
        "kappa_linear": None,
        "raw_agreement": None,
        "ac1": None,
        "ac2_linear": None,
    }


@given(st.dictionaries(st.integers(min_value=1, max_value=40), query_grades(), max_size=12))
@settings(max_examples=100, deadline=None)
def test_many_queries_at_once_equal_one_at_a_time(grades):
    at_once = A.two_rater_query_stats(grades, list(grades))
    complete_pairs = {
        qid
        for qid, by in grades.items()
        if len(by) == 2 and len({frozenset(c) for c in by.values()}) == 1
    }
    assert set(at_once) == complete_pairs
    for qid, stats in at_once.items():
        one = A.query_stats(grades[qid])
        assert stats["n_annotators"] == one["n_annotators"]
        assert stats["n_items"] == one["n_items"]
        for name in ("kappa", "kappa_linear", "raw_agreement", "ac1"):
            assert same(stats[name], one[name]), name


class Label(NamedTuple):
    item: str
    annotator: str
    label: int
    group: str | None


project_grades = st.dictionaries(
    st.integers(min_value=1, max_value=30), query_grades(min_annotators=1), min_size=1, max_size=8
)


def export_rows(grades: dict[int, dict[int, dict[int, int]]]) -> np.ndarray:
    """int64[n, 4] (query, candidate, annotator, grade), in the export's order; candidate ids
    are made unique per query, as they are in the database."""
    rows = [
        (qid, qid * 1000 + cid, uid, g)
        for qid, by in grades.items()
        for uid, by_candidate in by.items()
        for cid, g in by_candidate.items()
    ]
    out = np.array(rows, dtype=np.int64).reshape(-1, 4)
    return out[np.lexsort((out[:, 2], out[:, 1], out[:, 0]))]


@given(project_grades)
@settings(max_examples=100, deadline=None)
def test_the_pooled_figures_equal_the_labels_files_report(grades):
    rows = export_rows(grades)
    names = {uid: f"annotator {uid}" for uid in rows[:, 2].tolist()}
    pooled = A.pooled_agreement(rows, names)
    report = A.agreement_by_group(
        [Label(str(c), names[u], g, str(q)) for q, c, u, g in rows.tolist()]
    ).pooled
    assert pooled["items"] == report.n_items
    assert same(pooled["alpha_ordinal"], report.krippendorff_alpha_ordinal)
    assert same(pooled["raw_agreement"], report.percent_agreement)
    assert same(pooled["ac1"], report.gwet_ac1)
    shared = [p for p in report.pairwise if p.n_items]
    assert [(p["a"], p["b"], p["n"]) for p in pooled["pairwise"]] == [
        (p.annotator_a, p.annotator_b, p.n_items) for p in shared
    ]
    for got, expected in zip(pooled["pairwise"], shared, strict=True):
        assert same(got["kappa"], expected.kappa)
    assert same(pooled["kappa"], report.cohen_kappa)


def test_no_judgment_gives_no_pooled_figure():
    pooled = A.pooled_agreement(np.zeros((0, 4), dtype=np.int64), {})
    assert pooled["items"] == 0 and pooled["pairwise"] == [] and pooled["alpha_ordinal"] is None


@given(project_grades, st.data())
@settings(max_examples=60, deadline=None)
def test_agreement_with_the_final_grades_is_the_share_of_matching_grades(grades, data):
    rows = export_rows(grades)
    candidates = sorted(set(rows[:, 1].tolist()))
    final = {c: data.draw(grade) for c in candidates if data.draw(st.booleans())}
    finals = np.array(sorted(final.items()), dtype=np.int64).reshape(-1, 2)
    volume, agreement = A.agreement_with_final(rows, finals)
    for uid in set(rows[:, 2].tolist()):
        mine = [(c, g) for _, c, u, g in rows.tolist() if u == uid]
        assert volume[uid] == len(mine)
        with_final = [g == final[c] for c, g in mine if c in final]
        if with_final:
            assert agreement[uid] == pytest.approx(sum(with_final) / len(with_final), abs=1e-12)
        else:
            assert agreement[uid] is None
    assert set(volume) == set(agreement) == set(rows[:, 2].tolist())


@given(
    st.lists(st.none() | st.floats(min_value=-1, max_value=1), max_size=40),
    st.floats(min_value=0, max_value=1),
)
@settings(max_examples=200, deadline=None)
def test_every_query_falls_in_one_kappa_bin(kappas, threshold):
    bins = A.kappa_histogram(kappas, threshold)
    assert [b["label"] for b in bins] == [
        "unanimous",
        "< 0",
        "0–.2",
        ".2–.4",
        ".4–.6",
        ".6–.8",
        ".8–1",
    ]
    assert sum(b["count"] for b in bins) == len(kappas)
    assert bins[0]["count"] == sum(k is None for k in kappas)
    edges = [0.0, 0.2, 0.4, 0.6, 0.8]
    for k in kappas:
        if k is not None:
            assert bins[1 + sum(k >= e for e in edges)]["count"] > 0
    assert [b["low"] for b in bins[1:]] == [hi <= threshold for hi in [*edges, np.inf]]
