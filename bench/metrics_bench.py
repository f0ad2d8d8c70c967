"""Metric engine benchmark: `goldsmith eval` against pytrec_eval and ranx (whole processes).

Usage: .venv/bin/python bench/metrics_bench.py [--queries 100000] [--depth 100] [--out bench/out]
       [--ids fixed|short|long] [--repeat 3] [--skip-ranx]

Generates a seeded TREC workload once (qrels + run under bench/out/, git-ignored), then runs each
tool as a separate process under /usr/bin/time -v on the same files, records wall and CPU time
and peak RSS (the tools take turns, round after round), and checks that goldsmith's per-query
values equal pytrec_eval's (1e-9).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import numpy as np
from benchlib import ROOT, run_timed

PYTHON = sys.executable
SEED = 20240607
# Our metric name -> (pytrec_eval measure, ranx metric).
METRICS = {
    "recall@5": ("recall_5", "recall@5"),
    "recall@10": ("recall_10", "recall@10"),
    "precision@5": ("P_5", "precision@5"),
    "mrr@10": ("recip_rank", "mrr@10"),
    "ndcg@10": ("ndcg_cut_10", "ndcg@10"),
    "map@100": ("map_cut_100", "map@100"),
    "hit@5": ("success_5", "hit_rate@5"),
}


def _id_names(style: str) -> tuple[Callable[[int], str], Callable[[int], str]]:
    """(query id, chunk id) of a number, in one of ``ID_STYLES``."""
    if style == "fixed":
        return (lambda q: f"q{q:06d}"), (lambda d: f"c{d:07d}")
    if style == "short":
        return (lambda q: f"q{q}"), (lambda d: f"x{d // 100}_{d % 100}")

    def pad(head: str, n: int) -> str:  # to 24-64 characters, the length fixed by the id
        n = int(n)
        size = max(len(head) + 2, 24 + (n * 2654435761) % 41)
        return (head + "-" + f"{n * 0x9E3779B97F4A7C15 % (1 << 64):016x}" * 4)[:size]

    return (lambda q: pad(f"questions/2024/q{q}", q)), (
        lambda d: pad(f"kb/handbook/doc-{d // 100}/chunk-{d % 100}", d)
    )


CI_OPTIONS = ("--relevance-level", "1", "--format", "json")
# Ids of the generated files: "fixed" 7-8 characters (q000123, c0012345), "short" as users
# write them, 2-10 characters (q123, x12345_67), "long" 24-64 characters (paths and hashes).
ID_STYLES = ("fixed", "short", "long")


def generate(
    out: Path, n_queries: int, depth: int, seed: int = SEED, ids: str = "fixed"
) -> tuple[Path, Path]:
    """Write qrels.txt and run.txt: 1-10 graded (1/2) chunks + 0-10 judged-0 chunks per query;
    each judged chunk is retrieved with probability 0.6; the rest of the list is random corpus
    chunks. Scores have 3 decimals so that some ties occur (exercising trec_eval's tie rule).
    ``ids`` names queries and chunks (``ID_STYLES``); the numbers drawn are the same."""
    tag = "" if ids == "fixed" else f"_{ids}"
    qrels_path, run_path = (
        out / f"qrels_{n_queries}x{depth}{tag}.txt",
        out / f"run_{n_queries}x{depth}{tag}.txt",
    )
    qname, dname = _id_names(ids)
    if qrels_path.exists() and run_path.exists():
        return qrels_path, run_path
    rng = np.random.default_rng(seed)
    corpus = 5_000_000
    width = 20 + depth  # candidate chunks drawn per query (judged first)
    ids = rng.integers(0, corpus, size=(n_queries, width))
    # Redraw rows with a repeated id until every row is duplicate-free (pytrec_eval asserts it).
    while True:
        s = np.sort(ids, axis=1)
        bad = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1))
        if bad.size == 0:
            break
        ids[bad] = rng.integers(0, corpus, size=(bad.size, width))
    n_rel = rng.integers(1, 11, size=n_queries)
    n_non = rng.integers(0, 11, size=n_queries)
    out.mkdir(parents=True, exist_ok=True)
    with open(qrels_path, "w") as qf, open(run_path, "w") as rf:
        for q in range(n_queries):
            qid = qname(q)
            judged = ids[q, : n_rel[q] + n_non[q]]
            grades = np.concatenate(
                [rng.integers(1, 3, size=n_rel[q]), np.zeros(n_non[q], dtype=np.int64)]
            )
            qf.write(
                "".join(f"{qid} 0 {dname(d)} {g}\n" for d, g in zip(judged, grades, strict=True))
            )
            hit = judged[rng.random(judged.size) < 0.6][:depth]
            fill = ids[q, 20 : 20 + depth - hit.size]
            docs = np.concatenate([hit, fill])
            rng.shuffle(docs)
            scores = np.sort(np.round(rng.random(depth) * 50, 3))[::-1]
            rf.write(
                "".join(
                    f"{qid} Q0 {dname(d)} {r} {s:.3f} bench\n"
                    for r, (d, s) in enumerate(zip(docs, scores, strict=True), 1)
                )
            )
    return qrels_path, run_path


PYTREC_CHILD = textwrap.dedent(
    """
    import sys, time, pytrec_eval
    qrels_path, run_path, out_path, measures = sys.argv[1:5]
    t = time.perf_counter()
    with open(qrels_path) as f:
        qrel = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    t1 = time.perf_counter()
    res = pytrec_eval.RelevanceEvaluator(qrel, set(measures.split(";"))).evaluate(run)
    t2 = time.perf_counter()
    names = sorted(next(iter(res.values())))
    with open(out_path, "w") as f:
        f.write("query_id," + ",".join(names) + "\\n")
        for q, vals in res.items():
            f.write(q + "," + ",".join(repr(vals[n]) for n in names) + "\\n")
    print(f"parse {t1 - t:.2f}s evaluate {t2 - t1:.2f}s", file=sys.stderr)
    """
)

RANX_CHILD = textwrap.dedent(
    """
    import sys, time
    from ranx import Qrels, Run, evaluate
    qrels_path, run_path, metrics = sys.argv[1:4]
    t = time.perf_counter()
    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    t1 = time.perf_counter()
    means = evaluate(qrels, run, metrics.split(";"), make_comparable=True)
    t2 = time.perf_counter()
    print(f"parse {t1 - t:.2f}s evaluate {t2 - t1:.2f}s", file=sys.stderr)
    """
)


def timed(cmd: list[str], stdout: Path | None = None) -> dict[str, float | str]:
    """Run ``cmd`` under /usr/bin/time -v: wall and CPU seconds, peak RSS (MiB), its note."""
    t = run_timed(cmd, stdout=stdout)
    notes = [ln for ln in t.stderr.splitlines() if ln.startswith("parse ")]
    return {
        "wall_s": t.wall_s,
        "cpu_s": t.cpu_s,
        "peak_rss_mib": t.peak_rss_mib,
        "note": notes[0] if notes else "",
    }


def read_csv(path: Path) -> dict[str, dict[str, float]]:
    with open(path) as f:
        head = f.readline().strip().split(",")[1:]
        return {
            parts[0]: dict(zip(head, map(float, parts[1:]), strict=True))
            for parts in (line.rstrip("\n").split(",") for line in f)
        }


def check_identical(ours: Path, theirs: Path) -> tuple[int, float]:
    """Per-query comparison with pytrec_eval: (values compared, max absolute difference)."""
    a, b = read_csv(ours), read_csv(theirs)
    if a.keys() != b.keys():
        raise SystemExit(f"query sets differ: {len(a)} vs {len(b)}")
    worst, count = 0.0, 0
    for q, vals in a.items():
        for ours_name, (their_name, _) in METRICS.items():
            theirs_v = b[q][their_name]
            if ours_name == "mrr@10":  # trec_eval has no cut-off for recip_rank
                theirs_v = theirs_v if theirs_v >= 0.1 else 0.0
            worst = max(worst, abs(vals[ours_name] - theirs_v))
            count += 1
    return count, worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    ap.add_argument("--repeat", type=int, default=3, help="rounds (best wall time kept)")
    ap.add_argument("--skip-ranx", action="store_true")
    ap.add_argument("--ids", choices=ID_STYLES, default="fixed", help="how ids are written")
    args = ap.parse_args()
    qrels, run = generate(args.out, args.queries, args.depth, ids=args.ids)
    goldsmith = str(Path(PYTHON).with_name("goldsmith"))
    ours_csv, theirs_csv = args.out / "goldsmith_per_query.csv", args.out / "pytrec_per_query.csv"
    measures = "recall.5,10;P.5;recip_rank;ndcg_cut.10;map_cut.100;success.5"
    ranx_metrics = ";".join(r for _, r in METRICS.values())
    cmds: dict[str, tuple[list[str], Path | None]] = {
        "goldsmith eval": (
            [
                goldsmith,
                "eval",
                str(qrels),
                str(run),
                "-m",
                ",".join(METRICS),
                "--order",
                "score",
                "--relevance-level",
                "1",
                "--per-query",
                "--format",
                "csv",
            ],
            ours_csv,
        ),
        # As CI runs it (issue 25): the means and their CIs as JSON, in the run's own order.
        "goldsmith eval --format json": (
            [goldsmith, "eval", str(qrels), str(run), "-m", *METRICS, *CI_OPTIONS],
            None,
        ),
        "goldsmith eval (table, 1000 bootstrap)": (
            [
                goldsmith,
                "eval",
                str(qrels),
                str(run),
                "-m",
                ",".join(METRICS),
                "--order",
                "score",
                "--relevance-level",
                "1",
            ],
            None,
        ),
        "pytrec_eval": (
            [PYTHON, "-c", PYTREC_CHILD, str(qrels), str(run), str(theirs_csv), measures],
            None,
        ),
    }
    if not args.skip_ranx:
        # Warm numba's on-disk cache (ranx compiles with cache=True) on a tiny workload first.
        small_q, small_r = generate(args.out, 50, 10)
        timed([PYTHON, "-c", RANX_CHILD, str(small_q), str(small_r), ranx_metrics])
        cmds["ranx (numba cache warm)"] = (
            [PYTHON, "-c", RANX_CHILD, str(qrels), str(run), ranx_metrics],
            None,
        )
    # Rounds interleave the tools, so that load from other processes hits them alike; the best
    # wall time of each tool is kept (ranx, the slowest by far, runs in the first round only).
    runs: dict[str, list[dict[str, float | str]]] = {name: [] for name in cmds}
    for round_no in range(args.repeat):
        for name, (cmd, stdout) in cmds.items():
            if name.startswith("ranx") and round_no > 0:
                continue
            runs[name].append(timed(cmd, stdout))
            r = runs[name][-1]
            print(
                f"{name:<40} wall {r['wall_s']:7.2f} s   CPU {r['cpu_s']:7.2f} s   peak RSS "
                f"{r['peak_rss_mib']:8.1f} MiB   load {os.getloadavg()[0]:5.2f}   {r['note']}",
                flush=True,
            )
    results = {name: min(rs, key=lambda r: float(r["wall_s"])) for name, rs in runs.items()}
    count, worst = check_identical(ours_csv, theirs_csv)
    ref = results["pytrec_eval"]
    summary = {
        "workload": f"{args.queries} queries x depth {args.depth}, "
        f"{os.path.getsize(run) / 1e6:.0f} MB run, {os.path.getsize(qrels) / 1e6:.0f} MB qrels",
        "results": results,
        "per_query_values_compared": count,
        "max_abs_diff_vs_pytrec_eval": worst,
        "ids": args.ids,
        # Every goldsmith command's best round against pytrec_eval's best: wall, CPU, peak RSS.
        "ratios_vs_pytrec_eval": {
            name: {
                key: round(float(ours[key]) / float(ref[key]), 3)
                for key in ("wall_s", "cpu_s", "peak_rss_mib")
            }
            for name, ours in results.items()
            if name.startswith("goldsmith")
        },
    }
    print(json.dumps(summary, indent=1))
    if worst > 1e-9:
        raise SystemExit("per-query values differ from pytrec_eval")


if __name__ == "__main__":
    main()
