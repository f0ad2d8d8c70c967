"""How long a machine judge's kappa with its bootstrap interval takes (goldsmith.agreement.
kappa_interval, 1000 resamples over queries), per cell of the dashboard's table (one judge
against one person, overall or in one category), by project size. No database.

    PYTHONPATH=. python bench/judge_agreement_bench.py
"""

from __future__ import annotations

import time

import numpy as np

from goldsmith.agreement import kappa_interval


def main() -> None:
    rng = np.random.default_rng(0)
    for queries, per_query in ((100, 10), (1000, 10), (9000, 10)):
        n = queries * per_query
        a = rng.integers(0, 3, n)
        b = np.where(rng.random(n) < 0.85, a, rng.integers(0, 3, n))
        groups = np.repeat(np.arange(queries), per_query)
        kappa_interval(a, b, groups, samples=50)  # warm up
        times = []
        for _ in range(3):
            started = time.perf_counter()
            kappa_interval(a, b, groups, samples=1000)
            times.append(time.perf_counter() - started)
        best = min(times)
        print(f"{queries:>5} queries × {per_query} chunks: {best * 1000:7.1f} ms per cell")


if __name__ == "__main__":
    main()
