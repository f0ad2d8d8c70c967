"""A metric's bootstrap resample means, and so its CI, are the same to the last bit whatever
other metrics are asked with it: `goldsmith eval` asks fewer metrics than the app's report,
and the two must print the same interval (tests/engine/test_goldsmith_eval_reports_what_the_app_
reports.py). A matrix product over all columns at once let BLAS pick its kernel by their
number, and the last bit moved."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith import stats


@given(
    rows=st.integers(1, 300),
    columns=st.integers(1, 24),
    pick=st.data(),
    seed=st.integers(0, 2**16),
    weighted=st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_a_columns_resample_means_do_not_depend_on_the_others(rows, columns, pick, seed, weighted):
    rng = np.random.default_rng(seed)
    values = rng.random((rows, columns))
    weights = rng.random(rows) + 0.1 if weighted else None
    asked = pick.draw(st.lists(st.integers(0, columns - 1), min_size=1, unique=True))
    every = stats.bootstrap_means(values, samples=50, seed=seed, weights=weights)
    some = stats.bootstrap_means(values[:, asked], samples=50, seed=seed, weights=weights)
    assert np.array_equal(every[:, asked], some, equal_nan=True)
