"""The vectorised per-query statistics equal the one-group functions, query by query."""

from __future__ import annotations

import numpy as np
import pytest

from goldsmith import agreement as pure


def same(vectorised: float, one_group: float | None) -> bool:
    if one_group is None:
        return bool(np.isnan(vectorised))
    return abs(vectorised - one_group) < 1e-12


@pytest.mark.parametrize("seed", range(8))
def test_two_rater_group_stats_equal_the_one_group_functions(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 31, size=300)
    group = np.repeat(np.arange(300) * 7 + 3, sizes)  # ids need not be consecutive
    a = rng.choice([0, 1, 2], size=len(group), p=[0.7, 0.2, 0.1]).astype(float)
    # mostly agreeing, sometimes one grade off, sometimes anything; some groups all-zero
    b = np.where(rng.random(len(group)) < 0.8, a, rng.integers(0, 3, len(group))).astype(float)
    silent = np.isin(group, group[:: max(1, len(group) // 20)])
    a[silent] = b[silent] = 0.0
    result = pure.two_rater_group_stats(group, a, b)
    for i, g in enumerate(result.groups):
        rows = group == g
        m = np.column_stack([a[rows], b[rows]])
        assert result.n_items[i] == rows.sum()
        assert same(result.kappa[i], pure.cohen_kappa(m[:, 0], m[:, 1]))
        assert same(result.kappa_linear[i], pure.cohen_kappa(m[:, 0], m[:, 1], "linear"))
        assert same(result.percent_agreement[i], pure.percent_agreement(m))
        assert same(result.ac1[i], pure.gwet_ac1(m))


def test_a_unanimous_query_has_an_undefined_kappa():
    group = np.array([1, 1, 1])
    grades = np.array([0.0, 0.0, 0.0])
    result = pure.two_rater_group_stats(group, grades, grades)
    assert np.isnan(result.kappa[0]) and np.isnan(result.kappa_linear[0])
    assert result.percent_agreement[0] == 1.0 and result.ac1[0] == 1.0
