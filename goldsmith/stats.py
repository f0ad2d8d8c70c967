"""Resampling statistics for metric means: bootstrap CIs, paired tests, Holm correction.

Pure module (numpy and the standard library; no scipy: importing ``scipy.stats`` cost a web
process 1-3 s on its first comparison, and its t-test 4 ms a metric). Every random procedure
takes a seed and draws from ``numpy.random.default_rng(seed)``, so results are reproducible.
Values are ``float[n, m]``: n queries (rows, resampled together) by m metrics (columns).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
# Resamples are drawn in batches of about this many cells to bound memory (the batch size
# decides the random stream: changing it changes every CI and p-value drawn)...
_BATCH_CELLS = 4_000_000
# ...and turned into floats a block of about this many cells at a time (2 MB), which stays in
# the CPU's cache and spares a fresh process the page faults of a 32 MB array.
_BLOCK_CELLS = 262_144


def _as_matrix(values: FloatArray) -> FloatArray:
    v = np.asarray(values, dtype=np.float64)
    return v.reshape(len(v), -1)


def _distinct_columns(v: FloatArray) -> tuple[FloatArray, NDArray[np.intp]]:
    """The distinct columns of ``v`` and, for each column, the index of its distinct column.

    Metrics often repeat one another per query (hit@1 = precision@1 = MRR@1; judged@K = 1
    everywhere): resampling procedures that draw once for all columns give an identical
    column the identical result, so they compute each distinct column once."""
    if v.shape[1] < 2:
        return v, np.zeros(v.shape[1], dtype=np.intp)
    first: dict[bytes, int] = {}  # a column's bytes → its distinct column (bit-for-bit equal)
    inverse = [first.setdefault(column.tobytes(), len(first)) for column in v.T.copy()]
    if len(first) == v.shape[1]:
        return v, np.arange(v.shape[1], dtype=np.intp)
    keep = np.unique(inverse, return_index=True)[1]
    return v[:, keep], np.asarray(inverse, dtype=np.intp)


def bootstrap_means(
    values: FloatArray, *, samples: int, seed: int, weights: FloatArray | None = None
) -> FloatArray:
    """Means of ``samples`` bootstrap resamples of the rows: ``float[samples, m]``.

    A resample is stored as per-row draw counts c (a multinomial(n, 1/n) vector), so its
    (weighted) mean is c·(w∘v) / c·w: a product of the count table and each distinct column, one
    column at a time, so that a column's means do not depend on which other columns are asked
    with it (a matrix product over all columns at once lets BLAS pick its kernel by their number,
    and the last bit of a CI then moved with the metrics asked)."""
    v, columns = _distinct_columns(_as_matrix(values))
    n = len(v)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    wv = np.ascontiguousarray((v * w[:, None]).T)
    rng = np.random.default_rng(seed)
    out = np.empty((samples, v.shape[1]))
    batch = max(1, _BATCH_CELLS // max(n, 1))
    block = max(1, _BLOCK_CELLS // max(n, 1))
    counts = np.empty((min(block, samples), n))
    for lo in range(0, samples, batch):
        b = min(batch, samples - lo)
        draws = rng.integers(0, n, size=(b, n), dtype=np.int32)
        for first in range(0, b, block):
            rows = min(block, b - first)
            for k in range(rows):  # row by row: the count table stays in cache
                counts[k] = np.bincount(draws[first + k], minlength=n)
            at = lo + first
            for j, column in enumerate(wv):
                out[at : at + rows, j] = counts[:rows] @ column
            with np.errstate(divide="ignore", invalid="ignore"):
                out[at : at + rows] /= (counts[:rows] @ w)[:, None]
    return out[:, columns]


def bootstrap_ci(
    values: FloatArray,
    *,
    samples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    weights: FloatArray | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Percentile bootstrap interval of the column means; NaN when ``samples`` is 0 or no rows."""
    v = _as_matrix(values)
    if samples <= 0 or len(v) == 0:
        nan = np.full(v.shape[1], np.nan)
        return nan, nan.copy()
    means = bootstrap_means(v, samples=samples, seed=seed, weights=weights)
    alpha = (1.0 - confidence) / 2.0
    # nanquantile equals quantile without NaN, at ten times its cost (one call per column).
    quantile = np.nanquantile if np.isnan(means).any() else np.quantile
    low, high = quantile(means, [alpha, 1.0 - alpha], axis=0)
    return low, high


def randomization_test(
    diffs: FloatArray, *, permutations: int = 10_000, seed: int = 0
) -> FloatArray:
    """Two-sided paired randomization (sign-flip) test of mean(diffs) = 0, per column.

    Under the null each per-query difference is equally likely to have either sign; the p-value
    is (1 + #{|mean of flipped| ≥ |observed mean|}) / (1 + permutations). Flips are random bits
    (8 per random byte); a batch is one matrix product for all metrics (each distinct column
    once)."""
    d, columns = _distinct_columns(_as_matrix(diffs))
    n, m = d.shape
    if n == 0:
        return np.full(len(columns), np.nan)
    observed = np.abs(d.sum(axis=0))
    total = d.sum(axis=0)
    # Tolerance so that exact ties with the observed statistic count as "as extreme".
    tol = 1e-9 * np.maximum(np.abs(d).sum(axis=0), 1e-300)
    rng = np.random.default_rng(seed)
    hits = np.zeros(m, dtype=np.int64)
    batch = max(1, _BATCH_CELLS // n)
    block = max(1, _BLOCK_CELLS // n)
    for lo in range(0, permutations, batch):
        b = min(batch, permutations - lo)
        raw = rng.integers(0, 256, size=(b, -(-n // 8)), dtype=np.uint8)
        for first in range(0, b, block):
            bits = np.unpackbits(raw[first : first + block], axis=1, count=n).astype(np.float64)
            # Σ s_i d_i with s_i = 2·bit − 1 is 2·(bits @ d) − Σ d_i.
            flipped = np.abs(2.0 * (bits @ d) - total)
            hits += (flipped >= observed - tol).sum(axis=0)
    return ((hits + 1) / (permutations + 1))[columns]


def paired_t_test(a: FloatArray, b: FloatArray) -> FloatArray:
    """Two-sided paired t-test p-value per column; 1.0 when all differences are equal to 0,
    NaN with fewer than two rows or a constant non-zero difference.

    With d = b − a over n rows: t = mean(d) / (sd(d) / √n), sd with n − 1 degrees of freedom,
    and p = P(|T| ≥ |t|) for Student's T with n − 1 degrees of freedom (as
    ``scipy.stats.ttest_rel``; see :func:`student_t_two_sided`)."""
    x, y = _as_matrix(a), _as_matrix(b)
    out = np.full(x.shape[1], np.nan)
    n = len(x)
    if n < 2:
        return out
    d = y - x
    zero = np.all(d == 0, axis=0)
    out[zero] = 1.0
    varying = np.ptp(d, axis=0) > 0
    mean = d.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / np.sqrt(d.var(axis=0, ddof=1) / n)
    for j in np.flatnonzero(varying):
        out[j] = student_t_two_sided(float(t[j]), n - 1)
    return out


def student_t_two_sided(t: float, df: float) -> float:
    """P(|T| ≥ |t|) for Student's T with ``df`` > 0 degrees of freedom; NaN for a NaN t.

    It is the regularized incomplete beta function I_x(df/2, 1/2) at x = df / (df + t²),
    evaluated by its continued fraction (modified Lentz; Numerical Recipes 3rd ed. §6.4), in
    the tail where the fraction converges fast and with I_x(a, b) = 1 − I_{1−x}(b, a) in the
    other. With r = t²/df, x = 1/(1 + r) and 1 − x = r/(1 + r) are taken in logarithms, and
    ln B(df/2, 1/2) by an asymptotic series when df is large, so that no step cancels digits.
    Relative error against exact values: below 1e-13 up to df = 1,000, 1e-12 up to 10,000,
    5e-12 at 100,000 and 5e-11 at 10^6 (the fraction's rounding grows with df); scipy's
    ``stdtr`` is itself off by 3e-9 at df = 1 near t = 0
    (tests/engine/test_the_t_test_needs_no_scipy.py)."""
    if t != t:
        return math.nan
    q = t / math.sqrt(df)
    r = q * q  # inf, not OverflowError, past 1e154
    if r == 0.0:
        return 1.0
    if not math.isfinite(r):
        return 0.0
    a, b = df / 2.0, 0.5
    log_x, log_y = -math.log1p(r), math.log(r) - math.log1p(r)
    front = math.exp(a * log_x + b * log_y - _log_beta_half(a))
    x = 1.0 / (1.0 + r)
    if x < (a + 1.0) / (a + b + 2.0):
        p = front * _beta_fraction(a, b, x, r / (1.0 + r)) / a
    else:
        p = 1.0 - front * _beta_fraction(b, a, r / (1.0 + r), x) / b
    return min(max(p, 0.0), 1.0)


def _log_beta_half(a: float) -> float:
    """ln B(a, 1/2) = ln Γ(1/2) − (ln Γ(a + 1/2) − ln Γ(a)). For a ≥ 20 the difference comes
    from its asymptotic series ½ ln a − 1/(8a) + 1/(192a³) − 1/(640a⁵) + 17/(14336a⁷) −
    31/(18432a⁹) (Bernoulli polynomials at ½; the next term is below 1e-17 there), since two
    lgamma values of order a·ln a would cancel most of their digits."""
    if a < 20.0:
        diff = math.lgamma(a + 0.5) - math.lgamma(a)
    else:
        z2 = 1.0 / (a * a)
        series = -1.0 / 8.0 + z2 * (
            1.0 / 192.0 + z2 * (-1.0 / 640.0 + z2 * (17.0 / 14336.0 - z2 * 31.0 / 18432.0))
        )
        diff = 0.5 * math.log(a) + series / a
    return 0.5 * math.log(math.pi) - diff


def _beta_fraction(a: float, b: float, x: float, y: float) -> float:
    """The continued fraction of I_x(a, b), y = 1 − x given as exactly as x, to about two units
    in the last place. Its first term 1 − (a + b)·x/(a + 1) is taken as (1 − b + (a + b)·y)/(a + 1)
    when b ≤ 1: with x near 1 and a large the first form would cancel most of its digits."""
    tiny = 1e-300
    first = (1.0 - b + (a + b) * y) / (a + 1.0) if b <= 1.0 else 1.0 - (a + b) * x / (a + 1.0)
    c, d = 1.0, first
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for num in (
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) <= 4e-16:
            return h
    raise ArithmeticError(f"incomplete beta fraction did not converge (a={a}, b={b}, x={x})")


def holm(p_values: FloatArray) -> FloatArray:
    """Holm-Bonferroni adjusted p-values (step-down, monotone, capped at 1; NaN stays NaN)."""
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    k = len(ok)
    if k == 0:
        return out
    srt = ok[np.argsort(p[ok], kind="stable")]
    adj = np.maximum.accumulate(p[srt] * (k - np.arange(k)))
    out[srt] = np.minimum(adj, 1.0)
    return out
