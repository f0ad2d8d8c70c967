"""From judgments to final grades: settling by rule, escalation, adjudication by leads, approval.

A query whose assigned annotators have all finished is *settled*: its agreement is computed
and stored (`annotation.services.agreement`); if it is flagged it waits for a lead, otherwise
every candidate resolves by rule (`goldsmith.agreement.rule_resolution`: unanimous, else
majority, else the project's tie rule: the lower or the higher of two grades one apart, or a
lead, which flags the query). In a project that escalates, a flagged query first goes to one
more annotator (at most once; not when an annotator marked it ambiguous): it waits for them
(`ReviewState.ESCALATED`), then settles again on every grade, where a majority decides a
candidate and a candidate without one goes to a lead (`goldsmith.agreement.flag_reasons` with
`escalated`). When nobody is left to ask it goes to the lead at once, and says so
(`Escalation.NO_ANNOTATOR`). Leads adjudicate flagged queries and approve resolved ones.
Every write of a lead names the review `version` it was based on; a stale version is refused
with `StaleReview` (HTTP 409) so that two leads never overwrite each other.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
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
    QueryAgreement,
    QueryReview,
    Resolution,
)
from annotation.models.judging import (
    AdjudicationReason,
    AssignmentStatus,
    Escalation,
    Provenance,
    ReviewState,
)
from annotation.models.projects import KappaWeights, TieRule
from annotation.services.agreement import query_agreement_compute, query_agreements_compute
from annotation.services.assignment import queries_escalate, waiting_state
from annotation.services.depth import pool_deepen_where_yielding
from goldsmith.agreement import escalates, rule_resolution, settling_tie_rule


class StaleReview(Exception):
    """Someone changed the query's review since the caller loaded it."""

    def __init__(self, current: int) -> None:
        super().__init__(
            gettext("this query was changed meanwhile (now version %(version)s); reload it")
            % {"version": current}
        )
        self.current = current


def _set_state(review: QueryReview, state: str, escalation: str | None = None) -> None:
    fields = ["state", "version", "updated_at"]
    if escalation is not None and review.escalation != escalation:
        review.escalation = escalation
        fields.append("escalation")
    if review.state != state:
        review.state = state
        review.version += 1
    elif len(fields) == 3:
        return
    review.save(update_fields=fields)


@transaction.atomic
def query_settle(*, query_id: int) -> QueryReview:
    """Flag, escalate or resolve a query whose annotators have all finished (safe to run
    twice). A query left only to its escalation annotator is marked as waiting for them."""
    review, _ = QueryReview.objects.get_or_create(query_id=query_id)
    review = QueryReview.objects.select_for_update().get(pk=review.pk)
    statuses = list(Assignment.objects.filter(query_id=query_id).values_list("status", flat=True))
    if not statuses:
        return review
    if review.state == ReviewState.APPROVED or (
        review.state == ReviewState.RESOLVED and review.adjudicated_at is not None
    ):
        return review
    if any(s != AssignmentStatus.DONE for s in statuses):
        if review.state == ReviewState.OPEN:
            _set_state(review, waiting_state(query_id=query_id, escalation=review.escalation))
        return review
    project = Project.objects.get(queries__id=query_id)
    escalated = review.escalation == Escalation.ESCALATED
    agreement = query_agreement_compute(query_id=query_id, escalated=escalated)
    escalation = None
    if project.escalate and escalates(agreement.flag_reasons, escalated=escalated):
        if queries_escalate(project=project, query_ids=[query_id])[query_id] is not None:
            Resolution.objects.filter(candidate__query_id=query_id).exclude(
                provenance=Provenance.ADJUDICATED
            ).delete()
            _set_state(review, ReviewState.ESCALATED, Escalation.ESCALATED)
            return review
        escalation = Escalation.NO_ANNOTATOR
    elif not agreement.flagged and review.escalation == Escalation.NO_ANNOTATOR:
        escalation = Escalation.NONE
    by_candidate: dict[int, list[int]] = defaultdict(list)
    # Only the assigned annotators' grades count (a reassigned annotator's are kept, not used).
    assigned = Assignment.objects.filter(query_id=query_id).values("annotator_id")
    for cand_id, grade in Judgment.objects.filter(
        candidate__query_id=query_id, annotator_id__in=assigned
    ).values_list("candidate_id", "grade"):
        by_candidate[cand_id].append(grade)
    candidate_ids = list(Candidate.objects.filter(query_id=query_id).values_list("id", flat=True))
    tie_rule = settling_tie_rule(project.tie_rule, escalated=escalated)
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
    _set_state(review, new_state, escalation)
    if new_state == ReviewState.RESOLVED and pool_deepen_where_yielding(query_id=query_id):
        # A source still yielded relevant chunks at its last ranks: the deeper pool's new
        # candidates went to the same annotators and the query is open again.
        review.refresh_from_db()
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
    # A query settled here needs no lead for want of a third annotator any more (or it is
    # flagged again, and `queries_escalate_flagged` looks at it afresh).
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
    escalated = set(
        QueryReview.objects.filter(
            query_id__in=to_resolve, escalation=Escalation.ESCALATED
        ).values_list("query_id", flat=True)
    )
    rows: list[Resolution] = []
    for qid in to_resolve:
        by_candidate: dict[int, list[int]] = defaultdict(list)
        for per_candidate in grades.get(qid, {}).values():
            for cid, grade in per_candidate.items():
                by_candidate[cid].append(grade)
        rule = settling_tie_rule(tie_rule, escalated=qid in escalated)
        for cid, votes in by_candidate.items():
            result = rule_resolution(votes, tie_rule=rule)
            if result is not None and cid not in adjudicated:
                rows.append(Resolution(candidate_id=cid, grade=result[0], provenance=result[1]))
    Resolution.objects.bulk_create(
        rows,
        batch_size=_CHUNK,
        update_conflicts=True,
        unique_fields=["candidate"],
        update_fields=["grade", "provenance", "reason", "resolved_by", "resolved_at"],
    )
    for start in range(0, len(to_resolve), _CHUNK):
        QueryReview.objects.filter(
            query_id__in=to_resolve[start : start + _CHUNK], escalation=Escalation.NO_ANNOTATOR
        ).update(escalation=Escalation.NONE)
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
    waiting = (ReviewState.OPEN, ReviewState.ESCALATED)
    queries_settle(
        flagged={
            qid: flagged
            for qid, flagged in computed.flagged.items()
            if qid in computed.flag_changed or states.get(qid, ReviewState.OPEN) in waiting
        },
        grades=computed.grades,
        tie_rule=project.tie_rule,
    )
    queries_escalate_flagged(project=project)
    return len(computed.flagged)


@transaction.atomic
def queries_escalate_flagged(*, project: Project) -> int:
    """In a project that escalates, give every flagged query that may go to one more annotator
    (`goldsmith.agreement.escalates`: not escalated before, no ambiguity mark; not adjudicated)
    its extra annotator (`queries_escalate`): it then waits for them. Those for whom nobody is
    left stay with the lead and say why. Returns how many queries were escalated."""
    if not project.escalate:
        return 0
    reviews = list(
        QueryReview.objects.select_for_update()
        .filter(query__project=project, state=ReviewState.FLAGGED, adjudicated_at__isnull=True)
        .exclude(escalation=Escalation.ESCALATED)
        .order_by("id")
        .values_list("query_id", flat=True)
    )
    reasons = dict(
        QueryAgreement.objects.filter(query_id__in=reviews).values_list("query_id", "flag_reasons")
    )
    wanted = [q for q in reviews if escalates(reasons.get(q, []), escalated=False)]
    picked = queries_escalate(project=project, query_ids=wanted)
    given = [q for q, uid in picked.items() if uid is not None]
    nobody = [q for q, uid in picked.items() if uid is None]
    for start in range(0, len(given), _CHUNK):
        part = given[start : start + _CHUNK]
        Resolution.objects.filter(candidate__query_id__in=part).exclude(
            provenance=Provenance.ADJUDICATED
        ).delete()
        QueryReview.objects.filter(query_id__in=part).update(
            state=ReviewState.ESCALATED,
            escalation=Escalation.ESCALATED,
            version=F("version") + 1,
            updated_at=timezone.now(),
        )
    for start in range(0, len(nobody), _CHUNK):
        QueryReview.objects.filter(query_id__in=nobody[start : start + _CHUNK]).update(
            escalation=Escalation.NO_ANNOTATOR
        )
    return len(given)


@dataclass(frozen=True)
class EscalationChange:
    """What switching escalation did: queries given one more annotator (switched on), and
    queries whose unfinished extra assignment was withdrawn, now with a lead (switched off)."""

    escalate: bool
    escalated: int
    withdrawn: int


@transaction.atomic
def project_escalation_set(*, project: Project, escalate: bool) -> EscalationChange:
    """Switch escalation on or off for `project`.

    On: every flagged query not adjudicated and never escalated (and not marked ambiguous)
    goes to one more annotator now, as it would have had escalation been on when it was
    flagged; queries already escalated once are not escalated again. Off: every escalation
    assignment not yet finished is withdrawn (grades already given are kept, like a
    reassigned annotator's, but no longer count) and its query settles on its first
    annotators' grades, so the queries that were waiting go to a lead; finished extra
    assignments stay and their grades keep counting.

    The project and its reviews are locked first, in the order a grade save takes its locks."""
    project = Project.objects.select_for_update().get(pk=project.pk)
    list(
        QueryReview.objects.select_for_update()
        .filter(query__project=project)
        .order_by("id")
        .values_list("id", flat=True)
    )
    project.escalate = escalate
    project.save(update_fields=["escalate"])
    if escalate:
        return EscalationChange(
            escalate=True, escalated=queries_escalate_flagged(project=project), withdrawn=0
        )
    unfinished = Assignment.objects.filter(query__project=project, escalation=True).exclude(
        status=AssignmentStatus.DONE
    )
    withdrawn = sorted(set(unfinished.values_list("query_id", flat=True)))
    unfinished.delete()
    QueryReview.objects.filter(query_id__in=withdrawn).update(escalation=Escalation.NONE)
    QueryReview.objects.filter(query__project=project, escalation=Escalation.NO_ANNOTATOR).update(
        escalation=Escalation.NONE
    )
    for query_id in withdrawn:
        review = QueryReview.objects.get(query_id=query_id)
        if review.state == ReviewState.ESCALATED:
            _set_state(review, ReviewState.OPEN)
        query_settle(query_id=query_id)
    return EscalationChange(escalate=False, escalated=0, withdrawn=len(withdrawn))


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


def _rule_setting(
    *, tie_rule: str | None = None, kappa_weights: str | None = None
) -> dict[str, str]:
    """The project fields a change of tie rule and/or flag kappa sets (those given), checked;
    ValueError names an unknown value."""
    setting: dict[str, str] = {}
    if tie_rule is not None:
        if tie_rule not in TieRule.values:
            raise ValueError(
                gettext("unknown tie rule %(tie_rule)r; use one of %(names)s")
                % {"tie_rule": tie_rule, "names": ", ".join(TieRule.values)}
            )
        setting["tie_rule"] = tie_rule
    if kappa_weights is not None:
        if kappa_weights not in KappaWeights.values:
            raise ValueError(
                gettext("unknown kappa weights %(weights)r; use one of %(names)s")
                % {"weights": kappa_weights, "names": ", ".join(KappaWeights.values)}
            )
        setting["kappa_weights"] = kappa_weights
    return setting


@transaction.atomic
def project_tie_rule_set(*, project: Project, tie_rule: str) -> int:
    """Set `project`'s tie rule and settle again every finished query not yet approved (and not
    adjudicated: a lead's grades stand) under it, in one transaction. Approved queries, and so
    every frozen version, are left alone. Returns how many queries changed: flagged ↔ resolved,
    or resolved with other final grades."""
    return _settle_again(project, **_rule_setting(tie_rule=tie_rule))


@transaction.atomic
def project_kappa_weights_set(*, project: Project, kappa_weights: str) -> int:
    """Set which kappa `project`'s flag rule reads (`KappaWeights`: unweighted or linearly
    weighted) and settle again every finished query not yet approved and not adjudicated, as
    `project_tie_rule_set` does. Returns how many queries changed."""
    return _settle_again(project, **_rule_setting(kappa_weights=kappa_weights))


@dataclass(frozen=True)
class SettlingChange:
    """What a change of tie rule or flag kappa did (`project_rules_change`): `changed` queries
    settled differently at once, or the settling was `queued` for a worker (`changed` None)
    over `queries` finished queries."""

    changed: int | None
    queued: bool
    queries: int


def _settling_key(project_id: int) -> str:
    return f"goldsmith:settling-again:{project_id}"


def settling_status(*, project: Project) -> dict[str, Any] | None:
    """The state of the project's latest settling by a worker: ``{"state": "queued" | "running"
    | "done" | "failed", "queries": n, "changed": n (done), "at": ISO time}``, or None."""
    return cache.get(_settling_key(project.pk))  # type: ignore[no-any-return]


def project_rules_change(
    *, project: Project, tie_rule: str | None = None, kappa_weights: str | None = None
) -> SettlingChange:
    """Set `project`'s tie rule and/or the kappa its flag rule reads, and settle again every
    finished query not yet approved nor adjudicated: at once when there are at most
    ``GOLDSMITH_SETTLE_IN_REQUEST_MAX`` of them (as `project_tie_rule_set`), else the setting
    is stored now and a worker settles them (`project_settle_again`), so a lead's request never
    waits the minute a large project takes. Raises ValueError for an unknown value."""
    setting = _rule_setting(tie_rule=tie_rule, kappa_weights=kappa_weights)
    queries = QueryReview.objects.filter(
        query__project=project,
        state__in=(ReviewState.FLAGGED, ReviewState.RESOLVED),
        adjudicated_at__isnull=True,
    ).count()
    if queries <= settings.GOLDSMITH_SETTLE_IN_REQUEST_MAX:
        with transaction.atomic():
            changed = _settle_again(project, **setting)
        cache.delete(_settling_key(project.pk))  # an older worker's outcome no longer holds
        return SettlingChange(changed, False, queries)
    with transaction.atomic():
        locked = Project.objects.select_for_update().get(pk=project.pk)
        for name, value in setting.items():
            setattr(locked, name, value)
        locked.save(update_fields=list(setting))
        cache.set(
            _settling_key(project.pk),
            {"state": "queued", "queries": queries, "at": timezone.now().isoformat()},
            timeout=None,
        )
        from annotation import tasks

        transaction.on_commit(lambda: tasks.project_settle_again.delay(project.pk))
    return SettlingChange(None, True, queries)


def project_settle_again(*, project_id: int) -> int:
    """Settle again, under its current settings, every finished query of the project not yet
    approved nor adjudicated (the worker's side of `project_rules_change`; safe to run twice),
    recording its progress for the dashboard. Returns how many queries changed outcome."""
    key = _settling_key(project_id)
    status = cache.get(key) or {}
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        cache.delete(key)
        return 0
    cache.set(key, {**status, "state": "running"}, timeout=None)
    try:
        with transaction.atomic():
            changed = _settle_again(project)
    except Exception:
        cache.set(key, {**status, "state": "failed", "at": timezone.now().isoformat()}, None)
        raise
    cache.set(
        key,
        {**status, "state": "done", "changed": changed, "at": timezone.now().isoformat()},
        timeout=7 * 24 * 3600,
    )
    return changed


def _settle_again(project: Project, **setting: str) -> int:
    """Store one flag or tie setting of `project` and settle again, in the caller's
    transaction, every finished query that is neither approved nor adjudicated; a query the new
    setting flags goes to one more annotator first when the project escalates. Returns how many
    of those queries changed outcome.

    The project's reviews are locked before its agreement rows are written: the order a grade
    save takes its locks in, so the two cannot deadlock."""
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
    for name, value in setting.items():
        setattr(project, name, value)
    project.save(update_fields=list(setting))
    computed = query_agreements_compute(project=project)
    queries_settle(
        flagged={qid: f for qid, f in computed.flagged.items() if qid in movable},
        grades=computed.grades,
        tie_rule=project.tie_rule,
    )
    # A query the new setting flags goes to one more annotator first, when the project escalates.
    queries_escalate_flagged(project=project)
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
    `project` (a query of another project is refused with Http404). A query waiting for one
    more annotator may be adjudicated too: that annotator's unfinished assignment is withdrawn
    (their grades so far are kept, as a reassigned annotator's are)."""
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
    if review.state == ReviewState.ESCALATED:
        Assignment.objects.filter(query_id=query_id, escalation=True).exclude(
            status=AssignmentStatus.DONE
        ).delete()
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
