"""Answer scoring benchmark: context recall, fact coverage, token F1, exact match and answer
correctness for 10,000 queries with 5 key facts each, with the rule-based scorers.

Usage: .venv/bin/python bench/answers_bench.py [--queries 10000] [--facts 5] [--repeat 3]

Builds a seeded workload in memory (every text distinct, so no cache helps across queries; words
drawn from a 5,000-word vocabulary, or with ``--worst-case`` from 46 domain words with numeric
ids): per query 5 facts with a number in each (2 linked to chunks, 3 decided by the text rule),
5 contexts of about 40 words, a response of about 30 words, an open reference answer (one query
in five a closed number, date or yes/no answer). Times ``score_answers`` (the engine call the
CLI and the app make) in a fresh process per repeat, best and median of ``--repeat``, and the
quadrants on top, in wall time and in the process's CPU time (on a machine shared with other
work, wall time counts the waits for a core), beside a fixed calibration loop and the load
average. Target (issue 13): under 2 s for 10,000 queries × 5 facts.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time

from benchlib import ROOT

METRICS = ["context_recall@5", "fact_coverage", "answer_f1", "exact_match", "answer_correctness"]
WORDS = [
    "refund",
    "period",
    "order",
    "shipping",
    "warranty",
    "customer",
    "account",
    "invoice",
    "payment",
    "delivery",
    "store",
    "product",
    "return",
    "policy",
    "item",
    "support",
    "request",
    "damage",
    "replacement",
    "label",
    "package",
    "carrier",
    "days",
    "weeks",
    "price",
    "discount",
    "member",
    "card",
    "receipt",
    "service",
    "repair",
    "battery",
    "screen",
    "cable",
    "charger",
    "subscription",
    "renewal",
    "cancel",
    "notice",
    "address",
    "email",
    "phone",
    "region",
    "country",
    "tax",
    "fee",
]


def _name(n: int) -> str:
    """A distinct alphabetic tag for a number (0 → "a", 26 → "ba"): makes texts distinct
    without digits, which would read as numbers."""
    out = ""
    while True:
        out = chr(97 + n % 26) + out
        n //= 26
        if not n:
            return out


def vocabulary(size: int, seed: int = 3) -> list[str]:
    """The 46 domain words, then pseudo-words (consonant-vowel syllables) up to ``size``."""
    if size <= len(WORDS):
        return WORDS[:size]
    rng = random.Random(seed)
    words = set(WORDS)
    while len(words) < size:
        words.add("".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(3)))
    return [*WORDS, *sorted(words - set(WORDS))]


def workload(n: int, facts: int, seed: int = 7, *, worst_case: bool = False):
    """The queries' answer keys and the run (see the module docstring). ``worst_case``: the 46
    domain words only, so every context shares most terms with every fact (each fact's numbers
    are then read to decide), and numeric ids (``q1234f3``), whose 4 digits send every text
    through the date patterns."""
    from goldsmith.answers.model import AnswerKey, Context, KeyFact, StagedQuery

    rng = random.Random(seed)
    words_of = WORDS if worst_case else vocabulary(5000)
    keys, run = [], []
    for q in range(n):
        fs = []
        for f in range(facts):
            words = rng.sample(words_of, 4)
            tag = f"q{q}f{f}" if worst_case else f"x{_name(q)}y{_name(f)}"
            text = f"{' '.join(words)} {rng.randint(1, 60)} days {tag}"
            fs.append(KeyFact(text, (f"c{q}-{f}",) if f < 2 else ()))
        ctx = []
        for c in range(5):
            body = " ".join(rng.choice(words_of) for _ in range(36))
            if c < 3:  # three contexts state a fact each (some the linked chunk)
                body = f"{body}. {fs[c + 1].text}."
            ctx.append(Context(f"c{q}-{c}" if c != 1 else f"c{q}-x", body))
        said = " ".join(rng.choice(words_of) for _ in range(24))
        response = f"{said}. {fs[0].text}. {fs[3].text}."
        kind = q % 5
        if kind == 1:
            key = AnswerKey(f"q{q}", "14 days", "number", facts=tuple(fs))
            response += " within 14 days"
        elif kind == 2:
            key = AnswerKey(f"q{q}", "2024-03-05", "date", facts=tuple(fs))
            response += " on March 5, 2024"
        elif kind == 3:
            key = AnswerKey(f"q{q}", "yes", "boolean", facts=tuple(fs))
            response = "Yes. " + response
        else:
            key = AnswerKey(f"q{q}", f"{fs[0].text} and {fs[3].text}", facts=tuple(fs))
        keys.append(key)
        run.append(StagedQuery(f"q{q}", contexts=tuple(ctx), response=response))
    return keys, run


def calibration() -> float:
    """Seconds of CPU for a fixed pure-Python loop: how fast this machine runs Python right
    now (on a shared machine, the same code's figures move with it)."""
    start = time.process_time()
    for _ in range(200):
        sum(i * i for i in range(10_000))
    return time.process_time() - start


def child(n: int, facts: int, worst_case: bool) -> None:
    from goldsmith.answers import report, scoring

    keys, run = workload(n, facts, worst_case=worst_case)
    calib = calibration()
    wall, cpu = time.perf_counter(), time.process_time()
    result = scoring.score_answers(keys, run, METRICS)
    scored_wall, scored_cpu = time.perf_counter() - wall, time.process_time() - cpu
    quads = report.diagnosis(keys, run, recall_metric="context_recall@5", scored=result)
    total_wall, total_cpu = time.perf_counter() - wall, time.process_time() - cpu
    means = {}
    for m in METRICS:
        col = result.column(m)
        means[m] = float(col[col == col].mean())
    print(json.dumps({"score_wall": scored_wall, "score_cpu": scored_cpu,
                      "total_wall": total_wall, "total_cpu": total_cpu, "calibration": calib,
                      "means": means, "quadrants": dict(quads.counts)}))  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--facts", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--worst-case",
        action="store_true",
        help="46 words only and numeric ids: every fact's numbers and every text's dates read",
    )
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.queries, args.facts, args.worst_case)
        return
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = []
    load_before = os.getloadavg()[0]
    for _ in range(args.repeat):
        out = subprocess.run(
            [sys.executable, __file__, "--child", "--queries", str(args.queries),
             "--facts", str(args.facts), *(["--worst-case"] if args.worst_case else [])],
            check=True, capture_output=True, text=True, env=env, cwd=ROOT,
        ).stdout  # fmt: skip
        runs.append(json.loads(out))
    load_after = os.getloadavg()[0]

    def best_median(key: str) -> str:
        xs = [r[key] for r in runs]
        return f"best {min(xs):.3f} s, median {statistics.median(xs):.3f} s"

    cpus = os.cpu_count()
    print(f"machine: {platform.machine()}, {cpus} CPUs, Python {platform.python_version()}")
    print(f"load average (1 min) before / after: {load_before:.2f} / {load_after:.2f}")
    kind = "worst case (46 words, numeric ids)" if args.worst_case else "5,000-word vocabulary"
    print(f"{args.queries} queries x {args.facts} facts, {kind}; metrics {', '.join(METRICS)}")
    print(f"score_answers, CPU:   {best_median('score_cpu')}")
    print(f"score_answers, wall:  {best_median('score_wall')}")
    print(f"with quadrants, CPU:  {best_median('total_cpu')}")
    print(f"with quadrants, wall: {best_median('total_wall')}")
    print(f"calibration loop, CPU: {best_median('calibration')}")
    print(f"means: {json.dumps(runs[0]['means'])}")
    print(f"quadrants: {json.dumps(runs[0]['quadrants'])}")
    best = min(r["total_wall"] for r in runs)
    print(f"target < 2 s (wall): {'met' if best < 2 else 'missed'}")
    # On a machine shared with other work the wall time counts the waits for a core; the
    # process's own CPU time is what the code costs.
    best_cpu = min(r["total_cpu"] for r in runs)
    print(f"target < 2 s (CPU):  {'met' if best_cpu < 2 else 'missed'}")


if __name__ == "__main__":
    main()
