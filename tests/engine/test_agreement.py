"""Agreement coefficients against scikit-learn, the krippendorff package and textbook cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from goldsmith import agreement as A
from goldsmith.formats.labels import LabelRow

nan = math.nan


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_equals_scikit_learn(seed, weights):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 60))
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.6, a, rng.integers(0, 3, n))
    ours = A.cohen_kappa(a, b, weights)
    theirs = cohen_kappa_score(a, b, weights=weights, labels=[0, 1, 2])
    if np.isnan(theirs):
        assert ours is None
    else:
        assert ours == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_krippendorff_alpha_equals_the_krippendorff_package(seed, level):
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(seed)
    n, raters = int(rng.integers(3, 40)), int(rng.integers(2, 6))
    m = rng.integers(0, 3, (n, raters)).astype(float)
    m[rng.random((n, raters)) < 0.3] = nan  # missing labels
    ours = A.krippendorff_alpha(m, level)
    if len(np.unique(m[~np.isnan(m)])) < 2 or ((~np.isnan(m)).sum(axis=1) >= 2).sum() == 0:
        assert ours is None
        return
    theirs = krippendorff.alpha(reliability_data=m.T, level_of_measurement=level)
    assert ours == pytest.approx(theirs, abs=1e-9)


def test_fleiss_kappa_matches_the_textbook_example():
    # Fleiss (1971) / Wikipedia: 10 subjects, 14 raters, 5 categories; kappa = 0.210.
    table = [
        [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
    ]  # fmt: skip
    ratings = [[k for k, c in enumerate(row) for _ in range(c)] for row in table]
    assert A.fleiss_kappa(ratings) == pytest.approx(0.20993, abs=1e-5)


def test_gwet_ac1_and_kappa_on_a_hand_computed_case():
    # 10 items, 8 agreements; both annotators say 1 eight times.
    a = [1, 1, 1, 1, 1, 1, 1, 1, 0, 0]
    b = [1, 1, 1, 1, 1, 1, 1, 0, 1, 0]
    # pa = 0.8; Cohen pe = .8*.8 + .2*.2 = .68; AC1 pe = 2 * .8 * .2 / (2 - 1) = .32
    assert A.cohen_kappa(a, b) == pytest.approx((0.8 - 0.68) / (1 - 0.68))
    assert A.gwet_ac1(np.column_stack([a, b])) == pytest.approx((0.8 - 0.32) / (1 - 0.32))
    assert A.percent_agreement(np.column_stack([a, b])) == pytest.approx(0.8)


def test_ac1_stays_high_where_kappa_collapses_on_skewed_pools():
    # the kappa paradox: nearly everything "not relevant", one disagreement
    a = [0] * 19 + [1]
    b = [0] * 20
    assert A.cohen_kappa(a, b) == pytest.approx(0.0)
    assert A.gwet_ac1(np.column_stack([a, b])) > 0.9


def test_identical_labels_make_kappa_undefined_and_the_group_unanimous():
    report = A.agreement_report([[0, 0], [0, 0], [0, 0]], ["ann", "bob"])
    assert report.unanimous
    assert report.cohen_kappa is None and report.fleiss_kappa is None
    assert report.krippendorff_alpha_ordinal is None
    assert report.percent_agreement == 1.0 and report.gwet_ac1 == 1.0


def test_full_agreement_on_varied_labels_is_kappa_one_not_unanimous():
    report = A.agreement_report([[2, 2], [0, 0], [1, 1]])
    assert report.cohen_kappa == pytest.approx(1.0) and not report.unanimous


def test_cohen_uses_only_items_both_annotators_labelled():
    a = [0, 1, 2, None, 2]
    b = [0, 1, 2, 1, None]
    assert A.cohen_kappa(a, b) == pytest.approx(1.0)
    assert A.cohen_kappa([None, 1], [1, None]) is None


def test_weighted_kappa_uses_label_values_as_distances():
    # labels 0 and 2 only: a one-step miss is two grades apart
    a, b = [0, 2, 0, 2], [0, 2, 2, 2]
    assert A.cohen_kappa(a, b, "linear") == pytest.approx(A.cohen_kappa(a, b, "quadratic"))
    assert A.cohen_kappa([0, 1, 2, 2], [0, 2, 2, 2], "linear", categories=[0, 1, 2]) is not None


def test_more_than_two_annotators_get_mean_pairwise_kappa_and_fleiss():
    m = np.array([[0, 0, 1], [1, 1, 1], [2, 2, 2], [0, 1, 0], [2, 2, 1]], dtype=float)
    report = A.agreement_report(m, ["a", "b", "c"])
    pairs = [A.cohen_kappa(m[:, i], m[:, j]) for i, j in [(0, 1), (0, 2), (1, 2)]]
    assert report.cohen_kappa == pytest.approx(np.mean(pairs))
    assert [(p.annotator_a, p.annotator_b) for p in report.pairwise] == [
        ("a", "b"),
        ("a", "c"),
        ("b", "c"),
    ]
    assert report.fleiss_kappa == pytest.approx(A.fleiss_kappa(m))
    assert report.max_label_gap == 1


def test_any_ordinal_integers_are_accepted():
    a, b = [-1, 1, 1, 0, 0], [-1, 1, 0, 0, 1]
    theirs = cohen_kappa_score(a, b, weights="quadratic", labels=[-1, 0, 1])
    assert A.cohen_kappa(a, b, "quadratic") == pytest.approx(theirs)
    with pytest.raises(ValueError):
        A.cohen_kappa([0.5, 1], [1, 1])


def test_groups_get_their_own_reports_and_a_pooled_one():
    rows = [
        LabelRow("c1", "ann", 2, "q1"), LabelRow("c1", "bob", 0, "q1"),
        LabelRow("c2", "ann", 1, "q1"), LabelRow("c2", "bob", 1, "q1"),
        LabelRow("c1", "ann", 0, "q2"), LabelRow("c1", "bob", 0, "q2"),
    ]  # fmt: skip
    grouped = A.agreement_by_group(rows)
    assert grouped.pooled.n_items == 3
    assert grouped.groups["q1"].max_label_gap == 2
    assert grouped.groups["q2"].unanimous and grouped.groups["q2"].cohen_kappa is None
    doc = grouped.to_json()
    assert doc["groups"]["q2"]["unanimous"] is True and "pairwise" in doc
