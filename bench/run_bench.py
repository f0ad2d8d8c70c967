"""Benchmark of evaluation runs: a 10,000-query run through real Celery workers against a local
retriever stub, and the time to aggregate it.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gs_bench REDIS_URL=redis://127.0.0.1:6379/6 \
    GOLDSMITH_VAR_DIR=/tmp/gs-bench .venv/bin/python bench/run_bench.py \
        --queries 10000 --latency 0.02 --concurrency 16 --worker-processes 2

With `--rag` the golden queries carry answer keys (a reference answer and 3 key facts linked to
their relevant chunks) and the stub is a RAG pipeline (tests/evaluation/rag_stub.py): 50
first-stage candidates, the reranked list, 5 contexts of about 40 words and a response per
query, so every stage is stored and the report adds the answer section.

The stub (tests/evaluation/retriever_stub.py) answers every call after `--latency` seconds, so a
retriever allowed `--concurrency` calls at a time cannot serve more than concurrency / latency
queries per second (16 / 0.02 = 800): that is the ceiling the run's throughput is compared with.
The database is migrated; a project named bench-<time> is created in it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

from benchlib import ROOT, cpu_seconds, django_setup, production

os.environ["GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS"] = "1"
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "0"
production(os.environ)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--worker-processes", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=250)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--rag", action="store_true", help="every stage and answer keys")
    args = parser.parse_args()

    django_setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)

    from annotation.models import Project
    from annotation.services.goldsets import LoadedGoldset, golden_set_version_import
    from evaluation.models import QueryResult
    from evaluation.selectors.goldsets import golden_items
    from evaluation.selectors.runs import result_rows
    from evaluation.services.reports import run_report
    from evaluation.services.retrievers import retriever_save
    from evaluation.services.runs import evaluation_run_create
    from evaluation.services.settings import run_settings
    from goldsmith import reporting
    from goldsmith.answers.model import KeyFact
    from goldsmith.formats.goldset import GoldenQuery, GoldJudgment
    from tests.evaluation.rag_stub import RagStub, Stage
    from tests.stub_servers import StubRetriever

    n = args.queries
    project = Project.objects.create(name=f"bench-{int(time.time())}")
    queries, answers = [], {}
    stages: dict[str, Stage] = {}
    for i in range(n):
        qid = f"q{i}"
        judged = tuple(GoldJudgment(f"c{i}-{j}", 2 if j < 3 else 0) for j in range(5))
        # Rank the relevant chunks at varying depths so the metrics vary.
        ranked = [f"x{i}-{j}" for j in range(10)]
        for j in range(3):
            ranked.insert((i * (j + 3)) % 10, f"c{i}-{j}")
        answers[qid] = ranked[:10]
        key: dict[str, object] = {}
        if args.rag:
            facts = tuple(
                KeyFact(f"item {i} rule {j} allows {j + 3} days", (f"c{i}-{j}",)) for j in range(3)
            )
            key = {"reference_answer": f"item {i} allows 3 days", "reference_facts": facts}
            filler = " ".join(f"word{(i * 7 + w) % 500}" for w in range(34))
            contexts = tuple(
                (c, f"{filler} item {i} rule {c[-1]} allows {(i + j) % 6 + 3} days.")
                for j, c in enumerate(ranked[:5])
            )
            stages[qid] = Stage(
                candidates=tuple(ranked[:10] + [f"y{i}-{j}" for j in range(40)]),
                reranked=tuple(ranked[:10]),
                contexts=contexts,
                answer=f"Item {i} rule 0 allows {i % 4 + 3} days; rule 1 allows 4 days.",
            )
        queries.append(GoldenQuery(qid, f"query {i}", judged, category=f"cat{i % 7}", **key))
    t = time.perf_counter()
    version = golden_set_version_import(
        project=project,
        by=None,
        loaded=LoadedGoldset(queries, None, None, "bench"),
        fmt="jsonl",
        label="v1",
    )
    print(f"golden set of {n} queries stored in {time.perf_counter() - t:.1f}s")

    stub = (
        RagStub(stages, latency=args.latency)
        if args.rag
        else StubRetriever(answers, latency=args.latency)
    ).start()
    retriever = retriever_save(
        project=project,
        name="stub",
        kind="http",
        config=stub.config(max_concurrency=args.concurrency, timeout=10.0),
    )
    from django.db import connection

    env = dict(os.environ)
    if connection.vendor == "sqlite":
        env["DATABASE_URL"] = f"sqlite:///{connection.settings_dict['NAME']}"
    celery = [sys.executable, "-m", "celery", "-A", "config"]
    subprocess.run([*celery, "purge", "-f"], cwd=ROOT, env=env, capture_output=True, check=False)
    log = (
        Path(os.environ.get("GOLDSMITH_VAR_DIR", "/tmp"))
        / f"bench-worker-{uuid.uuid4().hex[:6]}.log"
    )
    worker = subprocess.Popen(
        [
            *celery,
            "worker",
            "--loglevel=WARNING",
            f"--concurrency={args.worker_processes}",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            f"--hostname=bench-{uuid.uuid4().hex[:6]}@%h",
        ],
        cwd=ROOT,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    try:
        time.sleep(4)  # let the worker connect before the clock starts
        started = time.perf_counter()
        cpu_before = (time.process_time(), cpu_seconds(worker.pid))
        run = evaluation_run_create(
            project=project,
            retriever=retriever,
            version=version,
            batch_size=args.batch_size,
            lanes=args.worker_processes,
        )
        first_done = None
        while True:
            run.refresh_from_db()
            done = QueryResult.objects.filter(run=run).count()
            if first_done is None and done >= n:
                first_done = time.perf_counter()
            if run.finished or time.perf_counter() - started > args.timeout:
                break
            time.sleep(0.2)
        finished = time.perf_counter()
        cpu_used = (
            time.process_time() - cpu_before[0],
            cpu_seconds(worker.pid) - cpu_before[1],
        )
    finally:
        worker.terminate()
        worker.wait(timeout=30)
        stub.stop()
    if run.state != "succeeded":
        print(f"run {run.pk} ended {run.state}: {run.error} (worker log: {log})")
        return 1
    results_at = first_done or finished
    elapsed = results_at - started
    ceiling = args.concurrency / args.latency
    qps = n / elapsed
    print(f"stub: latency {args.latency * 1000:.0f} ms, max concurrency {args.concurrency}")
    print(f"ceiling {ceiling:.0f} queries/s; {args.worker_processes} worker processes")
    print(f"all {n} results stored after {elapsed:.2f}s: {qps:.0f} queries/s = {qps / ceiling:.0%}")
    print(f"run succeeded (report included) after {finished - started:.2f}s")
    print(
        f"stub calls {stub.calls}, most at once {stub.max_in_flight}, failed {run.failed_queries}"
    )
    print(
        f"CPU during the run: workers {cpu_used[1]:.1f}s, this process (stub, polling) "
        f"{cpu_used[0]:.1f}s, of {2 * (finished - started):.1f}s on 2 cores"
    )

    if args.rag:
        from evaluation.services.answers import run_answer_report
        from evaluation.services.settings import project_settings

        items = golden_items(version_id=version.pk, machine_grades=run.machine_grades)
        t = time.perf_counter()
        section = run_answer_report(run, items, project_settings(project=project))
        assert section is not None
        print(
            f"answer section alone ({len(section['metrics'])} metrics, {n} queries): "
            f"{time.perf_counter() - t:.2f}s; quadrants {section['quadrants']}"
        )
    t = time.perf_counter()
    run_report(run)
    print(
        f"report recomputed from {n} stored rows (load + metrics): {time.perf_counter() - t:.2f}s"
    )
    items = golden_items(version_id=version.pk)
    rows = result_rows(run=run)
    t = time.perf_counter()
    reporting.build_report(items, rows, run_settings(run))
    print(f"aggregation alone (build_report, {n} queries): {time.perf_counter() - t:.2f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
