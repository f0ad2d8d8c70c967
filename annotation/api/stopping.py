"""Knowing when to stop, through the API: an annotator's stop estimate of a query, the stop
itself, and the lead's switch that allows stopping (goldsmith.judging_order)."""

from __future__ import annotations

from typing import Any

from django.urls import path
from django.utils.translation import gettext, gettext_lazy, ngettext
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.judging import conflict, own_assignment
from annotation.api.projects import RequiredBooleanField
from annotation.api.shapes import RefusalOutput
from annotation.models import Assignment, Project
from annotation.models.stopping import JudgingStop
from annotation.permissions import Action, request_access
from annotation.selectors.judging_order import stop_estimate_for, stopped_left
from annotation.services.judging import JudgingClosed
from annotation.services.stopping import StopRefused, assignment_stop, project_stopping_set
from goldsmith.judging_order import StopEstimate


def method_words(estimate: StopEstimate) -> str:
    """How the estimate is made and which figure a stop rests on, in plain words (the page and
    the API say the same)."""
    said = gettext(
        "Estimated from the sources' yield so far: a model of how often each retriever's ranks "
        "held relevant chunks in resolved queries, adapted to your own grades on this query "
        "(never to anyone else's). You may finish the query when the model puts at least "
        "%(confidence)s probability on %(target)s of the relevant candidates being found."
    ) % {"confidence": f"{estimate.confidence:.0%}", "target": f"{estimate.target:.0%}"}
    if not estimate.checks:
        check = gettext(
            "The stop rests on the model alone: no candidate is drawn at random to check it."
        )
    else:
        check = gettext(
            "It is checked by %(checks)d candidates drawn at random from the rest: the rest "
            "times the share of drawn candidates that were relevant is an unbiased estimate, "
            "and the random check must agree."
        ) % {"checks": estimate.checks}
    return f"{said} {check}"


def rested_on_words(stop: JudgingStop) -> str:
    """What a recorded stop rested on, in plain words: the figures as they were when the
    annotator stopped (a stop taken before they were recorded says so, never today's rule)."""
    if stop.p_target is None or stop.confidence is None or stop.checks is None:
        return gettext(
            "What this stop rested on was not recorded: it was taken before stops recorded the "
            "model's probability and the rule's confidence."
        )
    said = gettext(
        "The stop rested on the model's %(p)s probability that %(target)s of the relevant "
        "candidates were found; the rule then asked for at least %(confidence)s."
    ) % {
        "p": f"{stop.p_target:.0%}",
        "target": f"{stop.target:.0%}",
        "confidence": f"{stop.confidence:.0%}",
    }
    if not stop.checks:
        check = gettext("No candidate was drawn at random to check it.")
    else:
        check = ngettext(
            "It was checked by %(checks)d candidate drawn at random (%(relevant)d relevant).",
            "It was checked by %(checks)d candidates drawn at random (%(relevant)d relevant).",
            stop.checks,
        ) % {"checks": stop.checks, "relevant": stop.checked_relevant}
    return f"{said} {check}"


def stop_payload(stop: JudgingStop | None) -> dict[str, Any] | None:
    """A recorded stop as the API shows it: null figures are "not recorded"."""
    if stop is None:
        return None
    return {
        "found": stop.found,
        "judged": stop.judged,
        "left": stop.left,
        "expected_remaining": round(stop.expected_remaining, 2),
        "estimated_recall": None
        if stop.estimated_recall is None
        else round(stop.estimated_recall, 4),
        "target": stop.target,
        "p_target": None if stop.p_target is None else round(stop.p_target, 4),
        "confidence": stop.confidence,
        "checks": stop.checks,
        "checked": stop.checked,
        "checked_relevant": stop.checked_relevant,
        "recorded": stop.p_target is not None,
        "rested_on": rested_on_words(stop),
        "stopped_at": stop.created_at,
    }


def estimate_payload(assignment: Assignment, project: Project) -> dict[str, Any]:
    """The stop estimate of the caller's assignment, as the page and the API show it."""
    estimate = stop_estimate_for(query=assignment.query, annotator=assignment.annotator)
    stop = JudgingStop.objects.filter(assignment=assignment).first()
    left = stopped_left(assignment_ids=[assignment.pk]).get(assignment.pk, 0) if stop else 0
    return {
        "found": estimate.found,
        "judged": estimate.judged,
        "unjudged": estimate.unjudged,
        "expected_remaining": round(estimate.expected_remaining, 2),
        "estimated_recall": None
        if estimate.estimated_recall is None
        else round(estimate.estimated_recall, 4),
        "target": estimate.target,
        "p_target": round(estimate.p_target, 4),
        "confidence": estimate.confidence,
        "checks": estimate.checks,
        "checked": estimate.checked,
        "checked_relevant": estimate.checked_relevant,
        "draw": [int(c) for c in estimate.draw],
        "may_stop": estimate.may_stop,
        "stopping_allowed": project.stopping_allowed,
        "stopped": left,
        "method": method_words(estimate),
        "summary": summary_words(estimate, allowed=project.stopping_allowed, stopped=left)
        + (f" {rested_on_words(stop)}" if stop and left else ""),
        "stop": stop_payload(stop),
    }


def summary_words(estimate: StopEstimate, *, allowed: bool, stopped: int) -> str:
    """Where the judging of the query stands, in one or two sentences."""
    if stopped:
        return ngettext(
            "You finished this query with %(n)d candidate not judged (stopped): it counts as "
            "unjudged, not as not relevant.",
            "You finished this query with %(n)d candidates not judged (stopped): they count as "
            "unjudged, not as not relevant.",
            stopped,
        ) % {"n": stopped}
    if not estimate.unjudged:
        return gettext("Every candidate is graded.")
    said = gettext(
        "About %(remaining)s relevant candidates are estimated to be among the %(unjudged)d "
        "not graded yet (%(found)d found so far)."
    ) % {
        "remaining": f"{estimate.expected_remaining:.1f}",
        "unjudged": estimate.unjudged,
        "found": estimate.found,
    }
    said += " " + gettext(
        "The model puts %(p)s probability on %(target)s of the relevant candidates being found "
        "(a stop needs %(confidence)s)."
    ) % {
        "p": f"{estimate.p_target:.0%}",
        "target": f"{estimate.target:.0%}",
        "confidence": f"{estimate.confidence:.0%}",
    }
    if estimate.draw:
        said += " " + gettext(
            "To check the estimate, grade the candidates marked “random check” next."
        )
    elif estimate.may_stop and allowed:
        said += " " + gettext("You may finish this query here.")
    elif estimate.may_stop:
        said += " " + gettext(
            "The estimate would allow finishing here, but this project asks for every candidate."
        )
    return said


class RecordedStopOutput(serializers.Serializer):
    found = serializers.IntegerField(help_text=gettext_lazy("Your relevant grades at the stop"))
    judged = serializers.IntegerField()
    left = serializers.IntegerField(
        help_text=gettext_lazy("Candidates the stop left not judged (stopped)")
    )
    expected_remaining = serializers.FloatField(
        help_text=gettext_lazy("Relevant candidates the estimate expected among those left")
    )
    estimated_recall = serializers.FloatField(allow_null=True)
    target = serializers.FloatField()
    p_target = serializers.FloatField(
        allow_null=True,
        help_text=gettext_lazy(
            "The model's probability, at the stop, that the target share of the relevant "
            "candidates was found: what the stop rested on (null: not recorded)"
        ),
    )
    confidence = serializers.FloatField(
        allow_null=True,
        help_text=gettext_lazy(
            "The probability the rule asked for at the stop (null: not recorded)"
        ),
    )
    checks = serializers.IntegerField(
        allow_null=True,
        help_text=gettext_lazy("Random checks the rule asked for at the stop (null: not recorded)"),
    )
    checked = serializers.IntegerField()
    checked_relevant = serializers.IntegerField()
    recorded = serializers.BooleanField(
        help_text=gettext_lazy("false: the stop was taken before what it rested on was recorded")
    )
    rested_on = serializers.CharField(help_text=gettext_lazy("What the stop rested on, in words"))
    stopped_at = serializers.DateTimeField()


class StopEstimateOutput(serializers.Serializer):
    found = serializers.IntegerField(help_text=gettext_lazy("Your relevant grades so far"))
    judged = serializers.IntegerField()
    unjudged = serializers.IntegerField()
    expected_remaining = serializers.FloatField(
        help_text=gettext_lazy("Relevant candidates the estimate expects among the unjudged")
    )
    estimated_recall = serializers.FloatField(allow_null=True)
    target = serializers.FloatField()
    p_target = serializers.FloatField(
        help_text=gettext_lazy(
            "The model's probability that the target share of the relevant candidates is found: "
            "what a stop rests on"
        )
    )
    confidence = serializers.FloatField(
        help_text=gettext_lazy("The probability a stop needs (p_target at least this)")
    )
    checks = serializers.IntegerField(
        help_text=gettext_lazy("Random checks the rule asks for (0: the model alone decides)")
    )
    checked = serializers.IntegerField(help_text=gettext_lazy("Random checks graded"))
    checked_relevant = serializers.IntegerField()
    draw = serializers.ListField(
        child=serializers.IntegerField(),
        help_text=gettext_lazy("Candidates drawn at random to grade next as the check"),
    )
    may_stop = serializers.BooleanField()
    stopping_allowed = serializers.BooleanField()
    stopped = serializers.IntegerField(
        help_text=gettext_lazy("Candidates your stop left not judged (stopped)")
    )
    stop = RecordedStopOutput(
        allow_null=True,
        help_text=gettext_lazy(
            "Your stop of this query as recorded when you took it (null: you have not stopped)"
        ),
    )
    method = serializers.CharField(help_text=gettext_lazy("How the estimate is made"))
    summary = serializers.CharField(help_text=gettext_lazy("Where the judging stands, in words"))


class StopEstimateApi(APIView):
    @extend_schema(
        responses={200: StopEstimateOutput},
        summary="The caller's stop estimate of a query of their queue",
    )
    def get(self, request: Request, project_id: int, query_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.ANNOTATE)
        assignment = own_assignment(request, project, query_id)
        return Response(StopEstimateOutput(estimate_payload(assignment, project)).data)

    @extend_schema(
        request=None,
        responses={200: StopEstimateOutput, 409: RefusalOutput},
        summary="Finish a query there: the candidates left are not judged (stopped), never 0",
    )
    def post(self, request: Request, project_id: int, query_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.ANNOTATE)
        assignment = own_assignment(request, project, query_id)
        try:
            assignment_stop(assignment=assignment)
        except (StopRefused, JudgingClosed) as error:
            return conflict(error)
        return Response(StopEstimateOutput(estimate_payload(assignment, project)).data)


class StoppingInput(serializers.Serializer):
    stopping_allowed = RequiredBooleanField(
        help_text=gettext_lazy(
            "true: an annotator may finish a query once the estimate says 95% of its relevant "
            "candidates are found; false: every candidate is graded"
        )
    )


class StoppingOutput(serializers.Serializer):
    stopping_allowed = serializers.BooleanField()


class ProjectStoppingApi(APIView):
    @extend_schema(
        request=StoppingInput,
        responses={
            200: StoppingOutput,
            403: OpenApiResponse(RefusalOutput, description="The caller is not a lead"),
        },
        summary="Allow or stop allowing annotators to stop when the estimate says so (lead)",
    )
    def put(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        data = StoppingInput(data=request.data)
        data.is_valid(raise_exception=True)
        project = project_stopping_set(project=project, on=data.validated_data["stopping_allowed"])
        return Response(
            StoppingOutput({"stopping_allowed": project.stopping_allowed}).data,
            status=status.HTTP_200_OK,
        )


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}stopping/", ProjectStoppingApi.as_view(), name="api-project-stopping"),
    path(f"{P}queries/<int:query_id>/stop/", StopEstimateApi.as_view(), name="api-query-stop"),
]
