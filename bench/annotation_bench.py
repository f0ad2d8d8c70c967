"""Annotation benchmark: 10,000 queries × 30 candidates × 2 annotators in PostgreSQL.

Usage (against a database of its own; it is wiped):

    createdb -h 127.0.0.1 -U postgres gs_bench
    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/gs_bench GOLDSMITH_VAR_DIR=/tmp/gs-bench
    .venv/bin/python bench/annotation_bench.py setup          # data + timings of recomputation
    .venv/bin/python bench/annotation_bench.py serve-and-load # gunicorn + locust, 50 annotators
    .venv/bin/python bench/annotation_bench.py tie-rules      # share sent to a lead, per rule
    .venv/bin/python bench/annotation_bench.py escalation     # the same with a third annotator
    .venv/bin/python bench/annotation_bench.py cranfield-lead # no database: Cranfield's truth
    .venv/bin/python bench/annotation_bench.py synthetic-lead # no database: escalation's share

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
- `--errors real-mix`: real assessors' disagreements (Parry et al., SIGIR 2025: 72.5 % one
  grade apart, 27.5 % two apart), both the accuracy and the share of far mistakes solved from
  the agreement and the grade mix (`real_mix_rates`).

`cranfield-lead` needs no database: Cranfield's pools from the judging-effort benchmark's six
systems, its grades as a perfect lead's, every error model at 88 % and 80 %, every flag
coefficient, with and without escalation (share sent to a lead, accuracy, Kendall's τ of the
six systems' nDCG@10 and MAP against the perfect lead's golden set).
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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.benchlib import sentence, sentences_corpus, session_key  # noqa: E402 - as a script or imported by a test

SEED = 4
N_QUERIES = 10_000
N_CANDIDATES = 30
N_CHUNKS = 20_000
N_ANNOTATORS = 50
FINISHED_SHARE = 0.9
PASSWORD = "bench-password"
PROJECT = "Bench"


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


# Real assessors' disagreements (Parry et al., SIGIR 2025: eight assessors re-judging TREC DL
# 2019 passages, collapsed to 0/1/2): 72–73 % of them one grade apart, 27–28 % two apart.
REAL_MIX_TWO_APART = 0.275


def grade_given(truth: int, accuracy: float, adjacent: float) -> tuple[float, float, float]:
    """P(grade 0, 1, 2 | true grade) of one `real-mix` annotator: the true grade with
    probability `accuracy`; else, on a true 1, 0 or 2 alike; on a true 0 or 2, the
    neighbouring 1 with probability `adjacent` and the far grade (two apart) otherwise."""
    miss = 1.0 - accuracy
    if truth == 1:
        return (miss / 2, accuracy, miss / 2)
    near, far = miss * adjacent, miss * (1.0 - adjacent)
    return (accuracy, near, far) if truth == 0 else (far, near, accuracy)


def gap_shares(
    weights: tuple[float, ...], accuracy: float, adjacent: float
) -> tuple[float, float, float]:
    """The expected shares of chunks two independent `real-mix` annotators grade equal, one
    apart and two apart, over true grades 0/1/2 drawn with `weights`."""
    total = sum(weights)
    shares = [0.0, 0.0, 0.0]
    for truth, w in enumerate(weights):
        p = grade_given(truth, accuracy, adjacent)
        for x in range(3):
            for y in range(3):
                shares[abs(x - y)] += w / total * p[x] * p[y]
    return (shares[0], shares[1], shares[2])


def _bisect(f, lo: float, hi: float) -> float:
    """The root of an increasing `f` in [lo, hi] (60 halvings)."""
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


def real_mix_rates(
    level: float | None,
    weights: tuple[float, ...] = TRUTH_WEIGHTS,
    two_apart: float = REAL_MIX_TWO_APART,
    *,
    accuracy: float | None = None,
) -> tuple[float, float]:
    """(accuracy, adjacent) of `real-mix` annotators whose pairwise agreement per chunk is
    `level` and whose disagreements are `two_apart` two grades apart (or, with `accuracy`
    given, the `adjacent` that gives that share at this accuracy). Both are solved by
    bisection on :func:`gap_shares`: the agreement grows with the accuracy (above 1/2), the
    two-apart share falls as `adjacent` grows."""

    def adjacent_for(a: float) -> float:
        def share_above(q: float) -> float:
            _, one, two = gap_shares(weights, a, q)
            return two_apart - two / (one + two)

        lowest = gap_shares(weights, a, 1.0)
        highest = gap_shares(weights, a, 0.0)
        if (
            not lowest[2] / (lowest[1] + lowest[2])
            <= two_apart
            <= highest[2] / (highest[1] + highest[2])
        ):
            raise SystemExit(f"a two-apart share of {two_apart} is out of reach at accuracy {a}")
        return _bisect(share_above, 0.0, 1.0)

    if accuracy is not None:
        return accuracy, adjacent_for(accuracy)
    assert level is not None

    def agreement_below(a: float) -> float:
        return gap_shares(weights, a, adjacent_for(a))[0] - level

    a = _bisect(agreement_below, 0.5, 1.0 - 1e-9)
    return a, adjacent_for(a)


def simulated_grade(params: dict[str, object], candidate: int, annotator: int) -> int:
    """The grade simulated annotator `annotator` gives candidate `candidate` (deterministic)."""
    truth = random.Random(f"{SEED}:truth:{candidate}").choices([0, 1, 2], TRUTH_WEIGHTS)[0]
    rng = random.Random(f"{SEED}:grade:{candidate}:{annotator}")
    accuracy = float(params["accuracy"])  # type: ignore[arg-type]
    neighbours = [g for g in (truth - 1, truth + 1) if 0 <= g <= 2]
    if params["errors"] == "real-mix":
        if rng.random() < accuracy:
            return truth
        if truth == 1:
            return rng.choice([0, 2])
        return 1 if rng.random() < float(params["adjacent"]) else 2 - truth  # type: ignore[arg-type]
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


def setup(args: argparse.Namespace) -> dict[str, object]:
    django_setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from annotation.models import (
        Assignment,
        Candidate,
        Guideline,
        Judgment,
        Project,
        Query,
        QueryReview,
    )
    from annotation.models.judging import AssignmentStatus
    from annotation.services.pool_hits import shuffle_key
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
    chunk_ids = sentences_corpus(project, rng, 2000, N_CHUNKS, batch_size=5000)
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
    }
    if args.errors == "real-mix":
        a, q = (
            real_mix_rates(None, accuracy=args.level)
            if args.agreement == "accuracy"
            else real_mix_rates(args.level)
        )
        params.update(accuracy=a, adjacent=q, two_apart_of_disagreements=REAL_MIX_TWO_APART)
    else:
        params["accuracy"] = (
            args.level
            if args.agreement == "accuracy"
            else calibrated_accuracy(args.level, args.errors)
        )
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


# --------------------------------------------------------------------------------------------
# The lead's queue on Cranfield (no database): the golden set the rules build, against a
# perfect lead's


LEAD_ERRORS = ("real-mix", "uniform", "adjacent")
LEAD_LEVELS = (0.88, 0.80)
LEAD_REPLICATES = 5


def annotate_mix(
    truth: np.ndarray, errors: str, accuracy: float, adjacent: float, rng
) -> np.ndarray:
    """One simulated annotator's grades of `truth` (numpy, all chunks at once), the model of
    :func:`simulated_grade`: the true grade with probability `accuracy`, else a mistake:
    either other grade (``uniform``), a grade one off (``adjacent``), or ``real-mix`` (on a
    true 1, 0 or 2; on a true 0 or 2, 1 with probability `adjacent`, else the far grade)."""
    import numpy as np

    right = rng.random(truth.shape) < accuracy
    coin = rng.integers(0, 2, size=truth.shape)
    if errors == "uniform":
        wrong = (truth + 1 + coin) % 3
    elif errors == "adjacent":
        wrong = np.where(truth == 1, 2 * coin, 1)
    else:
        near = rng.random(truth.shape) < adjacent
        wrong = np.where(truth == 1, 2 * coin, np.where(near, 1, 2 - truth))
    return np.where(right, truth, wrong).astype(np.int64)


def settle_as_the_app(
    truth, grades, *, escalate: bool, weights: str, threshold: float = 0.6, three_way: str = "lead"
):
    """Final grades of every query (concatenated) and which reached a lead, settled by the
    engine's rules as the app settles them with the `lower` tie rule: two annotators; a flagged
    query goes to a perfect lead, or with `escalate` first to the third annotator, after whom it
    resolves by majority unless a candidate has none or the flag coefficient of the three
    (`goldsmith.agreement.query_stats`: mean pairwise kappa, or the three's AC1 / AC2) is below
    the threshold. `three_way` other than "lead" is a rule the app does NOT have, measured for
    the lead's decision: after escalation a candidate graded 0, 1 and 2 (no majority) settles at
    the "median" (1) or the "lowest" (0) instead of sending the query to a lead."""
    import numpy as np

    from goldsmith import agreement as rules

    def by_annotator(g):
        return {a: dict(enumerate(row.tolist())) for a, row in enumerate(g)}

    pairs = {q: by_annotator(g[:2]) for q, g in enumerate(grades)}
    two = rules.two_rater_query_stats(pairs, range(len(grades)))
    final, to_lead, escalated = [], [], []
    for q, (true, g) in enumerate(zip(truth, grades, strict=True)):
        stats = two.get(q) or rules.query_stats(pairs[q])
        reasons = rules.flag_reasons(
            kappa=rules.flag_kappa(stats, weights),
            threshold=threshold,
            grades=pairs[q],
            ambiguous=False,
            tie_rule=rules.LOWER,
        )
        votes = g[:2]
        went = bool(reasons) and escalate
        if went:
            votes = g[:3]
            three = by_annotator(votes)
            reasons = rules.flag_reasons(
                kappa=rules.flag_kappa(rules.query_stats(three), weights),
                threshold=threshold,
                grades=three,
                ambiguous=False,
                tie_rule=rules.LOWER,
                escalated=True,
            )
        escalated.append(went)
        split = went and three_way != "lead" and rules.LOW_KAPPA not in reasons
        if reasons and not split:
            to_lead.append(True)
            final.append(true.copy())
            continue
        to_lead.append(False)
        rule = rules.settling_tie_rule(rules.LOWER, escalated=went)
        decided = [
            (1 if three_way == "median" else 0, three_way)
            if split and len(set(col.tolist())) == 3
            else rules.rule_resolution(col.tolist(), tie_rule=rule)
            for col in votes.T
        ]
        final.append(np.array([d[0] for d in decided if d is not None], dtype=np.int64))
    return final, np.array(to_lead), np.array(escalated)


def synthetic_lead(args: argparse.Namespace) -> dict[str, object]:
    """The `escalation` command's figure without a database, on many more queries: `--queries`
    pools of `--pool` candidates with true grades drawn 75/15/10, three `--errors` annotators
    calibrated to `--level` pairwise agreement, every query settled by `settle_as_the_app`
    (escalation on, `lower`, the flag on `--kappa`). Prints the share of queries sent to a lead
    with its 95 % interval, and the final-grade accuracy against the truth (a perfect lead's)."""
    import numpy as np

    weights = np.array(TRUTH_WEIGHTS, dtype=np.float64) / sum(TRUTH_WEIGHTS)
    accuracy, adjacent = real_mix_rates(args.level)
    rng = np.random.default_rng([SEED, args.seed])
    truth = [rng.choice(3, size=args.pool, p=weights) for _ in range(args.queries)]
    grades = [
        np.stack([annotate_mix(t, "real-mix", accuracy, adjacent, rng) for _ in range(3)])
        for t in truth
    ]
    final, to_lead, escalated = settle_as_the_app(
        truth, grades, escalate=True, weights=args.kappa, three_way=args.three_way
    )
    every, decided = np.concatenate(truth), np.concatenate(final)
    share = float(to_lead.mean())
    result = {
        "queries": args.queries,
        "pool": args.pool,
        "level": args.level,
        "kappa": args.kappa,
        "three_way": args.three_way,
        "seed": args.seed,
        "to_a_lead": round(share, 5),
        "interval_95": round(1.96 * math.sqrt(share * (1 - share) / args.queries), 5),
        "escalated": round(float(escalated.mean()), 5),
        "points_below_a_perfect_lead": round(100 * (1 - float(np.mean(decided == every))), 3),
        "relevant_lowered": round(float(np.mean(decided[every >= 1] < every[every >= 1])), 5),
    }
    print(json.dumps(result))
    return result


def cranfield_lead(args: argparse.Namespace) -> dict[str, object]:
    """The lead's queue on Cranfield's real judgments: pools of depth 20 from the judging-effort
    benchmark's six systems (`bench/judging_effort_bench.py`), the collection's grades as the
    truth (a perfect lead's), simulated annotators under each error model calibrated to each
    pairwise agreement on these pools, every query settled as the app settles it under each
    flag coefficient, without and with escalation. Reported per setting (mean over
    replicates): share of finished queries sent to a lead, final-grade accuracy and its gap to
    a perfect lead's (100 %), and Kendall's τ of the six systems' mean nDCG@10 and MAP on the
    golden set the rules built against the same on the perfect lead's grades."""
    import numpy as np
    from scipy.stats import kendalltau

    from bench import judging_effort_bench as jeb
    from goldsmith import agreement as rules
    from goldsmith.metrics import evaluate

    col = jeb.cranfield(jeb.shared_data_dir() / "cranfield")
    runs = jeb.systems(col)
    pooled = jeb.pools(col, runs)
    truth = [
        np.array([col.truth[p.query_id].get(c, 0) for c in p.candidates], dtype=np.int64)
        for p in pooled
    ]
    every = np.concatenate(truth)
    mix = tuple(float((every == g).sum()) for g in range(3))

    def means(grades_by_query) -> dict[str, list[float]]:
        judgments = {
            p.query_id: dict(zip(p.candidates, g.tolist(), strict=True))
            for p, g in zip(pooled, grades_by_query, strict=True)
        }
        out: dict[str, list[float]] = {"ndcg@10": [], "map": []}
        for s in jeb.SYSTEMS:
            result = evaluate(judgments, runs[s], ["ndcg@10", "map"])
            for m in out:
                out[m].append(float(np.mean(result.column(m))))
        return out

    perfect = means(truth)
    result: dict[str, object] = {
        "collection": "cranfield",
        "queries": len(pooled),
        "candidates": len(every),
        "true_grade_mix": [round(x / len(every), 4) for x in mix],
        "systems": list(jeb.SYSTEMS),
        "replicates": args.replicates,
        "settings": [],
    }
    for e, errors in enumerate(args.errors):
        for level in args.levels:
            adjacent = 0.0
            if errors == "real-mix":
                accuracy, adjacent = real_mix_rates(level, mix)
            else:
                from bench import cranfield_rules_bench as crb

                model = "other" if errors == "uniform" else "adjacent"
                accuracy = crb.accuracy_for_agreement(every, level, model)
            figures: dict[tuple[str, bool], list[dict[str, float]]] = {}
            measured = []
            for r in range(args.replicates):
                rng = np.random.default_rng([SEED, e, round(level * 1e6), r])
                grades = [
                    np.stack([annotate_mix(t, errors, accuracy, adjacent, rng) for _ in range(3)])
                    for t in truth
                ]
                both = np.concatenate(grades, axis=1)
                gap = np.abs(both[0] - both[1])
                measured.append([float(np.mean(gap == k)) for k in range(3)])
                for weights in rules.KAPPA_WEIGHTS:
                    for escalate in (False, True):
                        final, to_lead, escalated = settle_as_the_app(
                            truth,
                            grades,
                            escalate=escalate,
                            weights=weights,
                            three_way=getattr(args, "three_way", "lead"),
                        )
                        got = means(final)
                        figures.setdefault((weights, escalate), []).append(
                            {
                                "to_lead": float(to_lead.mean()),
                                "escalated": float(escalated.mean()),
                                "accuracy": float(np.mean(np.concatenate(final) == every)),
                                "tau_ndcg10": float(
                                    kendalltau(perfect["ndcg@10"], got["ndcg@10"]).statistic
                                ),
                                "tau_map": float(kendalltau(perfect["map"], got["map"]).statistic),
                            }
                        )
            agreement = np.mean(measured, axis=0)
            for (weights, escalate), rows in figures.items():
                mean = {k: float(np.mean([row[k] for row in rows])) for k in rows[0]}
                result["settings"].append(  # type: ignore[union-attr]
                    {
                        "errors": errors,
                        "level": level,
                        "accuracy_of_an_annotator": round(accuracy, 4),
                        "adjacent": round(adjacent, 4),
                        "measured": {
                            "equal": round(float(agreement[0]), 4),
                            "one_apart": round(float(agreement[1]), 4),
                            "two_apart": round(float(agreement[2]), 4),
                        },
                        "flag_on": weights,
                        "escalation": escalate,
                        "to_lead": round(mean["to_lead"], 4),
                        "escalated": round(mean["escalated"], 4),
                        "final_accuracy": round(mean["accuracy"], 4),
                        "points_below_a_perfect_lead": round(100 * (1 - mean["accuracy"]), 2),
                        "tau_ndcg10": round(mean["tau_ndcg10"], 4),
                        "tau_ndcg10_lowest": round(min(row["tau_ndcg10"] for row in rows), 4),
                        "tau_map": round(mean["tau_map"], 4),
                        "tau_map_lowest": round(min(row["tau_map"] for row in rows), 4),
                    }
                )
    if args.format == "json":
        print(json.dumps(result, indent=2))
    else:
        print(cranfield_lead_table(result))
    return result


def cranfield_lead_table(result: dict[str, object]) -> str:
    lines = [
        f"Cranfield: {result['queries']} queries, {result['candidates']:,} pooled candidates, "
        f"true grades 0/1/2 {result['true_grade_mix']}, {result['replicates']} replicates",
        "",
        "| mistakes | pairwise agreement (measured: equal · one · two apart) | flag on | "
        "escalation | to a lead | final accuracy (points below a perfect lead) | "
        "τ nDCG@10 (lowest) | τ MAP (lowest) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in result["settings"]:  # type: ignore[attr-defined]
        m = row["measured"]
        lines.append(
            f"| {row['errors']} | {row['level']:.0%} ({m['equal']:.1%} · {m['one_apart']:.1%} · "
            f"{m['two_apart']:.1%}) | {row['flag_on']} | {'on' if row['escalation'] else 'off'} "
            f"| {row['to_lead']:.1%} | {row['final_accuracy']:.2%} "
            f"({row['points_below_a_perfect_lead']:.2f}) | {row['tau_ndcg10']:.3f} "
            f"({row['tau_ndcg10_lowest']:.3f}) | {row['tau_map']:.3f} "
            f"({row['tau_map_lowest']:.3f}) |"
        )
    return "\n".join(lines)


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
    build.add_argument(
        "--errors",
        choices=["uniform", "adjacent", "real-mix"],
        default="uniform",
        help="an annotator's mistakes: either other grade (uniform), one grade off (adjacent), "
        "or real assessors' mix: 72.5 %% of disagreements one apart, 27.5 %% two apart",
    )
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
            choices=["unweighted", "linear", "ac1", "ac2_linear"],
            default="unweighted",
            help="the coefficient the flag rule reads (the project setting kappa_weights)",
        )
    lead = sub.add_parser(
        "cranfield-lead",
        help="the lead's queue on Cranfield's real judgments (no database): share sent to a "
        "lead, accuracy and Kendall tau of six systems against a perfect lead",
    )
    lead.add_argument("--errors", nargs="+", choices=LEAD_ERRORS, default=list(LEAD_ERRORS))
    lead.add_argument("--levels", nargs="+", type=float, default=list(LEAD_LEVELS))
    lead.add_argument("--replicates", type=int, default=LEAD_REPLICATES)
    lead.add_argument("--format", choices=("table", "json"), default="table")
    lead.add_argument(
        "--three-way",
        choices=("lead", "median", "lowest"),
        default="lead",
        help="after escalation, a 0/1/2 candidate goes to a lead (the app) or, a rule the app "
        "does not have, settles at the median or the lowest grade",
    )
    synth = sub.add_parser(
        "synthetic-lead",
        help="the escalation command's share sent to a lead, without a database, on many queries",
    )
    synth.add_argument("--queries", type=int, default=20_000)
    synth.add_argument("--pool", type=int, default=30)
    synth.add_argument("--level", type=float, default=0.88)
    synth.add_argument(
        "--kappa", choices=("unweighted", "linear", "ac1", "ac2_linear"), default="ac1"
    )
    synth.add_argument("--seed", type=int, default=0)
    synth.add_argument("--three-way", choices=("lead", "median", "lowest"), default="lead")
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
        "cranfield-lead": cranfield_lead,
        "synthetic-lead": synthetic_lead,
    }
    commands[args.command](args)


if __name__ == "__main__":
    main()
