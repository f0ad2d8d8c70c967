"""Samples under /api/v1/ (lead only): draw (or preview with dry_run), list, provenance."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.shapes import STORED_INT_MAX, invalid, validated
from annotation.models import ImportStatus, QueryLog, Sample
from annotation.permissions import Action, request_access
from annotation.selectors.querylogs import samples
from annotation.services.sampling import BY_FIELDS, SamplingError, sample_create, sample_draw
from goldsmith.intake import sampling


class SampleCreateInput(serializers.Serializer):
    log = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=STORED_INT_MAX,
        help_text=gettext_lazy("log id (default: the latest)"),
    )
    n = serializers.IntegerField(min_value=1, max_value=100_000)
    strategy = serializers.ChoiceField(choices=sampling.STRATEGIES)
    by = serializers.ChoiceField(choices=["", *BY_FIELDS], default="", allow_blank=True)
    allocation = serializers.ChoiceField(
        choices=["", *sampling.ALLOCATIONS], default="", allow_blank=True
    )
    seed = serializers.IntegerField(min_value=0, max_value=sampling.SEED_MAX)
    dry_run = serializers.BooleanField(default=False)


class SampleStratumOutput(serializers.Serializer):
    name = serializers.CharField()
    size = serializers.IntegerField()
    volume = serializers.IntegerField()
    share = serializers.FloatField()
    allocated = serializers.IntegerField()
    weight = serializers.FloatField()


class SampleQueryOutput(serializers.Serializer):
    text = serializers.CharField()
    category = serializers.CharField()
    count = serializers.IntegerField()
    stratum = serializers.CharField()
    weight = serializers.FloatField()


class SampleOutput(serializers.ModelSerializer):
    strata = SampleStratumOutput(many=True)

    class Meta:
        model = Sample
        fields = [
            "id",
            "log",
            "log_sha256",
            "log_filename",
            "strategy",
            "by",
            "allocation",
            "seed",
            "n_requested",
            "n_chosen",
            "pool_size",
            "excluded",
            "params",
            "strata",
            "created_at",
        ]


class SampleDrawOutput(serializers.Serializer):
    dry_run = serializers.BooleanField()
    sample = SampleOutput(allow_null=True)
    pool_size = serializers.IntegerField()
    excluded = serializers.IntegerField()
    strata = SampleStratumOutput(many=True)
    queries = SampleQueryOutput(many=True, source="rows")


class SampleListApi(APIView):
    @extend_schema(responses=SampleOutput(many=True), summary="Samples drawn in the project")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        return Response(SampleOutput(samples(project=project)[:100], many=True).data)

    @extend_schema(
        request=SampleCreateInput,
        responses={200: SampleDrawOutput, 201: SampleDrawOutput},
        summary="Draw a reproducible sample of queries (dry_run: preview, store nothing)",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        params = dict(validated(SampleCreateInput, request.data))
        dry_run = params.pop("dry_run")
        log_id = params.pop("log", None)
        logs = QueryLog.objects.filter(project=project, status=ImportStatus.DONE)
        log = logs.filter(pk=log_id).first() if log_id else logs.order_by("-id").first()
        if log is None:
            raise invalid("log", gettext("no imported query log"))
        try:
            if dry_run:
                outcome = sample_draw(project=project, log=log, **params)
            else:
                outcome = sample_create(project=project, log=log, created_by=request.user, **params)
        except SamplingError as error:
            raise invalid("detail", error) from None
        code = status.HTTP_200_OK if dry_run else status.HTTP_201_CREATED
        return Response(SampleDrawOutput({"dry_run": dry_run, **vars(outcome)}).data, status=code)


class SampledQueryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    text = serializers.CharField()
    category = serializers.CharField()
    stratum = serializers.CharField()
    weight = serializers.FloatField()


class SampleDetailOutput(SampleOutput):
    queries = SampledQueryOutput(many=True, source="queries.all")

    class Meta(SampleOutput.Meta):
        fields = [*SampleOutput.Meta.fields, "queries"]


class SampleDetailApi(APIView):
    @extend_schema(responses=SampleDetailOutput, summary="A sample's provenance and its queries")
    def get(self, request: Request, project_id: int, sample_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        sample = get_object_or_404(Sample, pk=sample_id, project=project)
        return Response(SampleDetailOutput(sample).data)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}samples/", SampleListApi.as_view(), name="api-sample-list"),
    path(f"{P}samples/<int:sample_id>/", SampleDetailApi.as_view(), name="api-sample-detail"),
]
