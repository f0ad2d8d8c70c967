"""Annotation benchmark: 10,000 queries × 30 candidates × 2 annotators in PostgreSQL.

Usage (against a database of its own; it is wiped):

    createdb -h 127.0.0.1 -U postgres gs_bench
    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/gs_bench GOLDSMITH_VAR_DIR=/tmp/gs-bench
    .venv/bin/python bench/annotation_bench.py setup          # data + timings of recomputation
    .venv/bin/python bench/annotation_bench.py serve-and-load # gunicorn + locust, 50 annotators
    .venv/bin/python bench/annotation_bench.py tie-rules      # share sent to a lead, per rule

`setup` builds the project (20,000 chunks, 10,000 queries, 300,000 candidates, 50 annotators,
20,000 assignments), stores judgments for 90 % of the queries (540,000 rows) and leaves the rest
for the load test to grade; it then times the project's agreement recomputation and the
dashboard summary. `serve-and-load` starts gunicorn (DEBUG off) and runs `bench/locustfile.py`
headless with 50 users, printing locust's percentiles. `tie-rules` sets each tie rule in turn
(`project_tie_rule_set`) and reports the share of finished queries flagged for a lead and how
many final grades each rule decided. Each annotator gives a chunk's true grade with probability
0.88, else a grade drawn at random (which may be the true one); with `setup --errors adjacent`
a grade one away from the true one instead (a mistake is never two grades off).
`setup --queries N` builds a smaller project with the same proportions.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SEED = 4
N_QUERIES = 10_000
N_CANDIDATES = 30
N_CHUNKS = 20_000
N_ANNOTATORS = 50
FINISHED_SHARE = 0.9
PASSWORD = "bench-password"
PROJECT = "Bench"
VOCABULARY = (
    "install python package pip virtual environment error import module path version upgrade "
    "windows linux mac file read write open close loop list dict string format date time zone "
    "thread process async await socket http request response json parse encode decode unicode "
    "test mock fixture class method function argument return value exception raise catch log"
)
WORDS = VOCABULARY.split()


def django_setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def setup(args: argparse.Namespace) -> dict[str, object]:
    django_setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from annotation.models import (
        Assignment,
        Candidate,
        Chunk,
        Document,
        Guideline,
        Judgment,
        Project,
        Query,
        QueryReview,
    )
    from annotation.models.judging import AssignmentStatus
    from annotation.services.pooling import shuffle_key
    from annotation.services.projects import project_setup

    assert connection.vendor == "postgresql", "the benchmark runs against PostgreSQL"
    call_command("migrate", verbosity=0)
    Project.objects.filter(name=PROJECT).delete()
    rng = random.Random(SEED)
    t0 = time.perf_counter()
    annotators = [f"bench{i:02d}" for i in range(N_ANNOTATORS)]
    project = project_setup(
        name=PROJECT, leads=["bench-lead"], annotators=annotators, password=PASSWORD
    ).project
    users = {u.username: u.pk for u in get_user_model().objects.filter(username__in=annotators)}
    Guideline.objects.create(project=project, version=1, markdown="# Grades\n\n2, 1 or 0.")
    docs = Document.objects.bulk_create(
        [Document(project=project, doc_id=f"d{i}", title=sentence(rng, 4)) for i in range(2000)],
        batch_size=5000,
    )
    Chunk.objects.bulk_create(
        [
            Chunk(
                project=project,
                document=docs[i % len(docs)],
                chunk_id=f"c{i}",
                text=" ".join(sentence(rng, 12) for _ in range(4)),
                position=i // len(docs),
                text_sha256=f"{i:064x}",
            )
            for i in range(N_CHUNKS)
        ],
        batch_size=5000,
    )
    chunk_ids = list(Chunk.objects.filter(project=project).values_list("id", flat=True))
    Query.objects.bulk_create(
        [
            Query(
                project=project,
                text=f"{sentence(rng, 5)} #{i}",
                normalized=f"q{i}",
                category=rng.choice(["howto", "error", "concept"]),
            )
            for i in range(args.queries)
        ],
        batch_size=5000,
    )
    query_ids = list(
        Query.objects.filter(project=project).order_by("id").values_list("id", flat=True)
    )
    Candidate.objects.bulk_create(
        [
            Candidate(query_id=q, chunk_id=c, shuffle_key=shuffle_key(q, c))
            for q in query_ids
            for c in rng.sample(chunk_ids, N_CANDIDATES)
        ],
        batch_size=10_000,
    )
    t_data = time.perf_counter()
    finished = set(rng.sample(query_ids, int(args.queries * FINISHED_SHARE)))
    order = dict.fromkeys(annotators, 0)
    assignments = []
    pairs: dict[int, list[int]] = {}
    for i, q in enumerate(query_ids):
        pair = [annotators[(2 * i) % N_ANNOTATORS], annotators[(2 * i + 1) % N_ANNOTATORS]]
        pairs[q] = [users[p] for p in pair]
        for name in pair:
            order[name] += 1
            done = q in finished
            assignments.append(
                Assignment(
                    query_id=q,
                    annotator_id=users[name],
                    order=order[name],
                    status=AssignmentStatus.DONE if done else AssignmentStatus.PENDING,
                    judged=N_CANDIDATES if done else 0,
                    total=N_CANDIDATES,
                )
            )
    Assignment.objects.bulk_create(assignments, batch_size=10_000)
    QueryReview.objects.bulk_create([QueryReview(query_id=q) for q in query_ids], batch_size=10_000)
    judgments = []
    for q, cand in Candidate.objects.filter(query_id__in=finished).values_list("query_id", "id"):
        truth = rng.choices([0, 1, 2], weights=[75, 15, 10])[0]
        for uid in pairs[q]:
            if rng.random() < 0.88:
                grade = truth
            elif args.errors == "adjacent":
                grade = rng.choice([g for g in (truth - 1, truth + 1) if 0 <= g <= 2])
            else:
                grade = rng.choice([0, 1, 2])
            judgments.append(
                Judgment(candidate_id=cand, annotator_id=uid, grade=grade, guideline_version=1)
            )
        if len(judgments) >= 50_000:
            Judgment.objects.bulk_create(judgments, batch_size=10_000)
            judgments = []
    Judgment.objects.bulk_create(judgments, batch_size=10_000)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    t_loaded = time.perf_counter()
    result = {
        "queries": args.queries,
        "candidates": Candidate.objects.filter(query__project=project).count(),
        "judgments": Judgment.objects.filter(candidate__query__project=project).count(),
        "annotators": N_ANNOTATORS,
        "build_seconds": round(t_data - t0, 1),
        "load_judgments_seconds": round(t_loaded - t_data, 1),
        **recompute(args),
    }
    print(json.dumps(result, indent=2))
    return result


def recompute(args: argparse.Namespace) -> dict[str, object]:
    """Time the project's agreement recomputation and the dashboard summary."""
    django_setup()
    from django.core.cache import cache
    from django.core.management import call_command

    from annotation.models import Project, QueryAgreement
    from annotation.services.adjudication import project_agreement_recompute
    from annotation.services.agreement import project_agreement

    call_command("migrate", verbosity=0)
    project = Project.objects.get(name=PROJECT)
    # Cold: no stored statistics, every finished query is computed and settled (flagged or
    # resolved by rule) — what happens once when judgments were loaded in bulk.
    QueryAgreement.objects.filter(query__project=project).update(signature="")
    start = time.perf_counter()
    n = project_agreement_recompute(project=project)
    cold = time.perf_counter() - start
    warm = []
    for _ in range(3):
        start = time.perf_counter()
        project_agreement_recompute(project=project)
        warm.append(time.perf_counter() - start)
    cache.clear()
    start = time.perf_counter()
    summary = project_agreement(project=project)
    summary_cold = time.perf_counter() - start
    start = time.perf_counter()
    project_agreement(project=project)
    summary_warm = time.perf_counter() - start
    result = {
        "recompute_queries": n,
        "recompute_cold_seconds": round(cold, 2),
        "recompute_warm_seconds": [round(t, 2) for t in warm],
        "dashboard_summary_cold_seconds": round(summary_cold, 2),
        "dashboard_summary_cached_seconds": round(summary_warm, 3),
        "alpha_ordinal": summary["alpha_ordinal"],
        "states": summary["states"],
        "project_id": project.pk,
    }
    if args.command == "recompute":
        print(json.dumps(result, indent=2))
    return result


def tie_rules(args: argparse.Namespace) -> dict[str, object]:
    """Under each tie rule: the share of finished queries flagged for a lead, the flag reasons,
    how many final grades each rule decided, and how long settling again took. The project's
    rule is put back afterwards."""
    django_setup()
    from collections import Counter

    from annotation.models import Project, QueryAgreement, QueryReview
    from annotation.selectors.judging import grades_decided_by
    from annotation.services.adjudication import project_tie_rule_set

    project = Project.objects.get(name=PROJECT)
    before = project.tie_rule
    result: dict[str, object] = {}
    for rule in ("lead", "lower", "higher"):
        start = time.perf_counter()
        changed = project_tie_rule_set(project=project, tie_rule=rule)
        seconds = time.perf_counter() - start
        states = Counter(
            QueryReview.objects.filter(query__project=project).values_list("state", flat=True)
        )
        finished = states["flagged"] + states["resolved"] + states["approved"]
        reasons = Counter(
            reason
            for row in QueryAgreement.objects.filter(
                query__project=project, flagged=True
            ).values_list("flag_reasons", flat=True)
            for reason in row
        )
        result[rule] = {
            "finished": finished,
            "flagged": states["flagged"],
            "flagged_share": round(states["flagged"] / finished, 4) if finished else None,
            "flag_reasons": dict(sorted(reasons.items())),
            "grades_decided_by": {
                row["provenance"]: row["count"] for row in grades_decided_by(project=project)
            },
            "queries_changed": changed,
            "settle_seconds": round(seconds, 2),
        }
    project_tie_rule_set(project=project, tie_rule=before)
    print(json.dumps(result, indent=2))
    return result


def make_sessions() -> dict[str, dict[str, str]]:
    """A signed-in session and a CSRF token per annotator: username → cookies."""
    django_setup()
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore

    out = {}
    for user in get_user_model().objects.filter(username__startswith="bench"):
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        out[user.username] = {"sessionid": store.session_key, "csrftoken": secrets.token_hex(16)}
    return out


def serve_and_load(args: argparse.Namespace) -> None:
    env = dict(os.environ)
    env.update(
        {
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(60),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "0",
            "LOG_LEVEL": "WARNING",
        }
    )
    env["GOLDSMITH_VAR_DIR"] = env.get("GOLDSMITH_VAR_DIR", "/tmp/gs-bench")
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env
    )
    # Signing in is not part of the measured work (a password hash costs ~0.5 s of CPU by
    # design): the annotators' sessions are created beforehand, with the server's SECRET_KEY.
    os.environ.update(env)
    sessions = ROOT / "bench" / "out" / "sessions.json"
    sessions.parent.mkdir(parents=True, exist_ok=True)
    sessions.write_text(json.dumps(make_sessions()))
    bind = f"127.0.0.1:{args.port}"
    server = subprocess.Popen(
        [
            str(Path(sys.executable).with_name("gunicorn")),
            "config.wsgi",
            "--bind",
            bind,
            "--workers",
            str(args.workers),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    try:
        time.sleep(4)
        import urllib.request

        for _ in range(4 * args.workers):  # load the URLconf and views in every worker
            urllib.request.urlopen(f"http://{bind}/login/").read()
        stats = ROOT / "bench" / "out" / "annotation"
        stats.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                str(Path(sys.executable).with_name("locust")),
                "-f",
                str(ROOT / "bench" / "locustfile.py"),
                "--headless",
                "-u",
                str(args.users),
                "-r",
                str(args.spawn_rate),
                "-t",
                args.duration,
                "--host",
                f"http://{bind}",
                "--csv",
                str(stats),
                "--only-summary",
            ],
            cwd=ROOT,
            env={**env, "BENCH_SESSIONS": str(sessions)},
            check=False,
        )
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("setup")
    build.add_argument("--queries", type=int, default=N_QUERIES)
    build.add_argument("--errors", choices=["uniform", "adjacent"], default="uniform")
    sub.add_parser("recompute")
    sub.add_parser("tie-rules")
    load = sub.add_parser("serve-and-load")
    load.add_argument("--users", type=int, default=N_ANNOTATORS)
    load.add_argument("--duration", default="3m")
    load.add_argument("--workers", type=int, default=4)
    load.add_argument("--spawn-rate", type=float, default=2.0, help="users started per second")
    load.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    commands = {
        "setup": setup,
        "recompute": recompute,
        "serve-and-load": serve_and_load,
        "tie-rules": tie_rules,
    }
    commands[args.command](args)


if __name__ == "__main__":
    main()
