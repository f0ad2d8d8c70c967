"""Agreement of a project's annotators, computed with the shared pure `goldsmith.agreement`.

Per query (kept current as judgments arrive): Cohen's kappa unweighted and linear (mean over
annotator pairs when there are more than two), raw agreement and Gwet's AC1; the query is
flagged when kappa < the project threshold, when two annotators are two grades apart on a
chunk, or when an annotator marked it ambiguous. An undefined kappa (every grade identical)
means unanimous, never flagged for kappa.

Per project: Krippendorff's alpha (ordinal), the pairwise kappa matrix and per-annotator
volume, speed and agreement with the final grades. The project numbers are computed from the
same labels that `export_judgments` writes, with the same functions `goldsmith agreement` uses,
so the dashboard and the command line agree to the last digit.
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import math
from collections import defaultdict
from collections.abc import Iterable
from typing import IO

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
from annotation.models.judging import AssignmentStatus, ReviewState

LOW_KAPPA = "low_kappa"
TWO_APART = "two_apart"
AMBIGUOUS = "ambiguous"
TIE = "tie"

# Histogram bins of per-query kappa, with the undefined (unanimous) queries on their own.
KAPPA_BINS: list[tuple[str, float, float]] = [
    ("< 0", -math.inf, 0.0),
    ("0–.2", 0.0, 0.2),
    (".2–.4", 0.2, 0.4),
    (".4–.6", 0.4, 0.6),
    (".6–.8", 0.6, 0.8),
    (".8–1", 0.8, math.inf),
]


def _matrix(grades: dict[int, dict[int, int]]) -> np.ndarray:
    """candidates × annotators matrix of grades (NaN: not graded), rows by candidate id."""
    annotators = sorted(grades)
    items = sorted({cid for by_item in grades.values() for cid in by_item})
    row = {cid: i for i, cid in enumerate(items)}
    m = np.full((len(items), len(annotators)), np.nan)
    for j, uid in enumerate(annotators):
        for cid, grade in grades[uid].items():
            m[row[cid], j] = grade
    return m


def _mean(values: list[float | None]) -> float | None:
    """The mean of the defined values, as `agreement_report` takes it."""
    defined = [v for v in values if v is not None]
    return float(np.mean(defined)) if defined else None


def query_stats(grades: dict[int, dict[int, int]]) -> dict[str, float | int | None]:
    """Statistics of one query. `grades`: annotator → {candidate → grade}.

    The same coefficients `agreement_report` gives for the query's group (mean pairwise Cohen's
    kappa unweighted and linear, percent agreement, Gwet's AC1), computed with the same
    functions; the Fleiss, quadratic and alpha figures a query page does not show are skipped.
    """
    from goldsmith import agreement as pure

    m = _matrix(grades)
    n = m.shape[1]
    pairs = list(itertools.combinations(range(n), 2))
    if len(m) == 0:
        return {"n_annotators": n, "n_items": 0, "kappa": None, "kappa_linear": None,
                "raw_agreement": None, "ac1": None}  # fmt: skip
    return {
        "n_annotators": n,
        "n_items": len(m),
        "kappa": _mean([pure.cohen_kappa(m[:, i], m[:, j]) for i, j in pairs]),
        "kappa_linear": _mean([pure.cohen_kappa(m[:, i], m[:, j], "linear") for i, j in pairs]),
        "raw_agreement": pure.percent_agreement(m),
        "ac1": pure.gwet_ac1(m),
    }


def _two_rater_stats(
    grades: dict[int, dict[int, dict[int, int]]], query_ids: list[int]
) -> dict[int, dict[str, float | int | None]]:
    """`query_stats` of the queries that exactly two annotators graded completely (the usual
    case), computed for all of them at once; other queries are left to `query_stats`."""
    from goldsmith import agreement as pure

    group: list[int] = []
    first: list[int] = []
    second: list[int] = []
    for qid in query_ids:
        by_annotator = grades.get(qid, {})
        if len(by_annotator) != 2:
            continue
        a, b = (by_annotator[uid] for uid in sorted(by_annotator))
        if not a or a.keys() != b.keys():
            continue
        for cid in a:
            group.append(qid)
            first.append(a[cid])
            second.append(b[cid])
    if not group:
        return {}
    result = pure.two_rater_group_stats(
        np.asarray(group, dtype=np.int64),
        np.asarray(first, dtype=np.float64),
        np.asarray(second, dtype=np.float64),
    )

    def defined(x: float) -> float | None:
        return None if np.isnan(x) else float(x)

    return {
        int(qid): {
            "n_annotators": 2,
            "n_items": int(result.n_items[i]),
            "kappa": defined(result.kappa[i]),
            "kappa_linear": defined(result.kappa_linear[i]),
            "raw_agreement": defined(result.percent_agreement[i]),
            "ac1": defined(result.ac1[i]),
        }
        for i, qid in enumerate(result.groups)
    }


def flag_reasons(
    *,
    kappa: float | None,
    threshold: float,
    grades: dict[int, dict[int, int]],
    ambiguous: bool,
) -> list[str]:
    """Why a finished query needs a lead (empty: it resolves by rule).

    kappa below the threshold; two annotators two grades apart on a chunk; an annotator marked
    it ambiguous; otherwise a chunk whose grades have no majority (a tie)."""
    from annotation.services.adjudication import rule_resolution

    reasons = []
    if kappa is not None and kappa < threshold:
        reasons.append(LOW_KAPPA)
    by_item: dict[int, list[int]] = defaultdict(list)
    for by_candidate in grades.values():
        for item, grade in by_candidate.items():
            by_item[item].append(grade)
    if any(max(g) - min(g) >= 2 for g in by_item.values()):
        reasons.append(TWO_APART)
    if ambiguous:
        reasons.append(AMBIGUOUS)
    if not reasons and any(rule_resolution(g) is None for g in by_item.values()):
        reasons.append(TIE)
    return reasons


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


def _signature(grades: dict[int, dict[int, int]]) -> str:
    canonical = repr(sorted((uid, sorted(by.items())) for uid, by in grades.items()))
    return hashlib.blake2b(canonical.encode(), digest_size=16).hexdigest()


STAT_FIELDS = ["n_annotators", "n_items", "kappa", "kappa_linear", "raw_agreement", "ac1"]


@transaction.atomic
def query_agreement_compute(*, query_id: int) -> QueryAgreement:
    """Recompute and store one query's agreement and flags (safe to run twice)."""
    threshold = (
        Project.objects.filter(queries__id=query_id).values_list("kappa_threshold", flat=True)
    ).first()
    grades = _query_grades([query_id]).get(query_id, {})
    stats = query_stats(grades)
    ambiguous = QueryAnnotation.objects.filter(
        query_id=query_id,
        ambiguous=True,
        annotator_id__in=Assignment.objects.filter(query_id=query_id).values("annotator_id"),
    ).exists()
    reasons = flag_reasons(
        kappa=stats["kappa"],  # type: ignore[arg-type]
        threshold=threshold if threshold is not None else 0.6,
        grades=grades,
        ambiguous=ambiguous,
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


def project_agreement_recompute(*, project: Project) -> int:
    """Recompute every finished query's agreement and flags from stored judgments, in bulk,
    then settle the queries whose flag changed (e.g. after the kappa threshold changed).

    Statistics of a query whose grades did not change since they were computed (same
    signature) are reused; flags are always re-evaluated. Returns the number of queries."""
    from annotation.services.adjudication import queries_settle

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
    vectorised = _two_rater_stats(grades, stale)
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
            stats = query_stats(query_grades)
        reasons = flag_reasons(
            kappa=stats["kappa"],
            threshold=project.kappa_threshold,
            grades=query_grades,
            ambiguous=qid in ambiguous,
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
    states = dict(
        QueryReview.objects.filter(query__project=project).values_list("query_id", "state")
    )
    to_settle = {}
    for row in rows:
        previous = stored.get(row.query_id)
        changed = previous is None or previous["flagged"] != row.flagged
        unsettled = states.get(row.query_id, ReviewState.OPEN) == ReviewState.OPEN
        if changed or unsettled:
            to_settle[row.query_id] = row.flagged
    queries_settle(flagged=to_settle, grades=grades)
    return len(rows)


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


def pooled_agreement(rows: np.ndarray, names: dict[int, str]) -> dict[str, object]:
    """Project-level coefficients from the export rows (see `_project_judgments`).

    Equal to the ``pooled`` part of `goldsmith agreement` on the exported CSV: the multi-rater
    coefficients depend only on each item's labels, so they are computed on a compact
    items × (labels per item) matrix in the CSV's item order; each pair of annotators (in the
    CSV's first-seen order) gets Cohen's kappa over the items both judged; pairs that share no
    item are left out.
    """
    from goldsmith import agreement as pure

    if len(rows) == 0:
        return {"items": 0, "alpha_ordinal": None, "raw_agreement": None, "ac1": None,
                "kappa": None, "pairwise": []}  # fmt: skip
    qid, cid, uid, grade = rows.T
    starts = np.flatnonzero(np.r_[True, (qid[1:] != qid[:-1]) | (cid[1:] != cid[:-1])])
    item = np.cumsum(np.r_[True, (qid[1:] != qid[:-1]) | (cid[1:] != cid[:-1])]) - 1
    position = np.arange(len(rows)) - starts[item]
    width = int(position.max()) + 1
    m = np.full((len(starts), width), np.nan)
    m[item, position] = grade
    # First-seen order of annotators in the export, as the CLI numbers its columns.
    seen, first = np.unique(uid, return_index=True)
    order = seen[np.argsort(first)]
    rank = {int(u): r for r, u in enumerate(order)}
    rank_of = np.vectorize(rank.__getitem__, otypes=[np.int64])(uid)
    ann = np.full((len(starts), width), -1, dtype=np.int64)
    ann[item, position] = rank_of
    keys, lefts, rights, items = [], [], [], []
    for p, q in itertools.combinations(range(width), 2):
        both = (ann[:, p] >= 0) & (ann[:, q] >= 0)
        a, b = ann[both, p], ann[both, q]
        ga, gb = m[both, p], m[both, q]
        swap = a > b
        keys.append(np.where(swap, b, a) * len(order) + np.where(swap, a, b))
        lefts.append(np.where(swap, gb, ga))
        rights.append(np.where(swap, ga, gb))
        items.append(np.flatnonzero(both))
    pairwise = []
    if keys:
        key, left, right, idx = (np.concatenate(x) for x in (keys, lefts, rights, items))
        sort = np.lexsort((idx, key))
        key, left, right = key[sort], left[sort], right[sort]
        bounds = np.flatnonzero(np.r_[True, key[1:] != key[:-1], True])
        for lo, hi in itertools.pairwise(bounds):
            a, b = divmod(int(key[lo]), len(order))
            pairwise.append(
                {
                    "a": names[int(order[a])],
                    "b": names[int(order[b])],
                    "kappa": pure.cohen_kappa(left[lo:hi], right[lo:hi]),
                    "n": int(hi - lo),
                }
            )
    return {
        "items": len(starts),
        "alpha_ordinal": pure.krippendorff_alpha(m, "ordinal"),
        "raw_agreement": pure.percent_agreement(m),
        "ac1": pure.gwet_ac1(m),
        "kappa": _mean([p["kappa"] for p in pairwise]),
        "pairwise": pairwise,
    }


def _judgment_summary(project: Project) -> dict[str, object]:
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
    pooled = pooled_agreement(rows, _usernames(project))
    finals = np.array(
        list(
            Resolution.objects.filter(candidate__query__project=project).values_list(
                "candidate_id", "grade"
            )
        ),
        dtype=np.int64,
    ).reshape(-1, 2)
    volume: dict[int, int] = {}
    agreement_with_final: dict[int, float | None] = {}
    final_of = dict(zip(finals[:, 0].tolist(), finals[:, 1].tolist(), strict=True))
    has_final = np.isin(rows[:, 1], finals[:, 0])
    finals_here = np.array([final_of[c] for c in rows[has_final, 1].tolist()], dtype=np.int64)
    matches = rows[has_final, 3] == finals_here
    for u in np.unique(rows[:, 2]).tolist():
        mine = rows[:, 2] == u
        volume[u] = int(mine.sum())
        judged = mine[has_final]
        agreement_with_final[u] = float(matches[judged].mean()) if judged.any() else None
    summary = {
        **pooled,
        "judgments": len(rows),
        "volume": volume,
        "agreement_with_final": agreement_with_final,
    }
    cache.set(key, summary, timeout=3600)
    return summary


def project_agreement(*, project: Project) -> dict[str, object]:
    """The dashboard's numbers: pooled agreement, kappa histogram, pairwise matrix, per
    annotator volume, speed and agreement with the final grades, review counts, and the
    "revisit the guidelines" warning when project-level agreement is below 0.6
    (:func:`goldsmith.agreement.guidelines_warning`; None otherwise)."""
    from annotation.selectors.judging import review_counts
    from goldsmith import agreement as pure

    summary = _judgment_summary(project)
    annotators = _annotator_stats(
        project=project,
        volume=summary["volume"],  # type: ignore[arg-type]
        agreement_with_final=summary["agreement_with_final"],  # type: ignore[arg-type]
    )
    public = {k: v for k, v in summary.items() if k not in ("volume", "agreement_with_final")}
    return {
        **public,
        "kappa_histogram": _kappa_histogram(project=project),
        "annotators": annotators,
        "overall": {
            "assigned": sum(int(a["assigned"]) for a in annotators),  # type: ignore[call-overload]
            "done": sum(int(a["done"]) for a in annotators),  # type: ignore[call-overload]
            "judgments": summary["judgments"],
        },
        "states": review_counts(project=project),
        "guidelines_warning": pure.guidelines_warning(
            alpha=summary["alpha_ordinal"],  # type: ignore[arg-type]
            kappa=summary["kappa"],  # type: ignore[arg-type]
            items=int(summary["items"]),  # type: ignore[call-overload]
            raw_agreement=summary["raw_agreement"],  # type: ignore[arg-type]
            ac1=summary["ac1"],  # type: ignore[arg-type]
        ),
    }


def _kappa_histogram(*, project: Project) -> list[dict[str, object]]:
    kappas = list(
        QueryAgreement.objects.filter(query__project=project, n_annotators__gte=2).values_list(
            "kappa", flat=True
        )
    )
    bins: list[dict[str, object]] = [
        {"label": "unanimous", "count": sum(1 for k in kappas if k is None), "undefined": True}
    ]
    threshold = project.kappa_threshold
    for label, lo, hi in KAPPA_BINS:
        count = sum(1 for k in kappas if k is not None and lo <= k < hi)
        bins.append({"label": label, "count": count, "low": hi <= threshold})
    return bins


def _annotator_stats(
    *,
    project: Project,
    volume: dict[int, int],
    agreement_with_final: dict[int, float | None],
) -> list[dict[str, object]]:
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
