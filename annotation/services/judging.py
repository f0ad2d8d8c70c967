"""Annotators' writes: grades, per-query flags and notes, time spent, guidelines."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext

from annotation.models import (
    Assignment,
    Candidate,
    Guideline,
    Judgment,
    Project,
    QueryAnnotation,
    QueryReview,
    Resolution,
    VisitTime,
)
from annotation.models.judging import AssignmentStatus, JudgingOrder, Provenance, ReviewState
from annotation.models.stopping import JudgingStop
from annotation.selectors.judging_order import stopped_left
from annotation.services.adjudication import query_settle

# A tab left open overnight must not count as a day of work: one save, and one visit of the
# annotation page, count at most an hour.
MAX_SECONDS_PER_SAVE = 3600.0


class JudgingClosed(Exception):
    """The query was adjudicated or approved: its annotators' grades are final."""


def latest_guideline_version(project_id: int) -> int | None:
    return (
        Guideline.objects.filter(project_id=project_id)
        .order_by("-version")
        .values_list("version", flat=True)
        .first()
    )


def _final() -> Q:
    """Reviews whose annotators' grades are final: approved, or adjudicated by a lead."""
    return Q(state=ReviewState.APPROVED) | Q(
        state=ReviewState.RESOLVED, adjudicated_at__isnull=False
    )


def check_open(query_id: int) -> None:
    """Raise JudgingClosed once a lead adjudicated or approved the query."""
    if QueryReview.objects.filter(_final(), query_id=query_id).exists():
        raise JudgingClosed(gettext("this query was already adjudicated or approved"))


@dataclass(frozen=True)
class SavedGrade:
    judgment: Judgment
    status: str  # the annotator's assignment status after this grade
    judged: int
    total: int


@transaction.atomic
def judgment_save(
    *,
    assignment: Assignment,
    candidate: Candidate,
    grade: int,
    note: str | None = None,
    order: str | None = None,
    simulated: bool = False,
) -> SavedGrade:
    """Save the assigned annotator's grade for `candidate` (insert or update, never two rows).
    `simulated`: made by a rule on the annotator's behalf (the demo loader's), marked so
    wherever grades are shown; the annotator's own save of the grade clears the mark.

    The assignment row is locked first, so concurrent saves by one annotator on one query are
    serialised and the progress count stays exact. When every assigned annotator has graded
    every candidate, the query's agreement is computed and it is flagged or resolved.

    The most frequent write of all, and on SQLite every write waits for the one before, so the
    transaction holds four statements while the query is not finished: the one that locks the
    assignment also reads whether the query's grades are final and the guidelines' version,
    then the upsert, the count and the progress update (none when it did not change).
    tests/annotation/test_a_grade_save_is_short.py counts the whole request's.
    """
    if grade not in (0, 1, 2):
        raise ValueError(gettext("a grade is 0, 1 or 2"))
    if order is not None and order not in JudgingOrder.values:
        raise ValueError(gettext("unknown judging order %(order)r") % {"order": order})
    if candidate.query_id != assignment.query_id:
        raise ValueError(gettext("that candidate belongs to another query"))
    assignment = (
        Assignment.objects.select_for_update(of=("self",))
        .annotate(
            final=Exists(QueryReview.objects.filter(_final(), query_id=OuterRef("query_id"))),
            guideline_version=Subquery(
                Guideline.objects.filter(project_id=OuterRef("query__project_id"))
                .order_by("-version")
                .values("version")[:1]
            ),
            stopped=Exists(JudgingStop.objects.filter(assignment_id=OuterRef("pk"))),
        )
        .get(pk=assignment.pk)
    )
    if assignment.final:
        raise JudgingClosed(gettext("this query was already adjudicated or approved"))
    row = Judgment(
        candidate=candidate,
        annotator_id=assignment.annotator_id,
        grade=grade,
        note=note or "",
        guideline_version=assignment.guideline_version,
        order=order or "",
        simulated=simulated,
    )
    update_fields = ["grade", "guideline_version", "simulated", "updated_at"]
    if note is not None:
        update_fields.append("note")
    if order is not None:
        update_fields.append("order")
    Judgment.objects.bulk_create(
        [row],
        update_conflicts=True,
        unique_fields=["candidate", "annotator"],
        update_fields=update_fields,
    )
    judged = Judgment.objects.filter(
        candidate__query_id=assignment.query_id, annotator_id=assignment.annotator_id
    ).count()
    # `total` is kept current by `assignments_refresh` whenever the pool changes.
    total = assignment.total
    was_done = assignment.status == AssignmentStatus.DONE
    # A query the annotator stopped stays finished: what the stop left counts as done (not
    # judged, stopped), and a grade given to one of those since counts as judged.
    left = (
        stopped_left(assignment_ids=[assignment.pk]).get(assignment.pk, 0)
        if assignment.stopped
        else 0
    )
    status = AssignmentStatus.DONE if judged + left >= total else AssignmentStatus.STARTED
    if (assignment.judged, assignment.status) != (judged, status):
        Assignment.objects.filter(pk=assignment.pk).update(
            judged=judged,
            status=status,
            done_at=timezone.now() if status == AssignmentStatus.DONE else None,
        )
    if status == AssignmentStatus.DONE or was_done:
        query_settle(query_id=assignment.query_id)
    return SavedGrade(judgment=row, status=status, judged=judged, total=total)


@transaction.atomic
def query_annotation_save(
    *,
    assignment: Assignment,
    flags: dict[str, bool] | None = None,
    note: str | None = None,
    seconds: float = 0.0,
    visit: str | None = None,
) -> QueryAnnotation:
    """Set the annotator's flags and note on the query and record time spent.

    Without `visit`, `seconds` are added. With it, `seconds` is the total so far of that visit
    of the annotation page, stored once per (assignment, visit): a report the page sends again
    (its answer was lost as the page unloaded) or late (an older total) changes nothing, and
    `seconds_spent` grows only by what the visit adds to its last report."""
    check_open(assignment.query_id)
    annotation, _ = QueryAnnotation.objects.select_for_update().get_or_create(
        query_id=assignment.query_id, annotator_id=assignment.annotator_id
    )
    fields = ["updated_at"]
    for name, value in (flags or {}).items():
        if name not in QueryAnnotation.FLAGS:
            raise ValueError(gettext("unknown flag %(name)r") % {"name": name})
        setattr(annotation, name, bool(value))
        fields.append(name)
    if note is not None:
        annotation.note = note
        fields.append("note")
    seconds = min(max(float(seconds), 0.0), MAX_SECONDS_PER_SAVE)
    added = seconds
    if visit is not None and seconds:
        # The annotation row locked above serialises this annotator's reports on this query.
        row, created = VisitTime.objects.get_or_create(
            assignment=assignment, visit=visit, defaults={"seconds": seconds}
        )
        if not created:
            added = max(seconds - row.seconds, 0.0)
            if added:
                row.seconds = seconds
                row.save(update_fields=["seconds", "updated_at"])
    if added:
        annotation.seconds_spent += added
        fields.append("seconds_spent")
    annotation.save(update_fields=fields)
    if flags and assignment.status == AssignmentStatus.DONE:
        # An ambiguity flag changes whether the finished query needs adjudication.
        query_settle(query_id=assignment.query_id)
    return annotation


@transaction.atomic
def guideline_publish(*, project: Project, markdown: str, by: AbstractBaseUser) -> Guideline:
    """A new version of the project's guidelines; earlier versions stay for old judgments."""
    if not markdown.strip():
        raise ValueError(gettext("the guidelines are empty"))
    # Lock the project row so that two leads publishing at once get distinct versions.
    Project.objects.select_for_update().filter(pk=project.pk).first()
    last = latest_guideline_version(project.pk) or 0
    return Guideline.objects.create(
        project=project, version=last + 1, markdown=markdown, created_by=by
    )


# The rules that settle a query's grades (goldsmith.agreement): the provenances a final grade
# made from simulated grades had before it was marked `simulated`.
_BY_RULE = (Provenance.UNANIMOUS, Provenance.MAJORITY, Provenance.TIE_LOWER, Provenance.TIE_HIGHER)


@transaction.atomic
def resolutions_mark_simulated(*, project: Project) -> int:
    """Mark `simulated` every final grade of the project that a rule settled from simulated
    grades (`Judgment.simulated`), so that versions, exports, the dashboard and run reports
    count them apart from people's grades; returns how many. A lead's grade and a machine
    judge's keep theirs. Meant for approved queries (the demo approves what it simulates):
    a query settled again later gets its rule's provenance back."""
    return (
        Resolution.objects.filter(
            candidate__query__project=project,
            provenance__in=_BY_RULE,
            candidate__judgments__simulated=True,
        )
        .distinct()
        .update(provenance=Provenance.SIMULATED)
    )
