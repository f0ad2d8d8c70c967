"""Reads about machine judges: which candidates a judge is asked to grade, and how its grades
agree with the people's.

A judge is measured as an annotator would be: unweighted Cohen's kappa of its grades against
each assigned annotator's and against the final grades that people decided (a final grade the
machine filled is left out: it would be compared with itself), over the candidates both
graded, per query category and overall, each with a bootstrap 95 % interval over queries
(`goldsmith.agreement.kappa_interval`). The annotators' own kappa against the final grades is
computed by the same function, so a lead reads the judge beside the people.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from django.core.cache import cache
from django.db.models import Count, Exists, Max, OuterRef, QuerySet, Sum
from django.utils import timezone

from annotation.models import (
    Assignment,
    Candidate,
    Judgment,
    MachineGrade,
    MachineJudge,
    Project,
    Query,
    Resolution,
)
from annotation.models.judging import Provenance
from goldsmith.agreement import kappa_interval

# Which candidates a judging pass covers (evaluation.models.JudgingScope has the same values).
SCOPE_ALL = "all"
SCOPE_NEW = "new"  # not yet graded by this judge
SCOPE_UNJUDGED = "unjudged"  # no person graded it (and this judge has not either)
SCOPES = (SCOPE_ALL, SCOPE_NEW, SCOPE_UNJUDGED)
FINAL = "final grades"
NO_CATEGORY = "(no category)"


def judges_of(*, project: Project) -> QuerySet[MachineJudge]:
    return MachineJudge.objects.filter(project=project).order_by("name")


def judge_candidates(*, judge: MachineJudge, scope: str) -> QuerySet[Candidate]:
    """The candidates of the judge's project a pass in `scope` grades, in a stable order."""
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}; use one of {', '.join(SCOPES)}")
    candidates = Candidate.objects.filter(query__project_id=judge.project_id)
    if scope in (SCOPE_NEW, SCOPE_UNJUDGED):
        candidates = candidates.exclude(
            Exists(MachineGrade.objects.filter(judge=judge, candidate=OuterRef("pk")))
        )
    if scope == SCOPE_UNJUDGED:
        candidates = candidates.exclude(Exists(Judgment.objects.filter(candidate=OuterRef("pk"))))
    return candidates.order_by("query_id", "id")


def _people_grades(project: Project) -> tuple[dict[str, dict[int, int]], dict[int, int]]:
    """(annotator name → candidate → grade, for assigned annotators; candidate → final grade
    decided by people, machine-filled ones left out)."""
    assigned = set(
        Assignment.objects.filter(query__project=project).values_list("query_id", "annotator_id")
    )
    people: dict[str, dict[int, int]] = defaultdict(dict)
    for qid, cid, uid, name, grade in Judgment.objects.filter(
        candidate__query__project=project
    ).values_list(
        "candidate__query_id", "candidate_id", "annotator_id", "annotator__username", "grade"
    ):
        if (qid, uid) in assigned:
            people[name][cid] = grade
    finals = dict(
        Resolution.objects.filter(candidate__query__project=project)
        .exclude(provenance=Provenance.MACHINE)
        .values_list("candidate_id", "grade")
    )
    return dict(sorted(people.items())), finals


def _compare(
    mine: dict[int, int],
    theirs: dict[int, int],
    where: dict[int, tuple[int, str]],
    samples: int,
) -> dict[str, Any]:
    """Kappa of `mine` against `theirs` over the candidates both graded, overall and per
    category (`where`: candidate → (query, category))."""
    both = sorted(mine.keys() & theirs.keys())
    a = np.array([mine[c] for c in both], dtype=np.int64)
    b = np.array([theirs[c] for c in both], dtype=np.int64)
    q = np.array([where[c][0] for c in both], dtype=np.int64)
    cats = np.array([where[c][1] for c in both], dtype=object)
    out: dict[str, Any] = {"overall": kappa_interval(a, b, q, samples=samples).to_json()}
    out["categories"] = {
        str(cat): kappa_interval(
            a[cats == cat], b[cats == cat], q[cats == cat], samples=samples
        ).to_json()
        for cat in sorted(set(cats.tolist()))
    }
    return out


def _agreement_key(project: Project, samples: int) -> str:
    """A cache key that changes whenever a grade, a final grade, an assignment or a judge of
    the project does (counts and latest change times, as the dashboard's own summary)."""
    parts = [
        MachineGrade.objects.filter(judge__project=project).aggregate(
            n=Count("id"), last=Max("updated_at")
        ),
        MachineJudge.objects.filter(project=project).aggregate(n=Count("id"), s=Sum("id")),
        Judgment.objects.filter(candidate__query__project=project).aggregate(
            n=Count("id"), last=Max("updated_at")
        ),
        Resolution.objects.filter(candidate__query__project=project).aggregate(
            n=Count("id"), last=Max("resolved_at")
        ),
        Assignment.objects.filter(query__project=project).aggregate(n=Count("id"), s=Sum("id")),
        Query.objects.filter(project=project).aggregate(n=Count("id"), s=Sum("id")),
    ]
    digest = hashlib.blake2b(repr((project.pk, samples, parts)).encode(), digest_size=16)
    return "goldsmith:judge-agreement:" + digest.hexdigest()


def judge_agreement(*, project: Project, samples: int = 1000) -> dict[str, Any]:
    """Every machine judge of `project` against the people, and the people against the final
    grades, for the dashboard and the API:

    ``{"judges": [{"id", "name", "kind", "graded", "against": [{"who", "kind", "overall",
    "categories"}]}], "people": [{"who", "kind", "overall", "categories"}]}``, where overall
    and each category hold kappa, its interval (low, high), raw agreement and the numbers of
    candidates and queries compared; ``who`` is an annotator's name or "final grades".

    Cached until a grade, final grade, assignment or judge of the project changes: a project
    of 9 000 queries takes about a second per cell (docs/benchmarks.md). Pages read
    :func:`judge_agreement_as_of` instead, which never waits for a recomputation."""
    key = _agreement_key(project, samples)
    cached = cache.get(key)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    result = _judge_agreement(project, samples)
    cache.set(key, result, timeout=3600)
    cache.set(
        _latest_key(project, samples),
        {"key": key, "figures": result, "computed_at": timezone.now().isoformat()},
        timeout=None,
    )
    return result


def _latest_key(project: Project, samples: int) -> str:
    return f"goldsmith:judge-agreement-latest:{project.pk}:{samples}"


@dataclass(frozen=True)
class AgreementAsOf:
    """The judge table as a page shows it: ``figures`` (as :func:`judge_agreement`; None when
    never computed), whether they are ``current`` (no grade, final grade, assignment or judge
    changed since), and when they were computed."""

    figures: dict[str, Any] | None
    current: bool
    computed_at: datetime | None


def judge_agreement_as_of(*, project: Project, samples: int = 1000) -> AgreementAsOf:
    """The latest judge table computed for `project`, current or not, without computing it
    (a page must not wait seconds for it: the caller has it recomputed by a worker when it is
    not current). A project without machine judges has nothing to compute: empty figures."""
    if not MachineJudge.objects.filter(project=project).exists():
        return AgreementAsOf({"judges": [], "people": []}, True, None)
    key = _agreement_key(project, samples)
    cached = cache.get(key)
    latest = cache.get(_latest_key(project, samples))
    at = datetime.fromisoformat(latest["computed_at"]) if latest else None
    if cached is not None:
        return AgreementAsOf(cached, True, at)
    if latest is None:
        return AgreementAsOf(None, False, None)
    return AgreementAsOf(latest["figures"], latest["key"] == key, at)


def _judge_agreement(project: Project, samples: int) -> dict[str, Any]:
    people, finals = _people_grades(project)
    where = {
        cid: (qid, category or NO_CATEGORY)
        for cid, qid, category in Candidate.objects.filter(query__project=project).values_list(
            "id", "query_id", "query__category"
        )
    }
    judges = []
    for judge in judges_of(project=project):
        grades = dict(MachineGrade.objects.filter(judge=judge).values_list("candidate_id", "grade"))
        against = [{"who": FINAL, "kind": "final", **_compare(grades, finals, where, samples)}]
        against += [
            {"who": name, "kind": "annotator", **_compare(grades, theirs, where, samples)}
            for name, theirs in people.items()
        ]
        judges.append(
            {
                "id": judge.pk,
                "name": judge.name,
                "kind": judge.kind,
                "kind_label": judge.get_kind_display(),
                "graded": len(grades),
                "against": against,
            }
        )
    return {
        "judges": judges,
        "people": [
            {"who": name, "kind": "annotator", **_compare(theirs, finals, where, samples)}
            for name, theirs in people.items()
        ],
    }
