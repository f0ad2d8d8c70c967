"""Agreement of a project's annotators: reads the judgments, stores the figures.

Every figure and rule comes from the pure `goldsmith.agreement`; this module reads grades from
the database and writes `QueryAgreement` rows. Settling a query (flag it or resolve it by rule)
is `annotation.services.adjudication`, which calls the writes here.

Per query (kept current as judgments arrive): Cohen's kappa unweighted and linear (mean over
annotator pairs when there are more than two), raw agreement and Gwet's AC1, and the flags
(`goldsmith.agreement.flag_reasons`).

Per project: Krippendorff's alpha (ordinal), the pairwise kappa matrix and per-annotator
volume, speed and agreement with the final grades. The project numbers are computed from the
same labels that `export_judgments` writes, with the same functions `goldsmith agreement` uses,
so the dashboard and the command line agree to the last digit.
"""

from __future__ import annotations

import csv
import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
from django.core.cache import cache
from django.db import transaction
from django.db.models import Count, F, Max, Q, Sum

from annotation.models import (
    Assignment,
    Judgment,
    Project,
    QueryAgreement,
    QueryAnnotation,
    QueryReview,
    Resolution,
)
from annotation.models.judging import AssignmentStatus, Escalation
from annotation.selectors.judging import grades_decided_by, review_counts
from goldsmith import agreement as rules


def _query_grades(query_ids: Iterable[int]) -> dict[int, dict[int, dict[int, int]]]:
    """query → annotator → candidate → grade, for the assigned annotators only."""
    ids = list(query_ids)
    out: dict[int, dict[int, dict[int, int]]] = defaultdict(lambda: defaultdict(dict))
    assigned = set(
        Assignment.objects.filter(query_id__in=ids).values_list("query_id", "annotator_id")
    )
    for qid, cid, uid, grade in Judgment.objects.filter(candidate__query_id__in=ids).values_list(
        "candidate__query_id", "candidate_id", "annotator_id", "grade"
    ):
        if (qid, uid) in assigned:
            out[qid][uid][cid] = grade
    return out


def _signature(grades: rules.QueryGrades) -> str:
    """A digest of a query's grades: its stored figures are reused while it is unchanged."""
    canonical = repr(sorted((uid, sorted(by.items())) for uid, by in grades.items()))
    return hashlib.blake2b(canonical.encode(), digest_size=16).hexdigest()


STAT_FIELDS = [
    "n_annotators",
    "n_items",
    "kappa",
    "kappa_linear",
    "raw_agreement",
    "ac1",
    "ac2_linear",
]


@transaction.atomic
def query_agreement_compute(*, query_id: int, escalated: bool | None = None) -> QueryAgreement:
    """Recompute and store one query's agreement and flags (safe to run twice). `escalated`:
    whether the query went to one more annotator (`goldsmith.agreement.flag_reasons`); read
    from its review when not given."""
    if escalated is None:
        escalated = QueryReview.objects.filter(
            query_id=query_id, escalation=Escalation.ESCALATED
        ).exists()
    threshold, tie_rule, weights = (
        Project.objects.filter(queries__id=query_id)
        .values_list("kappa_threshold", "tie_rule", "kappa_weights")
        .first()
    ) or (0.6, rules.LOWER, rules.UNWEIGHTED)
    grades = _query_grades([query_id]).get(query_id, {})
    stats = rules.query_stats(grades)
    ambiguous = QueryAnnotation.objects.filter(
        query_id=query_id,
        ambiguous=True,
        annotator_id__in=Assignment.objects.filter(query_id=query_id).values("annotator_id"),
    ).exists()
    reasons = rules.flag_reasons(
        kappa=rules.flag_kappa(stats, weights),
        threshold=threshold,
        grades=grades,
        ambiguous=ambiguous,
        tie_rule=tie_rule,
        escalated=escalated,
    )
    agreement, _ = QueryAgreement.objects.update_or_create(
        query_id=query_id,
        defaults={
            **stats,
            "flagged": bool(reasons),
            "flag_reasons": reasons,
            "signature": _signature(grades),
        },
    )
    return agreement


@dataclass(frozen=True)
class ComputedAgreements:
    """What `query_agreements_compute` stored: each finished query's flag, the queries whose
    flag is new or changed, and the grades the figures came from (query → annotator →
    candidate → grade, assigned annotators only)."""

    flagged: dict[int, bool]
    flag_changed: set[int]
    grades: dict[int, dict[int, dict[int, int]]]


@transaction.atomic
def query_agreements_compute(*, project: Project) -> ComputedAgreements:
    """Recompute and store the agreement and flags of every finished query of `project` from
    stored judgments, in bulk (safe to run twice; settling them is the caller's).

    Statistics of a query whose grades did not change since they were computed (same
    signature) are reused; flags are always re-evaluated. Only changed rows are written, in
    one statement per batch."""
    finished = set(
        Assignment.objects.filter(query__project=project)
        .values("query_id")
        .annotate(n=Count("id"), done=Count("id", filter=Q(status=AssignmentStatus.DONE)))
        .filter(n=F("done"))
        .values_list("query_id", flat=True)
    )
    grades: dict[int, dict[int, dict[int, int]]] = defaultdict(lambda: defaultdict(dict))
    for qid, cid, uid, grade in _project_judgments(project).tolist():
        grades[qid][uid][cid] = grade
    ambiguous = set(
        QueryAnnotation.objects.filter(
            query__project=project,
            ambiguous=True,
            # a reassigned annotator's flag is kept but no longer counts
            query__assignments__annotator_id=F("annotator_id"),
        ).values_list("query_id", flat=True)
    )
    escalated = set(
        QueryReview.objects.filter(
            query__project=project, escalation=Escalation.ESCALATED
        ).values_list("query_id", flat=True)
    )
    stored = {
        row["query_id"]: row
        for row in QueryAgreement.objects.filter(query__project=project).values(
            "query_id", "flagged", "flag_reasons", "signature", *STAT_FIELDS
        )
    }
    signatures = {qid: _signature(grades.get(qid, {})) for qid in finished}
    stale = [
        qid
        for qid in sorted(finished)
        if stored.get(qid) is None or stored[qid]["signature"] != signatures[qid]
    ]
    vectorised = rules.two_rater_query_stats(grades, stale)
    rows = []
    for qid in sorted(finished):
        query_grades = grades.get(qid, {})
        signature = signatures[qid]
        previous = stored.get(qid)
        if previous is not None and previous["signature"] == signature:
            stats = {name: previous[name] for name in STAT_FIELDS}
        elif qid in vectorised:
            stats = vectorised[qid]
        else:
            stats = rules.query_stats(query_grades)
        reasons = rules.flag_reasons(
            kappa=rules.flag_kappa(stats, project.kappa_weights),
            threshold=project.kappa_threshold,
            grades=query_grades,
            ambiguous=qid in ambiguous,
            tie_rule=project.tie_rule,
            escalated=qid in escalated,
        )
        rows.append(
            QueryAgreement(
                query_id=qid,
                **stats,
                flagged=bool(reasons),
                flag_reasons=reasons,
                signature=signature,
            )
        )
    # Only rows whose figures, flags or signature changed are written: a recompute after a
    # settings change or a few new judgments touches a few rows, not the whole project.
    compared = (*STAT_FIELDS, "flagged", "flag_reasons", "signature")
    changed = [
        row
        for row in rows
        if (previous := stored.get(row.query_id)) is None
        or any(getattr(row, name) != previous[name] for name in compared)
    ]
    QueryAgreement.objects.bulk_create(
        changed,
        batch_size=2000,
        update_conflicts=True,
        unique_fields=["query"],
        update_fields=[*STAT_FIELDS, "flagged", "flag_reasons", "signature", "computed_at"],
    )
    return ComputedAgreements(
        flagged={row.query_id: row.flagged for row in rows},
        flag_changed={
            row.query_id
            for row in rows
            if (previous := stored.get(row.query_id)) is None or previous["flagged"] != row.flagged
        },
        grades=grades,
    )


def _project_judgments(project: Project) -> np.ndarray:
    """int64[n, 4] rows (query, candidate, annotator, grade) of the assigned annotators,
    sorted by query, candidate and annotator: the export order."""
    assigned = np.array(
        list(
            Assignment.objects.filter(query__project=project).values_list(
                "query_id", "annotator_id"
            )
        ),
        dtype=np.int64,
    ).reshape(-1, 2)
    rows = np.array(
        list(
            Judgment.objects.filter(candidate__query__project=project).values_list(
                "candidate__query_id", "candidate_id", "annotator_id", "grade"
            )
        ),
        dtype=np.int64,
    ).reshape(-1, 4)
    keep = np.isin(rows[:, 0] * (1 << 32) + rows[:, 2], assigned[:, 0] * (1 << 32) + assigned[:, 1])
    rows = rows[keep]
    return rows[np.lexsort((rows[:, 2], rows[:, 1], rows[:, 0]))]


# --- Export and project summary ------------------------------------------------------------


def _usernames(project: Project) -> dict[int, str]:
    return dict(
        Assignment.objects.filter(query__project=project)
        .values_list("annotator_id", "annotator__username")
        .distinct()
    )


def judgment_labels(*, project: Project) -> list[tuple[str, str, int, str]]:
    """(item, annotator, label, group) rows: candidate id, username, grade, query id, ordered
    by query, candidate and annotator. Only assigned annotators' judgments count."""
    names = _usernames(project)
    return [
        (str(cid), names[uid], grade, str(qid))
        for qid, cid, uid, grade in _project_judgments(project).tolist()
    ]


def judgments_csv(*, project: Project, out: IO[str]) -> int:
    """Write the labels file `goldsmith agreement` reads; returns the number of rows."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["item", "annotator", "label", "group"])
    labels = judgment_labels(project=project)
    writer.writerows(labels)
    return len(labels)


def _judgment_summary(project: Project) -> dict[str, Any]:
    """The parts of the dashboard computed from every judgment (cached until one changes)."""
    key_parts = [
        Judgment.objects.filter(candidate__query__project=project).aggregate(
            n=Count("id"), last=Max("updated_at")
        ),
        Resolution.objects.filter(candidate__query__project=project).aggregate(
            n=Count("id"), last=Max("resolved_at")
        ),
        Assignment.objects.filter(query__project=project).aggregate(n=Count("id"), s=Sum("id")),
    ]
    key = (
        "goldsmith:agreement:"
        + hashlib.blake2b(repr((project.pk, key_parts)).encode(), digest_size=16).hexdigest()
    )
    cached = cache.get(key)
    if cached is not None:
        return cached
    rows = _project_judgments(project)
    finals = np.array(
        list(
            Resolution.objects.filter(candidate__query__project=project).values_list(
                "candidate_id", "grade"
            )
        ),
        dtype=np.int64,
    ).reshape(-1, 2)
    volume, agreement_with_final = rules.agreement_with_final(rows, finals)
    summary = {
        **rules.pooled_agreement(rows, _usernames(project)),
        "judgments": len(rows),
        "volume": volume,
        "agreement_with_final": agreement_with_final,
    }
    cache.set(key, summary, timeout=3600)
    return summary


def project_agreement(*, project: Project) -> dict[str, Any]:
    """The dashboard's numbers: pooled agreement, kappa histogram, pairwise matrix, per
    annotator volume, speed and agreement with the final grades, review counts, the tie rule
    and how many final grades each rule decided, and the
    "revisit the guidelines" warning when project-level agreement is below 0.6
    (:func:`goldsmith.agreement.guidelines_warning`; None otherwise)."""
    summary = _judgment_summary(project)
    annotators = _annotator_stats(
        project=project,
        volume=summary["volume"],
        agreement_with_final=summary["agreement_with_final"],
    )
    public = {k: v for k, v in summary.items() if k not in ("volume", "agreement_with_final")}
    # The kappa the flag rule reads, so the histogram's bars below the threshold are the
    # queries it flagged for kappa.
    kappa_field = rules.flag_field(project.kappa_weights)
    kappas = list(
        QueryAgreement.objects.filter(query__project=project, n_annotators__gte=2).values_list(
            kappa_field, flat=True
        )
    )
    return {
        **public,
        "kappa_histogram": rules.kappa_histogram(kappas, project.kappa_threshold),
        "annotators": annotators,
        "overall": {
            "assigned": sum(int(a["assigned"]) for a in annotators),
            "done": sum(int(a["done"]) for a in annotators),
            "judgments": summary["judgments"],
        },
        "states": review_counts(project=project),
        "tie_rule": project.tie_rule,
        "kappa_weights": project.kappa_weights,
        "escalate": project.escalate,
        "decided_by": grades_decided_by(project=project),
        "guidelines_warning": rules.guidelines_warning(
            alpha=summary["alpha_ordinal"],
            kappa=summary["kappa"],
            items=int(summary["items"]),
            raw_agreement=summary["raw_agreement"],
            ac1=summary["ac1"],
        ),
    }


def _annotator_stats(
    *,
    project: Project,
    volume: dict[int, int],
    agreement_with_final: dict[int, float | None],
) -> list[dict[str, Any]]:
    progress = {
        row["annotator_id"]: row
        for row in Assignment.objects.filter(query__project=project)
        .values("annotator_id", "annotator__username")
        .annotate(assigned=Count("id"), done=Count("id", filter=Q(status=AssignmentStatus.DONE)))
    }
    time = {
        row["annotator_id"]: row
        for row in QueryAnnotation.objects.filter(query__project=project, seconds_spent__gt=0)
        .values("annotator_id")
        .annotate(seconds=Sum("seconds_spent"), queries=Count("id"))
    }
    out = []
    for uid, row in sorted(progress.items(), key=lambda kv: kv[1]["annotator__username"]):
        spent = time.get(uid)
        out.append(
            {
                "annotator": row["annotator__username"],
                "assigned": row["assigned"],
                "done": row["done"],
                "judgments": volume.get(uid, 0),
                "seconds_per_query": spent["seconds"] / spent["queries"] if spent else None,
                "agreement_with_final": agreement_with_final.get(uid),
            }
        )
    return out
