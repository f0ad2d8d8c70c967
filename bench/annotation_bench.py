"""Annotation benchmark: 10,000 queries × 30 candidates × 2 annotators in PostgreSQL.

Usage (against a database of its own; it is wiped):

    createdb -h 127.0.0.1 -U postgres gs_bench
    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/gs_bench GOLDSMITH_VAR_DIR=/tmp/gs-bench
    .venv/bin/python bench/annotation_bench.py setup          # data + timings of recomputation
    .venv/bin/python bench/annotation_bench.py serve-and-load # gunicorn + locust, 50 annotators
    .venv/bin/python bench/annotation_bench.py tie-rules      # share sent to a lead, per rule
    .venv/bin/python bench/annotation_bench.py escalation     # the same with a third annotator

`setup` builds the project (20,000 chunks, 10,000 queries, 300,000 candidates, 50 annotators,
20,000 assignments), stores judgments for 90 % of the queries (540,000 rows) and leaves the rest
for the load test to grade; it then times the project's agreement recomputation and the
dashboard summary. `serve-and-load` starts gunicorn (DEBUG off) and runs `bench/locustfile.py`
headless with 50 users, printing locust's percentiles. `tie-rules` sets each tie rule in turn
(`project_tie_rule_set`) and reports the share of finished queries flagged for a lead and how
many final grades each rule decided. `escalation` sets the `lower` rule, switches escalation on
(`project_escalation_set`: every flagged query gets one more annotator, chosen by the balancing
rule), grades those third assignments with the same simulated annotators, settles the project
(`project_agreement_recompute`) and reports the share of finished queries still sent to a
lead; it then takes the third annotators away again.

The simulated annotators (`setup --agreement`, `--level`, `--errors`):
- `--agreement pairwise` (default): calibrated so that two annotators give the same grade to a
  chunk with probability `--level` (0.88: "88 % agreement per chunk"). Each gives the chunk's
  true grade with the accuracy that yields it (solved from the error model and the grade
  mix), else a mistake: one of the other two grades at random (`--errors uniform`) or a grade
  one away from the true one (`--errors adjacent`).
- `--agreement accuracy`: the benchmark as it was: each annotator gives the true grade with
  probability `--level`, else a grade drawn at random from 0/1/2 (which may be the true one),
  or with `--errors adjacent` one away. Two such annotators agree on fewer chunks (84.9 % at
  0.88 with random mistakes).
The true grades are 0/1/2 with weights 75/15/10; every draw is seeded per candidate (and
annotator), so the third annotator of `escalation` is simulated exactly like the first two.
Every command prints the measured share of chunks on which the two first annotators agree.
`setup --queries N` builds a smaller project with the same proportions.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import secrets
import subprocess
import sys
import time
from pathlib import Path

from benchlib import session_key

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


TRUTH_WEIGHTS = (75, 15, 10)  # grades 0, 1, 2


def params_path() -> Path:
    return Path(os.environ.get("GOLDSMITH_VAR_DIR", ROOT / "var")) / "annotation_bench.json"


def calibrated_accuracy(level: float, errors: str) -> float:
    """The accuracy a (probability of the true grade) at which two independent annotators give
    the same grade with probability `level`: P(agree) = a² + (1 − a)² · c, with c the chance
    that two mistakes on one chunk are the same grade (uniform mistakes: 1/2 for every true
    grade; adjacent: 1 for true grades 0 and 2, which have one neighbour, 1/2 for 1), weighted
    by the grade mix. Solved for a: (1 + c)a² − 2ca + c − level = 0, the root above 1/2."""
    total = sum(TRUTH_WEIGHTS)
    if errors == "adjacent":
        c = (TRUTH_WEIGHTS[0] + TRUTH_WEIGHTS[1] / 2 + TRUTH_WEIGHTS[2]) / total
    else:
        c = 0.5
    lowest = c / (1 + c)  # the agreement at a = c / (1 + c), where it is least
    if not lowest <= level <= 1:
        raise SystemExit(f"--level {level}: pairwise agreement can be set in [{lowest:.3f}, 1]")
    return (2 * c + math.sqrt(4 * c * c - 4 * (1 + c) * (c - level))) / (2 * (1 + c))


def simulated_grade(params: dict[str, object], candidate: int, annotator: int) -> int:
    """The grade simulated annotator `annotator` gives candidate `candidate` (deterministic)."""
    truth = random.Random(f"{SEED}:truth:{candidate}").choices([0, 1, 2], TRUTH_WEIGHTS)[0]
    rng = random.Random(f"{SEED}:grade:{candidate}:{annotator}")
    accuracy = float(params["accuracy"])  # type: ignore[arg-type]
    neighbours = [g for g in (truth - 1, truth + 1) if 0 <= g <= 2]
    if params["agreement"] == "accuracy":
        if rng.random() < accuracy:
            return truth
        return rng.choice(neighbours) if params["errors"] == "adjacent" else rng.choice([0, 1, 2])
    if rng.random() < accuracy:
        return truth
    if params["errors"] == "adjacent":
        return rng.choice(neighbours)
    return rng.choice([g for g in (0, 1, 2) if g != truth])


def measured_agreement(project) -> dict[str, float]:
    """Shares of the chunks graded by both first annotators (the assignments that are not
    escalations) on which they give equal grades, grades one apart, two apart."""
    from collections import Counter, defaultdict

    from annotation.models import Assignment, Judgment

    first = set(
        Assignment.objects.filter(query__project=project, escalation=False).values_list(
            "query_id", "annotator_id"
        )
    )
    by_candidate: dict[int, list[int]] = defaultdict(list)
    for qid, cid, uid, grade in Judgment.objects.filter(
        candidate__query__project=project
    ).values_list("candidate__query_id", "candidate_id", "annotator_id", "grade"):
        if (qid, uid) in first:
            by_candidate[cid].append(grade)
    gaps = Counter(max(g) - min(g) for g in by_candidate.values() if len(g) == 2)
    n = sum(gaps.values()) or 1
    return {
        "chunks": sum(gaps.values()),
        "equal": round(gaps[0] / n, 4),
        "one_apart": round(gaps[1] / n, 4),
        "two_apart": round(gaps[2] / n, 4),
    }


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
    params: dict[str, object] = {
        "agreement": args.agreement,
        "level": args.level,
        "errors": args.errors,
        "accuracy": args.level
        if args.agreement == "accuracy"
        else calibrated_accuracy(args.level, args.errors),
    }
    params_path().parent.mkdir(parents=True, exist_ok=True)
    params_path().write_text(json.dumps(params))
    judgments = []
    for q, cand in Candidate.objects.filter(query_id__in=finished).values_list("query_id", "id"):
        for uid in pairs[q]:
            grade = simulated_grade(params, cand, uid)
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
        "annotators_simulated": params,
        "measured_agreement": measured_agreement(project),
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
    from annotation.services.adjudication import project_kappa_weights_set, project_tie_rule_set

    project = Project.objects.get(name=PROJECT)
    before = project.tie_rule
    weights_before = project.kappa_weights
    project_kappa_weights_set(project=project, kappa_weights=args.kappa)
    project.refresh_from_db()
    result: dict[str, object] = {
        "annotators_simulated": json.loads(params_path().read_text())
        if params_path().exists()
        else None,
        "measured_agreement": measured_agreement(project),
        "kappa_weights": args.kappa,
    }
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
    project_kappa_weights_set(project=project, kappa_weights=weights_before)
    print(json.dumps(result, indent=2))
    return result


def lead_share(project) -> dict[str, object]:
    """The share of finished queries flagged for a lead, why, and who decided the grades."""
    from collections import Counter

    from annotation.models import QueryAgreement, QueryReview
    from annotation.selectors.judging import grades_decided_by

    states = Counter(
        QueryReview.objects.filter(query__project=project).values_list("state", flat=True)
    )
    finished = states["flagged"] + states["resolved"] + states["approved"] + states["escalated"]
    reasons = Counter(
        reason
        for row in QueryAgreement.objects.filter(
            query__project=project, flagged=True, query__review__state="flagged"
        ).values_list("flag_reasons", flat=True)
        for reason in row
    )
    return {
        "finished": finished,
        "flagged": states["flagged"],
        "flagged_share": round(states["flagged"] / finished, 4) if finished else None,
        "waiting_for_one_more_annotator": states["escalated"],
        "flag_reasons": dict(sorted(reasons.items())),
        "grades_decided_by": {
            row["provenance"]: row["count"] for row in grades_decided_by(project=project)
        },
    }


def escalation(args: argparse.Namespace) -> dict[str, object]:
    """The share of finished queries sent to a lead with the `lower` tie rule, without and with
    escalation to a third annotator simulated like the first two. Afterwards the third
    annotators' assignments and grades are removed, escalation is switched off and the
    project is settled again as it was."""
    django_setup()
    from django.db import transaction
    from django.db.models import F

    from annotation.models import Assignment, Candidate, Judgment, Project, QueryReview
    from annotation.models.judging import AssignmentStatus
    from annotation.services.adjudication import (
        project_agreement_recompute,
        project_escalation_set,
        project_kappa_weights_set,
        project_tie_rule_set,
    )

    params = json.loads(params_path().read_text())
    project = Project.objects.get(name=PROJECT)
    weights_before = project.kappa_weights
    project_escalation_set(project=project, escalate=False)
    project_tie_rule_set(project=project, tie_rule="lower")
    project_kappa_weights_set(project=project, kappa_weights=args.kappa)
    project.refresh_from_db()
    result: dict[str, object] = {
        "annotators_simulated": params,
        "kappa_weights": args.kappa,
        "measured_agreement": measured_agreement(project),
        "lower": lead_share(project),
    }
    start = time.perf_counter()
    change = project_escalation_set(project=project, escalate=True)
    escalate_seconds = time.perf_counter() - start
    extra = list(
        Assignment.objects.filter(query__project=project, escalation=True).values_list(
            "id", "query_id", "annotator_id"
        )
    )
    candidates: dict[int, list[int]] = {}
    for qid, cid in Candidate.objects.filter(query_id__in=[q for _, q, _ in extra]).values_list(
        "query_id", "id"
    ):
        candidates.setdefault(qid, []).append(cid)
    with transaction.atomic():
        Judgment.objects.bulk_create(
            [
                Judgment(
                    candidate_id=cid,
                    annotator_id=uid,
                    grade=simulated_grade(params, cid, uid),
                    guideline_version=1,
                )
                for _, qid, uid in extra
                for cid in candidates[qid]
            ],
            batch_size=10_000,
        )
        Assignment.objects.filter(query__project=project, escalation=True).update(
            status=AssignmentStatus.DONE, judged=F("total")
        )
    start = time.perf_counter()
    project.refresh_from_db()
    project_agreement_recompute(project=project)
    settle_seconds = time.perf_counter() - start
    result["lower_with_escalation"] = {
        "escalated": change.escalated,
        "escalate_seconds": round(escalate_seconds, 2),
        "settle_seconds": round(settle_seconds, 2),
        **lead_share(project),
    }
    # Put the project back as `setup` left it (two annotators a query, no escalation).
    by_annotator: dict[int, list[int]] = {}
    for _, qid, uid in extra:
        by_annotator.setdefault(uid, []).append(qid)
    with transaction.atomic():
        for uid, qids in by_annotator.items():
            Judgment.objects.filter(candidate__query_id__in=qids, annotator_id=uid).delete()
        Assignment.objects.filter(query__project=project, escalation=True).delete()
        QueryReview.objects.filter(query__project=project).exclude(escalation="").update(
            escalation="", state="open"
        )
    project_escalation_set(project=project, escalate=False)
    project.refresh_from_db()
    project_agreement_recompute(project=project)
    project_kappa_weights_set(project=project, kappa_weights=weights_before)
    print(json.dumps(result, indent=2))
    return result


def make_sessions() -> dict[str, dict[str, str]]:
    """A signed-in session and a CSRF token per annotator: username → cookies."""
    django_setup()
    from django.contrib.auth import get_user_model

    return {
        user.username: {"sessionid": session_key(user), "csrftoken": secrets.token_hex(16)}
        for user in get_user_model().objects.filter(username__startswith="bench")
    }


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
    build.add_argument(
        "--agreement",
        choices=["pairwise", "accuracy"],
        default="pairwise",
        help="pairwise: two annotators agree on a chunk with probability --level; accuracy: "
        "each gives the true grade with probability --level (the benchmark as it was)",
    )
    build.add_argument("--level", type=float, default=0.88)
    sub.add_parser("recompute")
    for name in ("tie-rules", "escalation"):
        rules = sub.add_parser(name)
        rules.add_argument(
            "--kappa",
            choices=["unweighted", "linear"],
            default="unweighted",
            help="the kappa the flag rule reads (the project setting kappa_weights)",
        )
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
        "escalation": escalation,
    }
    commands[args.command](args)


if __name__ == "__main__":
    main()
