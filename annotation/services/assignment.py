"""Who judges what: each pooled query goes to N annotators, balancing their load."""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, F, Max
from django.utils import timezone
from django.utils.translation import gettext

from annotation.models import (
    Assignment,
    Candidate,
    Judgment,
    Membership,
    Project,
    QueryReview,
    Role,
)
from annotation.models.judging import AssignmentStatus, Escalation, ReviewState
from annotation.selectors.judging_order import stopped_left

User = get_user_model()


@dataclass(frozen=True)
class AssignResult:
    created: int
    queries: int
    annotators: int


@transaction.atomic
def queries_assign(
    *, project: Project, per_query: int | None = None, query_ids: Iterable[int] | None = None
) -> AssignResult:
    """Give every pooled query of `project` (or only those of `query_ids`) up to `per_query`
    annotators (the project setting by default). Each missing slot goes to the annotator with
    the fewest assignments in the project (ties: username order). Running it again only fills
    missing slots."""
    n = per_query if per_query is not None else project.annotators_per_query
    if n < 1:
        raise ValueError(gettext("each query needs at least one annotator"))
    annotators = list(
        Membership.objects.filter(project=project, role=Role.ANNOTATOR)
        .order_by("user__username")
        .values_list("user_id", flat=True)
    )
    if not annotators:
        raise ValueError(gettext("the project has no annotators"))
    n = min(n, len(annotators))
    rows = Assignment.objects.filter(query__project=project)
    assigned: dict[int, set[int]] = defaultdict(set)
    load = dict.fromkeys(annotators, 0)
    next_order = dict.fromkeys(annotators, 1)
    for qid, uid, order in rows.values_list("query_id", "annotator_id", "order"):
        assigned[qid].add(uid)
        if uid in load:
            load[uid] += 1
            next_order[uid] = max(next_order[uid], order + 1)
    pooled = Candidate.objects.filter(query__project=project)
    if query_ids is not None:
        pooled = pooled.filter(query_id__in=list(query_ids))
    totals = dict(pooled.values("query_id").annotate(n=Count("id")).values_list("query_id", "n"))
    heap = [(load[uid], position, uid) for position, uid in enumerate(annotators)]
    heapq.heapify(heap)
    new: list[Assignment] = []
    touched: set[int] = set()
    for qid in sorted(totals):
        missing = n - len(assigned[qid])
        skipped = []
        while missing > 0 and heap:
            count, position, uid = heapq.heappop(heap)
            if uid in assigned[qid]:
                skipped.append((count, position, uid))
                continue
            new.append(
                Assignment(query_id=qid, annotator_id=uid, order=next_order[uid], total=totals[qid])
            )
            assigned[qid].add(uid)
            next_order[uid] += 1
            touched.add(qid)
            missing -= 1
            skipped.append((count + 1, position, uid))
        for item in skipped:
            heapq.heappush(heap, item)
    Assignment.objects.bulk_create(new, batch_size=2000)
    QueryReview.objects.bulk_create(
        [QueryReview(query_id=qid) for qid in sorted(touched)],
        batch_size=2000,
        ignore_conflicts=True,
    )
    return AssignResult(created=len(new), queries=len(touched), annotators=len(annotators))


def queries_escalate(*, project: Project, query_ids: Iterable[int]) -> dict[int, int | None]:
    """Give each of these queries one more annotator: an *escalation* assignment
    (`Assignment.escalation`), chosen by the balancing rule of `queries_assign` (the fewest
    assignments in the project, ties in username order) among the project's annotators who
    have never seen the query: no assignment of it and no grade of its candidates (a
    reassigned annotator's grades are kept, so they saw it). Returns query → the annotator's
    id, or None when nobody is left. Queries are served in id order, so a batch spreads its
    escalations over the annotators as `queries_assign` spreads queries."""
    ids = sorted(set(query_ids))
    picked: dict[int, int | None] = dict.fromkeys(ids)
    annotators = list(
        Membership.objects.filter(project=project, role=Role.ANNOTATOR)
        .order_by("user__username")
        .values_list("user_id", flat=True)
    )
    if not ids or not annotators:
        return picked
    seen: dict[int, set[int]] = defaultdict(set)
    for qid, uid in Assignment.objects.filter(query_id__in=ids).values_list(
        "query_id", "annotator_id"
    ):
        seen[qid].add(uid)
    for qid, uid in (
        Judgment.objects.filter(candidate__query_id__in=ids)
        .values_list("candidate__query_id", "annotator_id")
        .distinct()
    ):
        seen[qid].add(uid)
    load = dict.fromkeys(annotators, 0)
    next_order = dict.fromkeys(annotators, 1)
    for uid, n, last in (
        Assignment.objects.filter(query__project=project, annotator_id__in=annotators)
        .values("annotator_id")
        .annotate(n=Count("id"), last=Max("order"))
        .values_list("annotator_id", "n", "last")
    ):
        load[uid] = n
        next_order[uid] = (last or 0) + 1
    totals = dict(
        Candidate.objects.filter(query_id__in=ids)
        .values("query_id")
        .annotate(n=Count("id"))
        .values_list("query_id", "n")
    )
    position = {uid: i for i, uid in enumerate(annotators)}
    new: list[Assignment] = []
    for qid in ids:
        free = [uid for uid in annotators if uid not in seen[qid]]
        if not free:
            continue
        uid = min(free, key=lambda u: (load[u], position[u]))
        new.append(
            Assignment(
                query_id=qid,
                annotator_id=uid,
                order=next_order[uid],
                total=totals.get(qid, 0),
                escalation=True,
            )
        )
        load[uid] += 1
        next_order[uid] += 1
        picked[qid] = uid
    Assignment.objects.bulk_create(new, batch_size=2000)
    return picked


def waiting_state(*, query_id: int, escalation: str) -> str:
    """The state of a query not every assigned annotator has finished: waiting for one more
    annotator when it was escalated and only escalation assignments are left, else open."""
    if escalation != Escalation.ESCALATED:
        return ReviewState.OPEN
    left = Assignment.objects.filter(query_id=query_id).exclude(status=AssignmentStatus.DONE)
    if left.exists() and not left.filter(escalation=False).exists():
        return ReviewState.ESCALATED
    return ReviewState.OPEN


def assignments_refresh(*, query_ids: Iterable[int]) -> set[int]:
    """Recount progress of every assignment of these queries after their pools or judgments
    changed. A finished query that gained candidates is open again (and no longer approved);
    returns those reopened queries."""
    ids = sorted(set(query_ids))
    if not ids:
        return set()
    totals = dict(
        Candidate.objects.filter(query_id__in=ids)
        .values("query_id")
        .annotate(n=Count("id"))
        .values_list("query_id", "n")
    )
    judged = {
        (row["candidate__query_id"], row["annotator_id"]): row["n"]
        for row in Judgment.objects.filter(candidate__query_id__in=ids)
        .values("candidate__query_id", "annotator_id")
        .annotate(n=Count("id"))
    }
    changed = []
    reopened: set[int] = set()
    assignments = list(Assignment.objects.filter(query_id__in=ids))
    # What a stop left not judged (stopped) counts as done; a candidate added since does not.
    left = stopped_left(assignment_ids=[a.pk for a in assignments])
    for a in assignments:
        total = totals.get(a.query_id, 0)
        done = judged.get((a.query_id, a.annotator_id), 0)
        status = _status(done + left.get(a.pk, 0), total)
        if (a.total, a.judged, a.status) != (total, done, status):
            if a.status == AssignmentStatus.DONE and status != AssignmentStatus.DONE:
                reopened.add(a.query_id)
            a.total, a.judged, a.status = total, done, status
            a.done_at = timezone.now() if status == AssignmentStatus.DONE else None
            changed.append(a)
    Assignment.objects.bulk_update(changed, ["total", "judged", "status", "done_at"])
    if reopened:
        QueryReview.objects.filter(query_id__in=reopened).exclude(state=ReviewState.OPEN).update(
            state=ReviewState.OPEN,
            version=F("version") + 1,
            approved_by=None,
            approved_at=None,
            updated_at=timezone.now(),
        )
    return reopened


def _status(judged: int, total: int) -> str:
    if total and judged >= total:
        return AssignmentStatus.DONE
    return AssignmentStatus.STARTED if judged else AssignmentStatus.PENDING


@transaction.atomic
def assignment_reassign(*, assignment: Assignment, to_username: str) -> Assignment:
    """Move an assignment to another annotator of the project.

    The previous annotator's grades, flags and note are kept (nothing a user saved is lost;
    they count again if the query is given back), but only the assigned annotators' judgments
    count towards progress, agreement and final grades.
    """
    query = assignment.query
    target = User.objects.filter(username=to_username).first()
    if (
        target is None
        or not Membership.objects.filter(
            project_id=query.project_id, user=target, role__in=[Role.ANNOTATOR, Role.LEAD]
        ).exists()
    ):
        raise ValueError(
            gettext("%(username)r is not an annotator of this project") % {"username": to_username}
        )
    if target.pk == assignment.annotator_id:
        return assignment
    if Assignment.objects.filter(query=query, annotator=target).exists():
        raise ValueError(gettext("%(username)s already has this query") % {"username": to_username})
    last = Assignment.objects.filter(
        annotator=target, query__project_id=query.project_id
    ).aggregate(m=Max("order"))["m"]
    assignment.annotator = target
    assignment.order = (last or 0) + 1
    assignment.save(update_fields=["annotator", "order"])
    assignments_refresh(query_ids=[query.pk])
    # A finished annotator's work no longer counts: open again until the new one is done (or,
    # when the moved assignment is an escalation's, waiting again for one more annotator).
    review = QueryReview.objects.filter(query=query).first()
    state = waiting_state(
        query_id=query.pk, escalation=review.escalation if review else Escalation.NONE
    )
    QueryReview.objects.filter(query=query).exclude(state=state).update(
        state=state, version=F("version") + 1, approved_by=None, approved_at=None
    )
    assignment.refresh_from_db()
    return assignment
