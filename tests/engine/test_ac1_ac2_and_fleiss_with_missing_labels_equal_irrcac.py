"""Gwet's AC1, AC2 (linear weights) and Fleiss' kappa with missing labels equal the irrCAC
package (Gwet's own definitions), on random rating tables where items have one, two or more
labels; irrCAC rounds to 5 decimals, so values agree within half a unit of the fifth decimal
(5e-6), plus the binary error of a value that sits on the rounding boundary (−0.171875, which
irrCAC prints −0.17188)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith import agreement as A

pd = pytest.importorskip("pandas")
raw = pytest.importorskip("irrCAC.raw", reason="irrCAC is installed by `make install`")

CATEGORIES = [0, 1, 2]

ROUNDED = 5e-6 + 1e-12  # irrCAC's 5 decimals, and a boundary value's binary error


@st.composite
def tables(draw: st.DrawFn) -> np.ndarray:
    """items × annotators, NaN = not labelled; every item has a label, one has two, and there
    are two items at least (irrCAC's variance needs them)."""
    n_items = draw(st.integers(2, 12))
    n_raters = draw(st.integers(2, 5))
    cell = st.one_of(st.none(), st.sampled_from(CATEGORIES))
    rows = [draw(st.lists(cell, min_size=n_raters, max_size=n_raters)) for _ in range(n_items)]
    m = np.array([[np.nan if v is None else v for v in r] for r in rows], dtype=float)
    m = m[(~np.isnan(m)).sum(axis=1) >= 1]
    if len(m) < 2 or not ((~np.isnan(m)).sum(axis=1) >= 2).any():
        pad = [np.nan] * (n_raters - 2)
        m = np.vstack([m.reshape(-1, n_raters), [[0.0, 1.0, *pad], [1.0, np.nan, *pad]]])
    return m


def irrcac(m: np.ndarray, method: str, weights: str = "identity") -> float | None:
    frame = pd.DataFrame(m, columns=[f"r{i}" for i in range(m.shape[1])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cac = raw.CAC(frame, weights=weights, categories=CATEGORIES)
        try:
            value = float(getattr(cac, method)()["est"]["coefficient_value"])
        except ZeroDivisionError:  # chance agreement 1: undefined
            return None
    return None if np.isnan(value) else value


@settings(max_examples=300, deadline=None)
@given(tables())
def test_ac1_equals_irrcac_gwet(m):
    ours = A.gwet_ac1(m, CATEGORIES)
    assert ours == pytest.approx(irrcac(m, "gwet"), abs=ROUNDED)


@settings(max_examples=300, deadline=None)
@given(tables())
def test_ac2_with_linear_weights_equals_irrcac_gwet_linear(m):
    ours = A.gwet_ac2(m, CATEGORIES, weights="linear")
    assert ours == pytest.approx(irrcac(m, "gwet", "linear"), abs=ROUNDED)


@settings(max_examples=300, deadline=None)
@given(tables())
def test_fleiss_kappa_equals_irrcacs_extension_to_missing_labels(m):
    theirs = irrcac(m, "fleiss")
    ours = A.fleiss_kappa(m, CATEGORIES)
    assert ours == pytest.approx(theirs, abs=ROUNDED) if theirs is not None else ours is None


def test_an_item_labelled_once_counts_in_the_category_shares():
    # Item 3 has one label (2): it moves π, so AC1 is not the AC1 of items 1 and 2 alone.
    m = np.array([[0, 0], [0, 1], [2, np.nan]], dtype=float)
    with_single = A.gwet_ac1(m, CATEGORIES)
    without = A.gwet_ac1(m[:2], CATEGORIES)
    assert with_single != pytest.approx(without)
    assert with_single == pytest.approx(irrcac(m, "gwet"), abs=ROUNDED)


def test_the_report_gives_ac2_beside_ac1_and_fleiss():
    m = np.array([[0, 1, np.nan], [2, 2, 2], [1, np.nan, 1], [0, 0, 1]], dtype=float)
    report = A.agreement_report(m, categories=CATEGORIES)
    assert report.gwet_ac2_linear == pytest.approx(irrcac(m, "gwet", "linear"), abs=ROUNDED)
    assert report.gwet_ac1 == pytest.approx(irrcac(m, "gwet"), abs=ROUNDED)
    assert report.fleiss_kappa == pytest.approx(irrcac(m, "fleiss"), abs=ROUNDED)
