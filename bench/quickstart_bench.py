"""Quick-start benchmark: 16 annotators at once against the server exactly as `make run` runs it.

The probe: 16 clients at once, 30,000 candidates (1,000 queries x 30, every query
assigned to 2 of 16 annotators); each client is one annotator working through its queue, and
each operation opens a query's annotation page (the HTML page a person opens) and saves one
grade on it (the API call the page's JavaScript makes), with no pause between operations.
After the run the server is stopped as Ctrl-C stops it, and every save that was answered 200
is looked up in the database: the grade must be there, and each annotator's progress count
must equal its judgments.

    # SQLite + the embedded broker, as `make run` (no DATABASE_URL, no REDIS_URL):
    env -u DATABASE_URL -u REDIS_URL .venv/bin/python bench/quickstart_bench.py
    # PostgreSQL + gunicorn (a database of its own: its bench project is rebuilt):
    createdb -h 127.0.0.1 -U postgres gs_quickstart_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gs_quickstart_bench \\
        .venv/bin/python bench/quickstart_bench.py

The data live in their own var directory (--var-dir, /tmp/goldsmith-quickstart-bench), never in
the clone's var/. The server is `manage.py serve` — what `make run` runs after `migrate` and
`load_demo` (the demo project is not loaded: it is not what is measured; --serve-args passes
options such as "--processes 4"). Sessions are made beforehand: signing in is not what is
measured. Each client is a process of its own; the first --warmup seconds are not measured.
Prints the figures as JSON (--json also writes them to a file), with the server's CPU per
operation (its process group's, from /proc: less sensitive to other programs than the times)
and the machine's load average, since the clients and the server share the machine.
--reuse-build starts the next SQLite run from a copy of the database the last run built.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import re
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import urllib3
from benchlib import ROOT, django_setup, sentence, sentences_corpus, session_key, wait_healthy

SEED = 16
PROJECT = "Quickstart bench"
N_CLIENTS = 16
N_QUERIES = 1_000
PER_QUERY = 30
N_CHUNKS = 10_000
CANDIDATE = re.compile(r'data-candidate-id="(\d+)"')


def build(annotators: int) -> dict[str, object]:
    """The bench project through the real services: 1,000 queries x 30 candidates, each query
    assigned to 2 annotators. Returns the project id and a signed-in session per annotator."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from annotation.models import PoolSource, Project, Query
    from annotation.models.judging import SourceKind
    from annotation.services.assignment import queries_assign
    from annotation.services.judging import guideline_publish
    from annotation.services.pool_hits import pool_add_hits
    from annotation.services.projects import project_setup

    call_command("migrate", verbosity=0)
    Project.objects.filter(name=PROJECT).delete()
    rng = random.Random(SEED)
    names = [f"qs{i:02d}" for i in range(annotators)]
    project = project_setup(name=PROJECT, leads=["qs-lead"], annotators=names).project
    lead = get_user_model().objects.get(username="qs-lead")
    guideline_publish(project=project, markdown="# Grades\n\n2, 1 or 0.", by=lead)
    chunk_ids = sentences_corpus(project, rng, 1000, N_CHUNKS, batch_size=2000)
    Query.objects.bulk_create(
        [
            Query(project=project, text=f"{sentence(rng, 6)} #{i}", normalized=f"q{i}")
            for i in range(N_QUERIES)
        ]
    )
    query_ids = list(Query.objects.filter(project=project).values_list("id", flat=True))
    source = PoolSource.objects.create(project=project, name="bench", kind=SourceKind.RUN)
    pool_add_hits(source=source, hits={q: rng.sample(chunk_ids, PER_QUERY) for q in query_ids})
    queries_assign(project=project, per_query=2)
    sessions = {
        user.username: {"sessionid": session_key(user), "csrftoken": secrets.token_hex(16)}
        for user in get_user_model().objects.filter(username__in=names)
    }
    return {"project_id": project.pk, "sessions": sessions}


@dataclass
class Client:
    """One annotator: opens the next query of its queue and grades its next candidate."""

    name: str
    cookies: dict[str, str]
    project_id: int
    base: str
    opens: list[tuple[float, float]] = field(default_factory=list)  # (start, seconds)
    saves: list[tuple[float, float]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    saved: dict[int, int] = field(default_factory=dict)  # candidate -> grade answered 200

    def run(self, stop) -> None:
        rng = random.Random(self.name)
        pool = urllib3.HTTPConnectionPool(
            self.base.split("//")[1].split(":")[0],
            int(self.base.rsplit(":", 1)[1]),
            maxsize=1,
            timeout=urllib3.Timeout(total=120),
            retries=False,
        )
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        headers = {"Cookie": cookie}
        queue = json.loads(
            pool.request("GET", f"/api/v1/projects/{self.project_id}/queue/", headers=headers).data
        )
        todo = [item["query_id"] for item in queue["items"] if item["status"] != "done"]
        put_headers = {
            **headers,
            "X-CSRFToken": self.cookies["csrftoken"],
            "Content-Type": "application/json",
        }
        while todo and not stop.is_set():
            query_id = todo[0]
            try:
                start = time.perf_counter()
                page = pool.request("GET", f"/projects/{self.project_id}/annotate/{query_id}/",
                                    headers=headers)  # fmt: skip
                self.opens.append((start, time.perf_counter() - start))
                if page.status != 200:
                    self.errors.append(f"open {query_id}: {page.status}")
                    todo.pop(0)
                    continue
                ungraded = [int(c) for c in CANDIDATE.findall(page.data.decode())]
                ungraded = [c for c in ungraded if c not in self.saved]
                if len(ungraded) <= 1:
                    todo.pop(0)
                if not ungraded:
                    continue
                candidate, grade = ungraded[0], rng.choices([0, 1, 2], weights=[75, 15, 10])[0]
                start = time.perf_counter()
                response = pool.request(
                    "PUT",
                    f"/api/v1/projects/{self.project_id}/candidates/{candidate}/judgment/",
                    body=json.dumps({"grade": grade}),
                    headers=put_headers,
                )
                self.saves.append((start, time.perf_counter() - start))
                if response.status == 200:
                    self.saved[candidate] = grade
                else:
                    self.errors.append(
                        f"save {candidate}: {response.status} {response.data[:200]!r}"
                    )
            except Exception as error:  # a refused or dropped connection is an error too
                self.errors.append(f"{type(error).__name__}: {error}")


def run_client(client: Client, stop, send) -> None:
    try:
        client.run(stop)
    except Exception as error:
        client.errors.append(f"the client stopped: {type(error).__name__}: {error}")
    send.send(client)
    send.close()


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def group_cpu_seconds(pgid: int) -> float:
    """CPU seconds (user + system) used so far by the live processes of a process group: the
    server's own cost, which the load of other programs on the machine changes much less than
    its response times."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        if int(fields[2]) == pgid:  # fields[2] is the process group (5th field of the file)
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def verify(project_id: int, clients: list[Client]) -> dict[str, int]:
    """Every save answered 200 is in the database with its grade; progress counts are exact."""
    from annotation.models import Assignment, Judgment

    users = {c.name for c in clients}
    stored = {
        (name, cand): grade
        for name, cand, grade in Judgment.objects.filter(
            candidate__query__project_id=project_id, annotator__username__in=users
        ).values_list("annotator__username", "candidate_id", "grade")
    }
    answered = {(c.name, cand): grade for c in clients for cand, grade in c.saved.items()}
    lost = sum(1 for key in answered if key not in stored)
    wrong = sum(1 for key, grade in answered.items() if key in stored and stored[key] != grade)
    counts = Counter(
        Judgment.objects.filter(
            candidate__query__project_id=project_id, annotator__username__in=users
        ).values_list("candidate__query_id", "annotator__username")
    )
    off = sum(
        1
        for query_id, name, judged in Assignment.objects.filter(
            query__project_id=project_id
        ).values_list("query_id", "annotator__username", "judged")
        if judged != counts.get((query_id, name), 0)
    )
    return {
        "saves_answered_200": len(answered),
        "judgments_stored": len(stored),
        "lost": lost,
        "wrong_grade": wrong,
        "progress_counts_off": off,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=N_CLIENTS)
    parser.add_argument("--duration", type=float, default=120, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=10, help="seconds of load not measured")
    parser.add_argument("--port", type=int, default=8790)
    parser.add_argument("--var-dir", default="/tmp/goldsmith-quickstart-bench")
    parser.add_argument("--serve-args", default="", help="extra arguments for manage.py serve")
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument(
        "--reuse-build",
        action="store_true",
        help="SQLite only: start from a copy of the database the last run built (runs in a row)",
    )
    args = parser.parse_args()

    var_dir = Path(args.var_dir)
    sqlite = not os.environ.get("DATABASE_URL")
    if sqlite:  # a fresh SQLite file and broker every run (collected static files stay)
        for path in var_dir.glob("goldsmith.sqlite3*"):
            path.unlink()
        shutil.rmtree(var_dir / "broker", ignore_errors=True)
    os.environ["GOLDSMITH_VAR_DIR"] = str(var_dir)
    django_setup()
    from django.db import connection

    t0 = time.perf_counter()
    snapshot, snapshot_info = var_dir / "built.sqlite3", var_dir / "built.json"
    if sqlite and args.reuse_build and snapshot.exists() and snapshot_info.exists():
        shutil.copyfile(snapshot, var_dir / "goldsmith.sqlite3")
        built = json.loads(snapshot_info.read_text())
    else:
        built = build(args.clients)
        if sqlite:
            with connection.cursor() as cursor:
                snapshot.unlink(missing_ok=True)
                cursor.execute("VACUUM INTO %s", [str(snapshot)])
            snapshot_info.write_text(json.dumps(built))
    build_seconds = time.perf_counter() - t0
    connection.close()  # the server's processes are the only users from here on

    base = f"http://127.0.0.1:{args.port}"
    log = (var_dir / "serve.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(args.port), *args.serve_args.split()],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    loads: list[float] = []
    try:
        wait_healthy(base, server)
        clients = [
            Client(name=name, cookies=cookies, project_id=built["project_id"], base=base)
            for name, cookies in sorted(built["sessions"].items())
        ]
        # One process per client, so that no client waits for another's turn at the GIL.
        fork = multiprocessing.get_context("fork")
        stop = fork.Event()
        pipes, processes = [], []
        load_before = os.getloadavg()
        for client in clients:
            receive, send = fork.Pipe(duplex=False)
            process = fork.Process(target=run_client, args=(client, stop, send))
            process.start()
            pipes.append(receive)
            processes.append(process)
        started = time.perf_counter()
        measured_from = started + args.warmup
        measured_to = measured_from + args.duration
        time.sleep(args.warmup)
        cpu_from = group_cpu_seconds(server.pid)
        while time.perf_counter() < measured_to:
            time.sleep(min(5, max(0, measured_to - time.perf_counter())))
            loads.append(os.getloadavg()[0])
        server_cpu = group_cpu_seconds(server.pid) - cpu_from
        stop.set()
        clients = [receive.recv() for receive in pipes]
        for process in processes:
            process.join()
    finally:
        os.killpg(server.pid, signal.SIGINT)  # as Ctrl-C in the terminal
        try:
            server.wait(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        log.close()

    def window(samples: list[tuple[float, float]]) -> list[float]:
        return [s for start, s in samples if measured_from <= start < measured_to]

    saves = [s for c in clients for s in window(c.saves)]
    opens = [s for c in clients for s in window(c.opens)]
    errors = [e for c in clients for e in c.errors]
    checked = verify(built["project_id"], clients)
    ms = 1000
    result = {
        "database": "sqlite" if sqlite else "postgresql",
        "broker": "redis" if os.environ.get("REDIS_URL") else "embedded",
        "clients": args.clients,
        "candidates": N_QUERIES * PER_QUERY,
        "build_seconds": round(build_seconds, 1),
        "measured_seconds": args.duration,
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_during": [round(min(loads), 2), round(max(loads), 2)] if loads else None,
        "cores": os.cpu_count(),
        "server_cpu_ms_per_operation": round(server_cpu / max(len(saves), 1) * 1000, 1),
        "saves": len(saves),
        "grades_per_second": round(len(saves) / args.duration, 1),
        "save_ms": {
            **{f"p{q}": round(percentile(saves, q) * ms) for q in (50, 95, 99)},
            "max": round(max(saves, default=0) * ms),
            "mean": round(statistics.fmean(saves) * ms) if saves else None,
            "over_1s_share": round(sum(s > 1 for s in saves) / max(len(saves), 1), 4),
        },
        "opens": len(opens),
        "open_ms": {f"p{q}": round(percentile(opens, q) * ms) for q in (50, 95, 99)},
        "errors": len(errors),
        "first_errors": errors[:5],
        **checked,
        "serve_output": (var_dir / "serve.log").read_text(errors="replace").splitlines()[:4],
    }
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    ok = (
        result["save_ms"]["p95"] <= 150
        and result["save_ms"]["p99"] <= 400
        and not errors
        and not checked["lost"]
        and not checked["wrong_grade"]
    )
    print("targets (save p95 <= 150 ms, p99 <= 400 ms, 0 errors, nothing lost):",
          "met" if ok else "NOT met")  # fmt: skip


if __name__ == "__main__":
    main()
