"""A machine judge's kappa against people equals scikit-learn's cohen_kappa_score, and its
bootstrap interval is reproducible, brackets the resampled kappas and shrinks with more
queries; the keyword stub grades by its stated shares."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from goldsmith.agreement import kappa_interval
from goldsmith.judges import keyword_overlap_grade

sklearn_metrics = pytest.importorskip("sklearn.metrics")

graded = st.integers(min_value=1, max_value=60).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 2), min_size=n, max_size=n),
        st.lists(st.integers(0, 2), min_size=n, max_size=n),
        st.lists(st.integers(0, 9), min_size=n, max_size=n),
    )
)


@given(graded)
@settings(max_examples=300, deadline=None)
def test_the_kappa_equals_scikit_learns(case):
    a, b, groups = case
    result = kappa_interval(a, b, groups, samples=50)
    assert result.n_items == len(a) and result.n_groups == len(set(groups))
    assert result.raw_agreement == pytest.approx(np.mean(np.array(a) == np.array(b)))
    if len(set(a) | set(b)) == 1:  # every grade the same: undefined, as documented
        assert result.kappa is None and result.low is None
        return
    expected = sklearn_metrics.cohen_kappa_score(a, b)
    if math.isnan(expected):  # scikit-learn gives NaN where chance agreement is 1
        assert result.kappa is None
    else:
        assert result.kappa == pytest.approx(expected, abs=1e-12)


@given(graded, st.integers(0, 2**31))
@settings(max_examples=100, deadline=None)
def test_the_interval_is_reproducible_and_ordered(case, seed):
    a, b, groups = case
    assume(len(set(a) | set(b)) > 1)
    first = kappa_interval(a, b, groups, samples=200, seed=seed)
    second = kappa_interval(a, b, groups, samples=200, seed=seed)
    assert first == second
    if first.low is not None:
        assert -1.0 - 1e-9 <= first.low <= first.high <= 1.0 + 1e-9


def test_the_interval_resamples_whole_queries_and_narrows_with_more_of_them():
    rng = np.random.default_rng(7)

    def width(queries: int) -> float:
        n = queries * 8
        a = rng.integers(0, 3, n)
        b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 3, n))
        r = kappa_interval(a, b, np.repeat(np.arange(queries), 8), samples=500, seed=1)
        assert r.low is not None and r.low <= r.kappa <= r.high
        return r.high - r.low

    assert width(200) < width(20)


def test_no_items_give_no_figures():
    r = kappa_interval([], [], [])
    assert (r.kappa, r.low, r.high, r.raw_agreement, r.n_items) == (None, None, None, None, 0)


@pytest.mark.parametrize(
    ("query", "chunk", "grade"),
    [
        ("how to install python", "Run the installer to install Python.", 2),  # 2 of 2
        ("install python package manager", "pip is a package tool", 1),  # 1 of 4 = 0.25
        ("install python package manager offline today", "a package", 0),  # 1 of 6 < 0.2
        ("the cat", "a dog", 0),
        ("how is it", "anything", 0),  # no content words
    ],
)
def test_the_keyword_stub_grades_by_the_share_of_query_words(query, chunk, grade):
    got, reason = keyword_overlap_grade(query, chunk)
    assert got == grade and reason
