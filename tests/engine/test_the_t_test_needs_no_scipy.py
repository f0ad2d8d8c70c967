"""The paired t-test's p-value comes from our own Student's t tail, not from scipy.stats:
importing scipy.stats cost a web process 1-3 s on its first comparison page. The tail must
still be exact: equal to closed forms, to a 150-digit reference and to scipy's ttest_rel."""

from __future__ import annotations

import math
from decimal import Decimal, getcontext

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith.stats import paired_t_test, student_t_two_sided
from tests.test_the_layers_import_one_way import run_python


def two_sided_even_df(t: float, df: int) -> float:
    """P(|T| ≥ t) for even df from the finite sum (Abramowitz & Stegun 26.7.3),
    1 − sin θ · Σ_{k<df/2} c_k cos^{2k} θ with c_k = c_{k−1}(2k − 1)/(2k), in 150 digits
    (the subtraction cancels as many digits as the tail has leading zeros)."""
    getcontext().prec = 150
    t2, n = Decimal(t) * Decimal(t), Decimal(df)
    sin, cos2 = Decimal(t) / (n + t2).sqrt(), n / (n + t2)
    term = total = Decimal(1)
    for k in range(1, df // 2):
        term = term * cos2 * (2 * k - 1) / (2 * k)
        total += term
    return float(1 - sin * total)


def relative(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


def test_one_and_two_degrees_of_freedom_equal_their_closed_forms():
    for t in np.logspace(-12, 100, 400).tolist():
        cauchy = 2 / math.pi * math.atan2(1, t)  # df = 1
        s = math.sqrt(2 + t * t)
        df2 = 2 / (s * (s + t))  # df = 2: 1 − t/√(2 + t²), without cancellation
        assert relative(student_t_two_sided(t, 1), cauchy) < 1e-13, t
        assert relative(student_t_two_sided(-t, 2), df2) < 1e-13, t


@pytest.mark.parametrize("df", [4, 10, 38, 40, 42, 200, 1000, 10_000])
def test_the_tail_equals_a_150_digit_reference(df):
    for t in (0.01, 0.3, 1.0, 1.96, 2.5, 4.0, 9.0, 30.0):
        reference = two_sided_even_df(t, df)
        if reference > 1e-100:
            assert relative(student_t_two_sided(t, df), reference) < 1e-12, (df, t)


def test_the_tail_is_one_at_zero_and_zero_at_infinity():
    assert student_t_two_sided(0.0, 5) == 1.0
    assert student_t_two_sided(math.inf, 5) == 0.0
    assert student_t_two_sided(1e200, 5) == 0.0
    assert math.isnan(student_t_two_sided(math.nan, 5))


metric_values = st.sampled_from([0.0, 0.1, 0.2, 0.25, 1 / 3, 0.5, 2 / 3, 0.75, 0.9, 1.0])


@given(
    st.integers(min_value=2, max_value=400).flatmap(
        lambda n: st.tuples(
            st.lists(metric_values, min_size=n, max_size=n),
            st.lists(metric_values, min_size=n, max_size=n),
        )
    )
)
@settings(max_examples=300, deadline=None)
def test_paired_p_values_equal_scipys_ttest_rel(pair):
    from scipy import stats as sps

    a, b = np.array(pair[0]), np.array(pair[1])
    got = float(paired_t_test(a, b)[0])
    d = b - a
    if np.all(d == 0):
        assert got == 1.0
    elif np.ptp(d) == 0:
        assert math.isnan(got)
    else:
        expected = float(sps.ttest_rel(b, a).pvalue)
        assert relative(got, expected) < 1e-12


def test_the_t_test_takes_every_column_at_once():
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 8, (50, 4)) / 8, rng.integers(0, 8, (50, 4)) / 8
    b[:, 1] = a[:, 1]  # no difference: p = 1
    b[:, 2] = a[:, 2] + 0.25  # a constant difference: undefined
    p = paired_t_test(a, b)
    assert p[1] == 1.0 and math.isnan(p[2])
    for j in (0, 3):
        assert p[j] == float(paired_t_test(a[:, j], b[:, j])[0])


def test_comparing_two_runs_does_not_import_scipy():
    code = (
        "import sys\n"
        "import numpy as np\n"
        "from goldsmith import metrics as M\n"
        "j = {f'q{i}': {'a': 2, 'b': 1, 'c': 0} for i in range(30)}\n"
        "ra = {q: ['a', 'c'] if i % 2 else ['c', 'b'] for i, q in enumerate(j)}\n"
        "rb = {q: ['b', 'a'] if i % 3 else ['c'] for i, q in enumerate(j)}\n"
        "names = ['recall@2', 'ndcg@2', 'mrr@2']\n"
        "rows = M.compare(M.evaluate(j, ra, names), M.evaluate(j, rb, names), samples=50)\n"
        "assert all(r.p_ttest == r.p_ttest for r in rows)\n"
        "print(sorted(n for n in sys.modules if n.split('.')[0] == 'scipy'))\n"
    )
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
