"""Resampling statistics for metric means: bootstrap CIs, paired tests, Holm correction.

Pure module (numpy; scipy only inside :func:`paired_t_test`). Every random procedure takes a
seed and draws from ``numpy.random.default_rng(seed)``, so results are reproducible. Values are
``float[n, m]``: n queries (rows, resampled together) by m metrics (columns).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
# Resamples are drawn in batches of about this many cells to bound memory.
_BATCH_CELLS = 4_000_000


def _as_matrix(values: FloatArray) -> FloatArray:
    v = np.asarray(values, dtype=np.float64)
    return v.reshape(len(v), -1)


def bootstrap_means(
    values: FloatArray, *, samples: int, seed: int, weights: FloatArray | None = None
) -> FloatArray:
    """Means of ``samples`` bootstrap resamples of the rows: ``float[samples, m]``.

    A resample is stored as per-row draw counts c (a multinomial(n, 1/n) vector), so its
    (weighted) mean is c·(w∘v) / c·w, a matrix product for all metrics at once."""
    v = _as_matrix(values)
    n = len(v)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    wv = v * w[:, None]
    rng = np.random.default_rng(seed)
    out = np.empty((samples, v.shape[1]))
    batch = max(1, _BATCH_CELLS // max(n, 1))
    for lo in range(0, samples, batch):
        b = min(batch, samples - lo)
        draws = rng.integers(0, n, size=(b, n), dtype=np.int32)
        counts = np.empty((b, n))
        for k in range(b):  # row by row: the count table stays in cache
            counts[k] = np.bincount(draws[k], minlength=n)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[lo : lo + b] = (counts @ wv) / (counts @ w)[:, None]
    return out


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
    low, high = np.nanquantile(means, [alpha, 1.0 - alpha], axis=0)
    return low, high


def randomization_test(
    diffs: FloatArray, *, permutations: int = 10_000, seed: int = 0
) -> FloatArray:
    """Two-sided paired randomization (sign-flip) test of mean(diffs) = 0, per column.

    Under the null each per-query difference is equally likely to have either sign; the p-value
    is (1 + #{|mean of flipped| ≥ |observed mean|}) / (1 + permutations). Flips are random bits
    (8 per random byte); a batch is one matrix product for all metrics."""
    d = _as_matrix(diffs)
    n, m = d.shape
    if n == 0:
        return np.full(m, np.nan)
    observed = np.abs(d.sum(axis=0))
    total = d.sum(axis=0)
    # Tolerance so that exact ties with the observed statistic count as "as extreme".
    tol = 1e-9 * np.maximum(np.abs(d).sum(axis=0), 1e-300)
    rng = np.random.default_rng(seed)
    hits = np.zeros(m, dtype=np.int64)
    batch = max(1, _BATCH_CELLS // n)
    for lo in range(0, permutations, batch):
        b = min(batch, permutations - lo)
        raw = rng.integers(0, 256, size=(b, -(-n // 8)), dtype=np.uint8)
        bits = np.unpackbits(raw, axis=1, count=n).astype(np.float64)
        # Σ s_i d_i with s_i = 2·bit − 1 is 2·(bits @ d) − Σ d_i.
        flipped = np.abs(2.0 * (bits @ d) - total)
        hits += (flipped >= observed - tol).sum(axis=0)
    return (hits + 1) / (permutations + 1)


def paired_t_test(a: FloatArray, b: FloatArray) -> FloatArray:
    """Two-sided paired t-test p-value per column; 1.0 when all differences are equal to 0,
    NaN with fewer than two rows or a constant non-zero difference."""
    from scipy import stats as sps  # imported here: scipy is slow to import and rarely needed

    x, y = _as_matrix(a), _as_matrix(b)
    out = np.full(x.shape[1], np.nan)
    if len(x) < 2:
        return out
    d = y - x
    for j in range(x.shape[1]):
        if np.all(d[:, j] == 0):
            out[j] = 1.0
        elif np.ptp(d[:, j]) > 0:
            out[j] = float(sps.ttest_rel(y[:, j], x[:, j]).pvalue)
    return out


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
