"""Query-log imports under /api/v1/ (lead only): upload, progress and report, queries."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.shapes import PAGE_PARAMETERS, invalid, page_of, validated
from annotation.models import LogQuery, QueryLog
from annotation.permissions import Action, request_access
from annotation.selectors.querylogs import query_logs
from annotation.services.imports import upload_accept
from annotation.services.querylogs import query_log_create
from goldsmith.intake.readers import ReadError


class QueryLogOutput(serializers.ModelSerializer):
    progress = serializers.FloatField(read_only=True)

    class Meta:
        model = QueryLog
        fields = [
            "id",
            "filename",
            "sha256",
            "status",
            "phase",
            "progress",
            "bytes_total",
            "bytes_read",
            "lines",
            "records",
            "volume",
            "distinct",
            "near_duplicate_threshold",
            "clusters",
            "scrubbed",
            "report",
            "tokenizer_detected",
            "error",
            "created_at",
            "finished_at",
        ]


class QueryLogUploadInput(serializers.Serializer):
    file = serializers.FileField(
        help_text=gettext_lazy("JSONL, CSV (a 'query' column) or plain text")
    )
    near_duplicate_threshold = serializers.FloatField(default=0.85, min_value=0.01, max_value=1)
    clusters = serializers.IntegerField(default=12, min_value=1, max_value=200)


class QueryLogListApi(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(responses=QueryLogOutput(many=True), summary="Query logs (lead)")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        return Response(QueryLogOutput(query_logs(project=project)[:100], many=True).data)

    @extend_schema(
        request={"multipart/form-data": QueryLogUploadInput},
        responses={202: QueryLogOutput},
        summary="Upload a query log; it is scrubbed and imported in the background (lead)",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        data = validated(QueryLogUploadInput, request.data)
        try:
            log = upload_accept(
                query_log_create,
                project=project,
                upload=data["file"],
                created_by=request.user,
                near_duplicate_threshold=data["near_duplicate_threshold"],
                clusters=data["clusters"],
            )
        except (ReadError, ValueError) as error:
            raise invalid("file", error) from None
        return Response(QueryLogOutput(log).data, status=status.HTTP_202_ACCEPTED)


class QueryLogDetailApi(APIView):
    @extend_schema(responses=QueryLogOutput, summary="One query log: progress and report")
    def get(self, request: Request, project_id: int, log_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        log = get_object_or_404(QueryLog, pk=log_id, project=project)
        return Response(QueryLogOutput(log).data)


class LogQueryOutput(serializers.ModelSerializer):
    class Meta:
        model = LogQuery
        fields = [
            "id",
            "text",
            "normalized",
            "count",
            "first_seen",
            "last_seen",
            "category",
            "feedback",
            "negative",
            "users",
            "sessions",
            "rank",
            "band",
            "cluster",
            "near_group",
            "is_representative",
            "group_volume",
            "group_size",
        ]


class LogQueryListApi(APIView):
    @extend_schema(
        responses=page_of(LogQueryOutput),
        parameters=PAGE_PARAMETERS,
        summary="A log's distinct (scrubbed) queries, most frequent first (lead)",
    )
    def get(self, request: Request, project_id: int, log_id: int) -> Response:
        from rest_framework.pagination import LimitOffsetPagination

        project, _ = request_access(request, project_id, Action.LEAD)
        log = get_object_or_404(QueryLog, pk=log_id, project=project)
        paginator = LimitOffsetPagination()
        page = paginator.paginate_queryset(
            LogQuery.objects.filter(log=log).order_by("rank"), request, view=self
        )
        return paginator.get_paginated_response(LogQueryOutput(page, many=True).data)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}querylogs/", QueryLogListApi.as_view(), name="api-querylog-list"),
    path(f"{P}querylogs/<int:log_id>/", QueryLogDetailApi.as_view(), name="api-querylog-detail"),
    path(
        f"{P}querylogs/<int:log_id>/queries/",
        LogQueryListApi.as_view(),
        name="api-querylog-queries",
    ),
]
