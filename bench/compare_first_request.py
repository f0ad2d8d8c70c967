"""Benchmark: the compare page's first request after a web server starts.

    createdb -h 127.0.0.1 -U postgres gs_bench_compare
    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/gs_bench_compare
    GOLDSMITH_VAR_DIR=/tmp/gs-bench .venv/bin/python bench/compare_first_request.py \
        --queries 20 500 2000 --starts 5

For each size it builds (once; it is kept for later runs) a project "bench-compare-N" with a
golden set of N queries and two succeeded runs of two run-file retrievers (cut-offs 1 3 5 10, so
the comparison covers 34 metrics), then, `--starts` times: starts a fresh server process (gunicorn
with one worker and DEBUG off, as in production; `--server runserver` for `manage.py runserver
--noreload`), waits until GET /healthz answers (the readiness probe of a deployment), and times
the first GET of the compare page, then a second one, with a signed-in lead's session cookie. It
prints every figure and the median of each: the server's start time (spawn to healthz), the wall
time of each request, and the CPU seconds the server's processes spent on it (from /proc, so
that a busy machine shows in the wall time but hardly in the CPU time).
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from benchlib import ROOT, cpu_seconds, django_setup, production, session_key, wait_healthy

production(os.environ)  # the servers started here run as in production, over plain HTTP
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
os.environ.setdefault("LOG_LEVEL", "WARNING")
LEAD = "bench-compare-lead"


def build(n: int) -> tuple[int, int, int]:
    """The project of ``n`` queries with its two runs (created once): (project, run A, run B)."""
    from django.contrib.auth import get_user_model

    from annotation.models import Project
    from annotation.services.goldsets import LoadedGoldset, golden_set_version_import
    from annotation.services.projects import membership_set
    from evaluation.models import EvaluationRun, RunState
    from evaluation.services.retrievers import retriever_save
    from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
    from goldsmith.formats.goldset import GoldenQuery, GoldJudgment

    name = f"bench-compare-{n}"
    project = Project.objects.filter(name=name).first()
    if project is not None:
        runs = EvaluationRun.objects.filter(project=project, state=RunState.SUCCEEDED)
        ids = sorted(runs.values_list("id", flat=True))
        if len(ids) >= 2:
            return project.pk, ids[0], ids[1]
        project.delete()
    if not get_user_model().objects.filter(username=LEAD).exists():
        get_user_model().objects.create_user(LEAD, password=secrets.token_urlsafe(16))
    project = Project.objects.create(name=name)
    membership_set(project=project, username=LEAD, role="lead")
    queries = []
    for i in range(n):
        judged = tuple(
            GoldJudgment(f"c{i}-{j}", 2 if j < 3 else (1 if j == 3 else 0)) for j in range(6)
        )
        queries.append(
            GoldenQuery(f"q{i}", f"how do I do thing {i}?", judged, category=f"cat{i % 5}")
        )
    version = golden_set_version_import(
        project=project, by=None, loaded=LoadedGoldset(queries, None, None, "bench"), fmt="jsonl",
        label="v1",
    )  # fmt: skip
    run_ids = []
    for shift, label in ((3, "a"), (5, "b")):
        lines = []
        for i in range(n):
            ranked = [f"x{i}-{j}" for j in range(10)]
            for j in range(3):  # relevant chunks at depths that vary with the query and the run
                ranked.insert((i * (j + shift)) % 10, f"c{i}-{j}")
            lines += [f"q{i} Q0 {c} {r} {20 - r} {label}\n" for r, c in enumerate(ranked[:10], 1)]
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
            handle.writelines(lines)
        retriever = retriever_save(
            project=project, name=f"run-{label}", kind="runfile", run_file=Path(handle.name)
        )
        Path(handle.name).unlink()
        run = evaluation_run_create(
            project=project, retriever=retriever, version=version, ks=[1, 3, 5, 10], enqueue=False
        )
        run = evaluation_run_execute_inline(run_id=run.pk)
        assert run.state == RunState.SUCCEEDED, run.error
        run_ids.append(run.pk)
    return project.pk, run_ids[0], run_ids[1]


def session_cookie() -> str:
    from django.contrib.auth import get_user_model

    return f"sessionid={session_key(get_user_model().objects.get(username=LEAD))}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, cookie: str | None = None) -> tuple[int, float, bytes]:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as response:
        body = response.read()
        return response.status, time.perf_counter() - start, body


def one_start(server: str, url: str, cookie: str, repo: Path) -> dict[str, float]:
    port = free_port()
    if server == "gunicorn":
        command = [str(Path(sys.executable).with_name("gunicorn")), "config.wsgi", "--bind",
                   f"127.0.0.1:{port}", "--workers", "1", "--log-level", "warning"]  # fmt: skip
    else:
        command = [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"]
    spawned = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, process, every=0.05)
        ready = time.perf_counter() - spawned
        time.sleep(0.5)  # let the worker settle after answering the probe
        cpu = cpu_seconds(process.pid)
        status, first, body = get(base + url, cookie)
        cpu_first = cpu_seconds(process.pid) - cpu
        assert status == 200 and b"win / tie / loss" in body, (status, body[:300])
        cpu = cpu_seconds(process.pid)
        status, second, _ = get(base + url, cookie)
        cpu_second = cpu_seconds(process.pid) - cpu
        return {
            "start": ready,
            "first": first,
            "second": second,
            "first_cpu": cpu_first,
            "second_cpu": cpu_second,
        }
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, nargs="+", default=[20, 500])
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--server", choices=("gunicorn", "runserver"), default="gunicorn")
    parser.add_argument(
        "--repo",
        type=Path,
        default=ROOT,
        help="serve from this checkout (e.g. `git archive OLD | tar -x -C DIR` for a before "
        "figure; the data is built by this one)",
    )
    args = parser.parse_args()

    django_setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # DEBUG off: the manifest
    built = {n: build(n) for n in args.queries}
    cookie = session_cookie()
    for n, (project, a, b) in built.items():
        url = f"/projects/{project}/runs/compare/?a={a}&b={b}"
        rows = [one_start(args.server, url, cookie, args.repo) for _ in range(args.starts)]
        for key in ("start", "first", "second", "first_cpu", "second_cpu"):
            values = [r[key] * 1000 for r in rows]
            median = statistics.median(values)
            print(
                f"{n:>6} queries  {args.server:<9}  {key:<10} median {median:7.0f} ms"
                f"   (each: {' '.join(f'{v:.0f}' for v in values)})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
