"""Stopping a query when the estimate allows it, and the lead's switch that allows it
(goldsmith.judging_order, "Knowing when to stop"; annotation/models/stopping.py)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from annotation.models import Assignment, Candidate, Judgment, Project
from annotation.models.judging import AssignmentStatus
from annotation.models.stopping import JudgingStop, StoppedCandidate
from annotation.selectors.judging_order import stop_estimate_for
from annotation.services.adjudication import query_settle
from annotation.services.judging import check_open


class StopRefused(Exception):
    """The project does not allow stopping, or the estimate does not allow it yet."""


def project_stopping_set(*, project: Project, on: bool) -> Project:
    """Allow annotators to finish a query once the estimate says ≥ 95 % of its relevant
    candidates are found, or stop allowing it (stops already made stay as they are)."""
    Project.objects.filter(pk=project.pk).update(stopping_allowed=on)
    project.stopping_allowed = on
    return project


@transaction.atomic
def assignment_stop(*, assignment: Assignment) -> JudgingStop:
    """Finish the assignment's query with the candidates its annotator has not graded left
    *not judged (stopped)* (never 0). Refuses (:class:`StopRefused`) when the project does not
    allow stopping or the estimate does not say the target is reached (random checks
    included); JudgingClosed once the query was adjudicated or approved. Stopping twice
    leaves what the first stop recorded, plus any candidate added since."""
    assignment = (
        Assignment.objects.select_for_update().select_related("query").get(pk=assignment.pk)
    )
    check_open(assignment.query_id)
    project = Project.objects.get(pk=assignment.query.project_id)
    if not project.stopping_allowed:
        raise StopRefused(gettext("this project does not allow stopping before every candidate"))
    estimate = stop_estimate_for(query=assignment.query, annotator=assignment.annotator)
    if not estimate.may_stop:
        if estimate.draw:
            raise StopRefused(
                gettext("grade the %(n)d candidates drawn at random first")
                % {"n": len(estimate.draw)}
            )
        raise StopRefused(
            gettext("the estimate does not yet say %(target)s of the relevant candidates are found")
            % {"target": f"{estimate.target:.0%}"}
        )
    stop, _ = JudgingStop.objects.update_or_create(
        assignment=assignment,
        defaults={
            "found": estimate.found,
            "judged": estimate.judged,
            "left": estimate.unjudged,
            "expected_remaining": estimate.expected_remaining,
            "estimated_recall": estimate.estimated_recall,
            "checked": estimate.checked,
            "checked_relevant": estimate.checked_relevant,
            "target": estimate.target,
            "p_target": estimate.p_target,
            "confidence": estimate.confidence,
            "checks": estimate.checks,
        },
    )
    graded = Judgment.objects.filter(
        candidate__query_id=assignment.query_id, annotator_id=assignment.annotator_id
    ).values("candidate_id")
    left = Candidate.objects.filter(query_id=assignment.query_id).exclude(pk__in=graded)
    StoppedCandidate.objects.bulk_create(
        [StoppedCandidate(stop=stop, candidate_id=pk) for pk in left.values_list("id", flat=True)],
        ignore_conflicts=True,
    )
    Assignment.objects.filter(pk=assignment.pk).update(
        status=AssignmentStatus.DONE, done_at=timezone.now()
    )
    query_settle(query_id=assignment.query_id)
    return stop
