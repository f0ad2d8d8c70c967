"""A project may flag queries on Gwet's AC1 or on AC2 with linear weights instead of kappa
(issue 22, §3: per-query kappa over mostly "not relevant" pools is low even when people agree).
The per-query figures the flag rule reads equal the irrCAC package's, whether computed one
query at a time (`query_stats`) or all at once (`two_rater_query_stats`), and the flag rule
compares the chosen one with the threshold."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith import agreement as A

pd = pytest.importorskip("pandas")
raw = pytest.importorskip("irrCAC.raw", reason="irrCAC is installed by `make install`")

SCALE = [0, 1, 2]


def irrcac(m: np.ndarray, weights: str) -> float | None:
    frame = pd.DataFrame(m, columns=[f"r{i}" for i in range(m.shape[1])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(
            raw.CAC(frame, weights=weights, categories=SCALE).gwet()["est"]["coefficient_value"]
        )
    return None if np.isnan(value) else value


queries = st.integers(2, 3).flatmap(
    lambda n: st.lists(
        st.lists(st.sampled_from(SCALE), min_size=n, max_size=n), min_size=2, max_size=30
    )
)


def as_grades(rows: list[list[int]]) -> dict[int, dict[int, int]]:
    return {a: {i: row[a] for i, row in enumerate(rows)} for a in range(len(rows[0]))}


@settings(max_examples=200, deadline=None)
@given(queries)
def test_a_querys_ac2_with_linear_weights_is_irrcacs_over_the_grade_scale(rows):
    stats = A.query_stats(as_grades(rows))
    m = np.array(rows, dtype=float)
    # irrCAC rounds to 5 decimals; a value on the rounding boundary errs by a bit more
    assert stats["ac2_linear"] == pytest.approx(irrcac(m, "linear"), abs=5e-6 + 1e-12)
    assert A.flag_kappa(stats, A.AC2_LINEAR) == stats["ac2_linear"]
    assert A.flag_kappa(stats, A.AC1) == stats["ac1"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.lists(st.sampled_from(SCALE), min_size=2, max_size=2), min_size=2, max_size=30),
        min_size=1,
        max_size=6,
    )
)
def test_many_queries_at_once_give_each_querys_own_ac1_and_ac2(many):
    grades = {q: as_grades(rows) for q, rows in enumerate(many)}
    at_once = A.two_rater_query_stats(grades, grades)
    for q in range(len(many)):
        one = A.query_stats(grades[q])
        for name in ("ac1", "ac2_linear", "kappa", "kappa_linear", "raw_agreement"):
            if one[name] is None:
                assert at_once[q][name] is None, name
            else:
                assert at_once[q][name] == pytest.approx(one[name], abs=1e-12), name


def test_mostly_irrelevant_agreement_flags_on_kappa_and_not_on_ac1():
    # 28 chunks both grade 0, one 0/1 and one 1/1: 97 % agreement, kappa about 0.65 or lower,
    # but AC1 near 1 (the kappa paradox).
    rows = [[0, 0]] * 27 + [[0, 1], [1, 0], [1, 1]]
    grades = as_grades(rows)
    stats = A.query_stats(grades)
    assert stats["kappa"] < 0.6 < stats["ac1"]

    def reasons(weights):
        return A.flag_reasons(
            kappa=A.flag_kappa(stats, weights),
            threshold=0.6,
            grades=grades,
            ambiguous=False,
            tie_rule=A.LOWER,
        )

    assert reasons(A.UNWEIGHTED) == [A.LOW_KAPPA]
    assert reasons(A.AC1) == [] and reasons(A.AC2_LINEAR) == []


def test_an_unknown_coefficient_is_refused_by_name():
    with pytest.raises(ValueError, match="ac3"):
        A.flag_kappa({"kappa": 0.5}, "ac3")
