"""Answer judge benchmark: a run's open answers judged by an HTTP judge that answers after a
fixed delay, at a given concurrency, against the judge's ceiling (concurrency / delay).

Usage: .venv/bin/python bench/answer_judge_bench.py [--queries 2000] [--delay-ms 20]
           [--concurrency 16] [--repeat 3] [--facts 3]

Starts ``goldsmith answer-judge-stub --port 0 --delay-ms D`` in another process (a real HTTP
server, keep-alive, one thread per connection), builds a seeded run in memory (every query an
open answer with ``--facts`` key facts and a response), and per repeat times, with a fresh
client (new connections), ``HttpAnswerJudge.judge_run`` (the engine call ``goldsmith eval
--judge-url`` makes), then ``answer_report`` with the judge's results on top. Prints the
queries per second, their share of the ceiling, the client's and the stub's CPU time, the
judge's measured latency (mean, p99) and the load average. Target (issue 13): at a 20 ms judge
and concurrency 16, at least 70 % of 16 / 0.020 s = 800 queries/s.
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
from pathlib import Path

from answers_bench import WORDS as SHOP_WORDS
from benchlib import ROOT, cpu_seconds

# The shop's words of answers_bench up to "charger", without "days" and "weeks".
WORDS = [w for w in SHOP_WORDS[: SHOP_WORDS.index("charger") + 1] if w not in {"days", "weeks"}]


def workload(n: int, facts: int, seed: int = 7):
    """Answer keys (open answers with facts) and a run whose responses state some of them."""
    from goldsmith.answers.model import AnswerKey, KeyFact, StagedQuery

    rng = random.Random(seed)
    keys, run = [], []
    for q in range(n):
        fs = [
            KeyFact(f"{' '.join(rng.sample(WORDS, 4))} {rng.randint(1, 60)} days", (f"c{q}",))
            for _ in range(facts)
        ]
        said = [f.text for f in fs if rng.random() < 0.6]
        response = ". ".join([" ".join(rng.choice(WORDS) for _ in range(12)), *said]) + "."
        keys.append(
            AnswerKey(
                f"q{q}",
                reference_answer=" and ".join(f.text for f in fs),
                facts=tuple(fs),
                query=f"what about {' '.join(rng.sample(WORDS, 3))}?",
            )
        )
        run.append(StagedQuery(f"q{q}", response=response))
    return keys, run


def start_stub(delay_ms: float) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "goldsmith.cli", "answer-judge-stub", "--port", "0",
         "--delay-ms", str(delay_ms)],
        stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT,
    )  # fmt: skip
    assert proc.stdout is not None
    return proc, proc.stdout.readline().split()[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--delay-ms", type=float, default=20.0)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--facts", type=int, default=3)
    ap.add_argument(
        "--cli",
        action="store_true",
        help="also time the whole `goldsmith eval --judge-url` command on the same run written "
        "to JSONL files (interpreter start, reading, judging, report, JSON output)",
    )
    args = ap.parse_args()

    from goldsmith.answers.judge import AnswerJudgeConfig, HttpAnswerJudge
    from goldsmith.answers.report import answer_report
    from goldsmith.retrievers.ssrf import Policy

    keys, run = workload(args.queries, args.facts)
    ceiling = args.concurrency / (args.delay_ms / 1000.0)
    proc, url = start_stub(args.delay_ms)
    config = AnswerJudgeConfig(
        url=url, name="stub", max_concurrency=args.concurrency, batch_size=250
    )
    policy = Policy(allow_private=True)
    print(
        f"machine: {platform.machine()} {os.cpu_count()} CPUs, Python {platform.python_version()}"
        f"; {args.queries} open answers, judge delay {args.delay_ms:g} ms, concurrency "
        f"{args.concurrency}: ceiling {ceiling:.0f} queries/s"
    )
    rows = []
    rows_cli: list[dict[str, float]] = []
    try:
        with HttpAnswerJudge(config, policy=policy) as warm:  # the stub's first requests
            warm.judge_run(keys[:100], run[:100])
        for i in range(args.repeat):
            load = os.getloadavg()[0]
            stub_cpu, cpu = cpu_seconds(proc.pid), time.process_time()
            wall = time.perf_counter()
            with HttpAnswerJudge(config, policy=policy) as judge:
                results = judge.judge_run(keys, run)
            judged_wall = time.perf_counter() - wall
            judged_cpu = time.process_time() - cpu
            stub_used = cpu_seconds(proc.pid) - stub_cpu
            doc = answer_report(keys, run, ["answer_correctness"], judge=results, samples=1000)
            total_wall = time.perf_counter() - wall
            failed = len(results.failures())
            latencies = sorted(a.latency_ms for a in results.answers)
            rate = args.queries / judged_wall
            row = {
                "run": i + 1,
                "judged_s": round(judged_wall, 3),
                "queries_per_s": round(rate, 1),
                "share_of_ceiling": round(rate / ceiling, 3),
                "with_report_s": round(total_wall, 3),
                "share_with_report": round(args.queries / total_wall / ceiling, 3),
                "client_cpu_s": round(judged_cpu, 2),
                "stub_cpu_s": round(stub_used, 2),
                "latency_mean_ms": round(statistics.fmean(latencies), 1),
                "latency_p99_ms": round(latencies[int(0.99 * (len(latencies) - 1))], 1),
                "failed": failed,
                "mean_correctness": doc["aggregate"]["answer_correctness"]["mean"],
                "load_before": round(load, 2),
            }
            rows.append(row)
            print(json.dumps(row))
        if args.cli:
            for i in range(args.repeat):
                row = time_cli(keys, run, url, args)
                rows_cli.append(row)
                print(json.dumps({"run": i + 1, **row}))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    shares = [r["share_of_ceiling"] for r in rows]
    print(
        f"share of the ceiling: best {max(shares):.1%}, median {statistics.median(shares):.1%}, "
        f"worst {min(shares):.1%} (target ≥ 70 %); load average now {os.getloadavg()[0]:.2f}"
    )
    if rows_cli:
        cli = [r["share_of_ceiling"] for r in rows_cli]
        print(f"whole command: best {max(cli):.1%}, median {statistics.median(cli):.1%}")


def time_cli(keys, run, url: str, args: argparse.Namespace) -> dict[str, float]:
    """Wall time of `goldsmith eval QRELS RUN -m answer_correctness --judge-url URL` on files
    holding the same queries."""
    import tempfile

    ceiling = args.concurrency / (args.delay_ms / 1000.0)
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run_path = Path(tmp, "qrels.jsonl"), Path(tmp, "run.jsonl")
        qrels.write_text(
            "".join(
                json.dumps(
                    {
                        "query_id": k.query_id,
                        "query": k.query,
                        "judgments": [{"id": f"c{k.query_id}", "grade": 2}],
                        "reference_answer": k.reference_answer,
                        "reference_facts": [
                            {"text": f.text, "chunk_ids": list(f.chunk_ids)} for f in k.facts
                        ],
                    }
                )
                + "\n"
                for k in keys
            )
        )
        run_path.write_text(
            "".join(
                json.dumps({"query_id": s.query_id, "results": [], "response": s.response}) + "\n"
                for s in run
            )
        )
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        wall = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-m", "goldsmith.cli", "eval", str(qrels), str(run_path),
             "-m", "answer_correctness", "--judge-url", url, "--judge-name", "stub",
             "--judge-concurrency", str(args.concurrency), "--format", "json"],
            check=True, capture_output=True, text=True, env=env, cwd=ROOT,
        ).stdout  # fmt: skip
        seconds = time.perf_counter() - wall
    doc = json.loads(out)
    judged = doc["settings"]["answers"]["judge"]
    return {
        "command_s": round(seconds, 3),
        "judging_s": judged["seconds"],
        "judged": judged["judged"],
        "share_of_ceiling": round(len(keys) / seconds / ceiling, 3),
        "judging_share": round(len(keys) / judged["seconds"] / ceiling, 3),
    }


if __name__ == "__main__":
    main()
