"""Machine judges under /api/v1/projects/ID/judges/: register one, upload its grades, run it
(a Celery job, polled for progress), read its agreement with the people, let it fill gaps.
Leads only: a judge's agreement is computed from the annotators' grades. An auth header value
can be written, never read."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.translation import gettext_lazy, pgettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.models import MachineJudge, MachineJudgeKind
from annotation.permissions import Action, request_access
from annotation.selectors.machine import SCOPES, judge_agreement, judges_of
from annotation.services.machine import (
    JudgeInvalid,
    machine_grades_fill_gaps,
    machine_grades_import,
)
from annotation.services.uploads import UploadRefused
from evaluation.api.endpoints import REFUSED, AuthHeaderInput, endpoint_saved
from evaluation.api.shapes import output_of, refusal, validated
from evaluation.models import JudgeEndpoint, JudgingJob
from evaluation.services.judges import (
    judge_register,
    judging_job_cancel,
    judging_job_create,
)
from sitewide.text_input import JSONParser


class JudgeOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=MachineJudgeKind.choices)
    config = serializers.JSONField(
        allow_null=True, help_text=gettext_lazy("an HTTP judge's settings")
    )
    auth_header_name = serializers.CharField()
    has_auth_header = serializers.BooleanField()
    graded = serializers.IntegerField(help_text=gettext_lazy("candidates this judge has graded"))
    created_at = serializers.DateTimeField()


class JudgeInput(AuthHeaderInput):
    name = serializers.CharField(max_length=120)
    kind = serializers.ChoiceField(choices=MachineJudgeKind.choices)
    config = serializers.DictField(
        required=False,
        help_text=gettext_lazy(
            "HTTP judges: url, method, body_template ({query}, {query_id}, {chunk}, "
            "{chunk_id}), grade_path, reason_path, timeout, max_concurrency, retries, backoff, "
            "batch_size, headers"
        ),
    )


def judge_output(judge: MachineJudge) -> dict[str, Any]:
    """A judge as the API shows it: never its auth header's value."""
    endpoint = JudgeEndpoint.objects.filter(judge=judge).first()
    return output_of(
        JudgeOutput,
        judge,
        id=judge.pk,
        config=endpoint.config if endpoint else None,
        auth_header_name=endpoint.auth_header_name if endpoint else "",
        has_auth_header=endpoint.has_auth_header if endpoint else False,
        graded=judge.grades.count(),
    )


def _judge(project: Any, judge_id: int) -> MachineJudge:
    return get_object_or_404(MachineJudge, project=project, pk=judge_id)


class JudgeListApi(APIView):
    parser_classes = [JSONParser]

    @extend_schema(responses=JudgeOutput(many=True), summary="Machine judges")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        return Response([judge_output(j) for j in judges_of(project=project)])

    @extend_schema(
        request=JudgeInput,
        responses={201: JudgeOutput, 400: REFUSED},
        summary="Register a machine judge",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        judge = endpoint_saved(
            judge_register, JudgeInput, request, project=project, by=request.user
        )
        return Response(judge_output(judge), status=status.HTTP_201_CREATED)


class JudgeDetailApi(APIView):
    @extend_schema(responses=JudgeOutput, summary="One machine judge")
    def get(self, request: Request, project_id: int, judge_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        return Response(judge_output(_judge(project, judge_id)))


class JudgeGradesInput(serializers.Serializer):
    file = serializers.FileField(
        help_text=gettext_lazy(
            "JSONL or CSV: query_id (or query), chunk_id, grade (0, 1, 2), reason"
        )
    )


class JudgeGradesOutput(serializers.Serializer):
    stored = serializers.IntegerField()


class JudgeGradesApi(APIView):
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={"multipart/form-data": JudgeGradesInput},
        responses={201: JudgeGradesOutput},
        summary="Upload a file judge's grades (all or nothing)",
    )
    def post(self, request: Request, project_id: int, judge_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        judge = _judge(project, judge_id)
        file = validated(JudgeGradesInput, request)["file"]
        try:
            stored = machine_grades_import(judge=judge, source=file)
        except (JudgeInvalid, UploadRefused) as error:
            raise refusal(error) from None
        return Response({"stored": stored}, status=status.HTTP_201_CREATED)


class JudgingJobOutput(serializers.Serializer):
    id = serializers.IntegerField()
    judge = serializers.IntegerField()
    scope = serializers.ChoiceField(choices=list(SCOPES))
    state = serializers.CharField()
    total = serializers.IntegerField()
    done = serializers.IntegerField()
    failed = serializers.IntegerField()
    progress = serializers.FloatField()
    error = serializers.CharField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


def job_output(job: JudgingJob) -> dict[str, Any]:
    progress = job.done / job.total if job.total else (1.0 if job.finished else 0.0)
    return output_of(JudgingJobOutput, job, id=job.pk, judge=job.judge_id, progress=progress)


class JudgingJobInput(serializers.Serializer):
    scope = serializers.ChoiceField(
        choices=list(SCOPES),
        default="all",
        help_text=gettext_lazy(
            "all candidates, new (not graded by this judge), or unjudged (by no person)"
        ),
    )


class JudgingJobListApi(APIView):
    parser_classes = [JSONParser]

    @extend_schema(responses=JudgingJobOutput(many=True), summary="A judge's judging jobs")
    def get(self, request: Request, project_id: int, judge_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        judge = _judge(project, judge_id)
        return Response([job_output(j) for j in JudgingJob.objects.filter(judge=judge)[:50]])

    @extend_schema(
        request=JudgingJobInput,
        responses={201: JudgingJobOutput},
        summary="Have the judge grade candidates (a background job)",
    )
    def post(self, request: Request, project_id: int, judge_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        judge = _judge(project, judge_id)
        scope = validated(JudgingJobInput, request)["scope"]
        try:
            job = judging_job_create(judge=judge, scope=scope, by=request.user)
        except JudgeInvalid as error:
            raise refusal(error) from None
        return Response(job_output(job), status=status.HTTP_201_CREATED)


class JudgingJobDetailApi(APIView):
    @extend_schema(responses=JudgingJobOutput, summary="A judging job's progress")
    def get(self, request: Request, project_id: int, judge_id: int, job_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        job = get_object_or_404(JudgingJob, judge=_judge(project, judge_id), pk=job_id)
        return Response(job_output(job))


class JudgingJobCancelApi(APIView):
    @extend_schema(request=None, responses=JudgingJobOutput, summary="Cancel a judging job")
    def post(self, request: Request, project_id: int, judge_id: int, job_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        job = get_object_or_404(JudgingJob, judge=_judge(project, judge_id), pk=job_id)
        judging_job_cancel(job=job)
        job.refresh_from_db()
        return Response(job_output(job))


class GapFillOutput(serializers.Serializer):
    filled = serializers.IntegerField(
        help_text=gettext_lazy("final grades set from the machine's grades")
    )
    queries_resolved = serializers.IntegerField(
        help_text=gettext_lazy(
            "queries nobody is assigned to that are now resolved (ready to approve)"
        )
    )
    skipped = serializers.IntegerField(
        help_text=gettext_lazy(
            "machine grades left out: a person graded the candidate, it has a final "
            "grade, or its query is approved or flagged"
        )
    )


class GapFillApi(APIView):
    @extend_schema(
        request=None,
        responses=GapFillOutput,
        summary="Let the judge's grades fill candidates no person graded (provenance machine)",
    )
    def post(self, request: Request, project_id: int, judge_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        judge = _judge(project, judge_id)
        result = machine_grades_fill_gaps(project=project, judge=judge, by=request.user)
        return Response(vars(result))


class KappaOutput(serializers.Serializer):
    kappa = serializers.FloatField(allow_null=True, help_text=gettext_lazy("null: undefined"))
    low = serializers.FloatField(
        allow_null=True, help_text=gettext_lazy("95% bootstrap interval over queries")
    )
    high = serializers.FloatField(allow_null=True)
    raw_agreement = serializers.FloatField(allow_null=True)
    n_items = serializers.IntegerField()
    n_groups = serializers.IntegerField(help_text=pgettext_lazy("a count of queries", "queries"))


class AgainstOutput(serializers.Serializer):
    who = serializers.CharField(help_text=gettext_lazy("an annotator's name, or 'final grades'"))
    kind = serializers.CharField(help_text=gettext_lazy("'annotator' or 'final'"))
    overall = KappaOutput()
    categories = serializers.DictField(
        child=KappaOutput(), help_text=gettext_lazy("per query category")
    )


class JudgeAgreementOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    kind_label = serializers.CharField()
    graded = serializers.IntegerField()
    against = AgainstOutput(many=True)


class AgreementOutput(serializers.Serializer):
    judges = JudgeAgreementOutput(many=True)
    people = AgainstOutput(
        many=True, help_text=gettext_lazy("each annotator against the final grades")
    )


class JudgeAgreementApi(APIView):
    @extend_schema(
        responses=AgreementOutput,
        summary="Cohen's kappa of each judge against each annotator and the final grades",
    )
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        return Response(judge_agreement(project=project))


P = "projects/<int:project_id>/judges/"
urlpatterns = [
    path(P, JudgeListApi.as_view(), name="api-judge-list"),
    path(f"{P}agreement/", JudgeAgreementApi.as_view(), name="api-judge-agreement"),
    path(f"{P}<int:judge_id>/", JudgeDetailApi.as_view(), name="api-judge-detail"),
    path(f"{P}<int:judge_id>/grades/", JudgeGradesApi.as_view(), name="api-judge-grades"),
    path(f"{P}<int:judge_id>/jobs/", JudgingJobListApi.as_view(), name="api-judge-jobs"),
    path(
        f"{P}<int:judge_id>/jobs/<int:job_id>/",
        JudgingJobDetailApi.as_view(),
        name="api-judge-job-detail",
    ),
    path(
        f"{P}<int:judge_id>/jobs/<int:job_id>/cancel/",
        JudgingJobCancelApi.as_view(),
        name="api-judge-job-cancel",
    ),
    path(f"{P}<int:judge_id>/fill-gaps/", GapFillApi.as_view(), name="api-judge-fill-gaps"),
]
