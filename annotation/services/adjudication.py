"""From judgments to final grades: settling by rule, adjudication by leads, approval.

A query whose assigned annotators have all finished is *settled*: its agreement is computed
and stored (`annotation.services.agreement`); if it is flagged it waits for a lead, otherwise
every candidate resolves by rule (`goldsmith.agreement.rule_resolution`: unanimous, else
majority, else the project's tie rule: the lower or the higher of two grades one apart, or a
lead, which flags the query). Leads adjudicate flagged queries and approve resolved ones.
Every write of a lead names the review `version` it was based on; a stale version is refused
with `StaleReview` (HTTP 409) so that two leads never overwrite each other.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext

from annotation.models import (
    Assignment,
    Candidate,
    Judgment,
    Project,
    Query,
    QueryReview,
    Resolution,
)
from annotation.models.judging import AdjudicationReason, AssignmentStatus, Provenance, ReviewState
from annotation.models.projects import TieRule
from annotation.services.agreement import query_agreement_compute, query_agreements_compute
from goldsmith.agreement import rule_resolution


class StaleReview(Exception):
    """Someone changed the query's review since the caller loaded it."""

    def __init__(self, current: int) -> None:
        super().__init__(
            gettext("this query was changed meanwhile (now version %(version)s); reload it")
            % {"version": current}
        )
        self.current = current


@transaction.atomic
def query_settle(*, query_id: int) -> QueryReview:
    """Flag or resolve a query whose annotators have all finished (safe to run twice)."""
    review, _ = QueryReview.objects.get_or_create(query_id=query_id)
    review = QueryReview.objects.select_for_update().get(pk=review.pk)
    statuses = list(Assignment.objects.filter(query_id=query_id).values_list("status", flat=True))
    if not statuses or any(s != AssignmentStatus.DONE for s in statuses):
        return review
    if review.state == ReviewState.APPROVED or (
        review.state == ReviewState.RESOLVED and review.adjudicated_at is not None
    ):
        return review
    agreement = query_agreement_compute(query_id=query_id)
    by_candidate: dict[int, list[int]] = defaultdict(list)
    # Only the assigned annotators' grades count (a reassigned annotator's are kept, not used).
    assigned = Assignment.objects.filter(query_id=query_id).values("annotator_id")
    for cand_id, grade in Judgment.objects.filter(
        candidate__query_id=query_id, annotator_id__in=assigned
    ).values_list("candidate_id", "grade"):
        by_candidate[cand_id].append(grade)
    candidate_ids = list(Candidate.objects.filter(query_id=query_id).values_list("id", flat=True))
    tie_rule = Project.objects.filter(queries__id=query_id).values_list("tie_rule", flat=True)[0]
    ruled = {
        cid: rule_resolution(by_candidate.get(cid, []), tie_rule=tie_rule) for cid in candidate_ids
    }
    if agreement.flagged:
        Resolution.objects.filter(candidate__query_id=query_id).exclude(
            provenance=Provenance.ADJUDICATED
        ).delete()
        new_state = ReviewState.FLAGGED
    else:
        adjudicated = set(
            Resolution.objects.filter(
                candidate__query_id=query_id, provenance=Provenance.ADJUDICATED
            ).values_list("candidate_id", flat=True)
        )
        rows = [
            Resolution(candidate_id=cid, grade=result[0], provenance=result[1])
            for cid, result in ruled.items()
            if result is not None and cid not in adjudicated
        ]
        Resolution.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["candidate"],
            update_fields=["grade", "provenance", "reason", "resolved_by", "resolved_at"],
        )
        new_state = ReviewState.RESOLVED
    if review.state != new_state:
        review.state = new_state
        review.version += 1
        review.save(update_fields=["state", "version", "updated_at"])
    return review


_CHUNK = 5000


@transaction.atomic
def queries_settle(
    *,
    flagged: Mapping[int, bool],
    grades: Mapping[int, Mapping[int, Mapping[int, int]]],
    tie_rule: str,
) -> int:
    """What `query_settle` does, for many finished queries at once (a project's
    recomputation; one query at a time took 25 ms each). `flagged` holds each query's flag as
    just computed and stored, `grades` the assigned annotators' grades (query -> annotator ->
    candidate -> grade), `tie_rule` the project's. Approved queries and adjudicated ones are
    left alone. Returns how many queries changed state."""
    ids = sorted(flagged)
    if not ids:
        return 0
    parts = [ids[i : i + _CHUNK] for i in range(0, len(ids), _CHUNK)]
    for part in parts:
        QueryReview.objects.bulk_create(
            [QueryReview(query_id=q) for q in part], ignore_conflicts=True
        )
    reviews = [
        row
        for part in parts
        for row in QueryReview.objects.select_for_update()
        .filter(query_id__in=part)
        .order_by("id")
        .values("id", "query_id", "state", "adjudicated_at")
    ]
    settled = [
        r
        for r in reviews
        if r["state"] != ReviewState.APPROVED
        and not (r["state"] == ReviewState.RESOLVED and r["adjudicated_at"] is not None)
    ]
    to_flag = [r["query_id"] for r in settled if flagged[r["query_id"]]]
    to_resolve = [r["query_id"] for r in settled if not flagged[r["query_id"]]]
    for start in range(0, len(to_flag), _CHUNK):
        Resolution.objects.filter(candidate__query_id__in=to_flag[start : start + _CHUNK]).exclude(
            provenance=Provenance.ADJUDICATED
        ).delete()
    adjudicated: set[int] = set()
    for start in range(0, len(to_resolve), _CHUNK):
        adjudicated.update(
            Resolution.objects.filter(
                candidate__query_id__in=to_resolve[start : start + _CHUNK],
                provenance=Provenance.ADJUDICATED,
            ).values_list("candidate_id", flat=True)
        )
    rows: list[Resolution] = []
    for qid in to_resolve:
        by_candidate: dict[int, list[int]] = defaultdict(list)
        for per_candidate in grades.get(qid, {}).values():
            for cid, grade in per_candidate.items():
                by_candidate[cid].append(grade)
        for cid, votes in by_candidate.items():
            result = rule_resolution(votes, tie_rule=tie_rule)
            if result is not None and cid not in adjudicated:
                rows.append(Resolution(candidate_id=cid, grade=result[0], provenance=result[1]))
    Resolution.objects.bulk_create(
        rows,
        batch_size=_CHUNK,
        update_conflicts=True,
        unique_fields=["candidate"],
        update_fields=["grade", "provenance", "reason", "resolved_by", "resolved_at"],
    )
    changed = 0
    now = timezone.now()
    for state, group in ((ReviewState.FLAGGED, to_flag), (ReviewState.RESOLVED, to_resolve)):
        members = set(group)
        moving = [r["id"] for r in settled if r["query_id"] in members and r["state"] != state]
        for start in range(0, len(moving), _CHUNK):
            changed += QueryReview.objects.filter(pk__in=moving[start : start + _CHUNK]).update(
                state=state, version=F("version") + 1, updated_at=now
            )
    return changed


def project_agreement_recompute(*, project: Project) -> int:
    """Recompute every finished query's agreement and flags from stored judgments, in bulk
    (`query_agreements_compute`), then settle the queries whose flag changed (e.g. after the
    kappa threshold changed) and those not settled yet. Returns the number of queries.

    Two transactions, the figures first: a grade save locks a query's review before its
    agreement row, so holding agreement rows while waiting for reviews could deadlock."""
    computed = query_agreements_compute(project=project)
    states = dict(
        QueryReview.objects.filter(query__project=project).values_list("query_id", "state")
    )
    queries_settle(
        flagged={
            qid: flagged
            for qid, flagged in computed.flagged.items()
            if qid in computed.flag_changed or states.get(qid, ReviewState.OPEN) == ReviewState.OPEN
        },
        grades=computed.grades,
        tie_rule=project.tie_rule,
    )
    return len(computed.flagged)


def _settled_outcomes(project: Project, query_ids: set[int]) -> dict[int, tuple[str, frozenset]]:
    """query → (review state, its final grades by rule as (candidate, grade, provenance))."""
    states = dict(
        QueryReview.objects.filter(query__project=project).values_list("query_id", "state")
    )
    finals: dict[int, set[tuple[int, int, str]]] = defaultdict(set)
    for qid, cid, grade, provenance in (
        Resolution.objects.filter(candidate__query__project=project)
        .exclude(provenance=Provenance.ADJUDICATED)
        .values_list("candidate__query_id", "candidate_id", "grade", "provenance")
    ):
        if qid in query_ids:
            finals[qid].add((cid, grade, provenance))
    return {qid: (states.get(qid, ReviewState.OPEN), frozenset(finals[qid])) for qid in query_ids}


@transaction.atomic
def project_tie_rule_set(*, project: Project, tie_rule: str) -> int:
    """Set `project`'s tie rule and settle again every finished query not yet approved (and not
    adjudicated: a lead's grades stand) under it, in one transaction. Approved queries, and so
    every frozen version, are left alone. Returns how many queries changed: flagged ↔ resolved,
    or resolved with other final grades.

    The project's reviews are locked before its agreement rows are written: the order a grade
    save takes its locks in, so the two cannot deadlock."""
    if tie_rule not in TieRule.values:
        raise ValueError(
            gettext("unknown tie rule %(tie_rule)r; use one of %(names)s")
            % {"tie_rule": tie_rule, "names": ", ".join(TieRule.values)}
        )
    project = Project.objects.select_for_update().get(pk=project.pk)
    reviews = list(
        QueryReview.objects.select_for_update()
        .filter(query__project=project)
        .order_by("id")
        .values_list("query_id", "state", "adjudicated_at")
    )
    movable = {
        qid
        for qid, state, adjudicated_at in reviews
        if state in (ReviewState.FLAGGED, ReviewState.RESOLVED) and adjudicated_at is None
    }
    before = _settled_outcomes(project, movable)
    project.tie_rule = tie_rule
    project.save(update_fields=["tie_rule"])
    computed = query_agreements_compute(project=project)
    queries_settle(
        flagged={qid: f for qid, f in computed.flagged.items() if qid in movable},
        grades=computed.grades,
        tie_rule=tie_rule,
    )
    after = _settled_outcomes(project, movable)
    return sum(1 for qid in movable if before[qid] != after[qid])


def _locked_review(project: Project, query_id: int, version: int | None) -> QueryReview:
    """The query's review, locked; 404 for a query of another project (its id is refused, and
    whether it exists elsewhere is not revealed)."""
    review = (
        QueryReview.objects.select_for_update()
        .filter(query_id=query_id, query__project=project)
        .first()
    )
    if review is None:
        if not Query.objects.filter(pk=query_id, project=project).exists():
            raise Http404(gettext("No such query in this project"))
        raise ValueError(gettext("this query has not been annotated yet"))
    if version is not None and review.version != version:
        raise StaleReview(review.version)
    return review


@transaction.atomic
def query_adjudicate(
    *,
    project: Project,
    query_id: int,
    by: AbstractBaseUser,
    version: int,
    grades: Mapping[int, int],
    reason: str,
    note: str = "",
) -> QueryReview:
    """A lead sets the final grade of every candidate of a flagged (or resolved) query of
    `project` (a query of another project is refused with Http404)."""
    review = _locked_review(project, query_id, version)
    if review.state == ReviewState.OPEN:
        raise ValueError(gettext("this query is still being annotated"))
    if review.state == ReviewState.APPROVED:
        raise ValueError(gettext("this query is approved; it cannot be adjudicated again"))
    if reason not in AdjudicationReason.values:
        raise ValueError(
            gettext("unknown reason %(reason)r; use one of %(names)s")
            % {"reason": reason, "names": ", ".join(AdjudicationReason)}
        )
    candidate_ids = set(Candidate.objects.filter(query_id=query_id).values_list("id", flat=True))
    given = {int(k): int(v) for k, v in grades.items()}
    if set(given) != candidate_ids:
        missing = len(candidate_ids - set(given))
        extra = len(set(given) - candidate_ids)
        raise ValueError(
            gettext(
                "grade every candidate of this query and nothing else (%(missing)s missing, "
                "%(extra)s not in the pool)"
            )
            % {"missing": missing, "extra": extra}
        )
    if any(g not in (0, 1, 2) for g in given.values()):
        raise ValueError(gettext("a grade is 0, 1 or 2"))
    now = timezone.now()
    Resolution.objects.bulk_create(
        [
            Resolution(
                candidate_id=cid,
                grade=grade,
                provenance=Provenance.ADJUDICATED,
                reason=reason,
                resolved_by=by,
                resolved_at=now,
            )
            for cid, grade in sorted(given.items())
        ],
        update_conflicts=True,
        unique_fields=["candidate"],
        update_fields=["grade", "provenance", "reason", "resolved_by", "resolved_at"],
    )
    review.state = ReviewState.RESOLVED
    review.reason = reason
    review.reason_note = note
    review.adjudicated_by = by
    review.adjudicated_at = now
    review.version += 1
    review.save()
    return review


@transaction.atomic
def query_approve(
    *, project: Project, query_id: int, by: AbstractBaseUser, version: int | None
) -> QueryReview:
    """Approve one resolved query of `project`: its final grades may go into a golden-set
    version (a query of another project is refused with Http404)."""
    review = _locked_review(project, query_id, version)
    if review.state != ReviewState.RESOLVED:
        raise ValueError(
            gettext("only a resolved query can be approved (this one is: %(state)s)")
            % {"state": ReviewState(review.state).label.lower()}
        )
    review.state = ReviewState.APPROVED
    review.approved_by = by
    review.approved_at = timezone.now()
    review.version += 1
    review.save()
    return review


@dataclass(frozen=True)
class BulkApproval:
    approved: list[int]
    skipped: list[int]


@transaction.atomic
def queries_approve(
    *, project: Project, by: AbstractBaseUser, query_ids: Iterable[int] | None = None
) -> BulkApproval:
    """Approve many resolved queries at once (all resolved ones when `query_ids` is None).

    Queries of this project that are not resolved (open, flagged, already approved) are skipped
    and listed, never changed. An id that is not a query of this project refuses the whole
    call (ValueError): nothing is approved.
    """
    reviews = QueryReview.objects.select_for_update().filter(query__project=project)
    wanted = None if query_ids is None else sorted(set(query_ids))
    if wanted is not None:
        known = set(
            Query.objects.filter(project=project, pk__in=wanted).values_list("pk", flat=True)
        )
        foreign = [q for q in wanted if q not in known]
        if foreign:
            shown = ", ".join(str(q) for q in foreign[:5]) + (" …" if len(foreign) > 5 else "")
            raise ValueError(
                gettext("not queries of this project: %(shown)s; nothing was approved")
                % {"shown": shown}
            )
        reviews = reviews.filter(query_id__in=wanted)
    resolved = list(
        reviews.filter(state=ReviewState.RESOLVED)
        .order_by("query_id")
        .values_list("query_id", flat=True)
    )
    QueryReview.objects.filter(query_id__in=resolved).update(
        state=ReviewState.APPROVED,
        approved_by=by,
        approved_at=timezone.now(),
        version=F("version") + 1,
        updated_at=timezone.now(),
    )
    skipped = [] if wanted is None else [q for q in wanted if q not in set(resolved)]
    return BulkApproval(approved=resolved, skipped=skipped)
