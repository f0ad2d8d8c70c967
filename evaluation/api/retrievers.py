"""Retrievers under /api/v1/: list, add, change, upload a run file. An auth header value can
be written, never read."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.permissions import Action, request_access
from annotation.services.uploads import UploadRefused
from evaluation.api.endpoints import (
    REFUSED,
    AuthHeaderInput,
    SettingsInput,
    endpoint_saved,
    setting_field,
)
from evaluation.api.shapes import output_of, refusal, validated
from evaluation.models import Answerer, Retriever, RetrieverKind, Schedule
from evaluation.selectors.retrievers import baseline_run_id, retrievers_of
from evaluation.services.retrievers import RetrieverInvalid, retriever_save
from goldsmith import formats
from goldsmith.retrievers.http import HTTP_SETTINGS
from sitewide.text_input import JSONParser


class RetrieverOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    config = serializers.JSONField()
    auth_header_name = serializers.CharField()
    has_auth_header = serializers.BooleanField()
    auth_header_source = serializers.CharField(allow_null=True)
    auth_header_env = serializers.CharField()
    schedule = serializers.CharField()
    answerer = serializers.CharField()
    baseline_run = serializers.IntegerField(allow_null=True)
    run_file = serializers.JSONField(allow_null=True)
    created_at = serializers.DateTimeField()


def retriever_output(retriever: Retriever) -> dict[str, Any]:
    """Everything about a retriever except its auth header's value (never returned)."""
    run_file = retriever.run_files.first() if retriever.kind == RetrieverKind.RUNFILE else None
    return output_of(
        RetrieverOutput,
        retriever,
        id=retriever.pk,
        baseline_run=baseline_run_id(retriever=retriever),
        run_file=(
            {
                "filename": run_file.filename,
                "sha256": run_file.sha256,
                "queries": run_file.query_count,
                "rows": run_file.row_count,
                "repeated_ids": run_file.repeated_ids,
                "first_repeat": run_file.first_repeat,
            }
            if run_file
            else None
        ),
    )


class HttpConfigInput(SettingsInput):
    """An HTTP retriever's settings, made from `HTTP_SETTINGS`; an unknown one is refused."""

    unknown = gettext_lazy("unknown HTTP setting %(name)r")

    def get_fields(self) -> dict[str, serializers.Field]:
        return {s.name: setting_field(s) for s in HTTP_SETTINGS}


def _answerer_field() -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=Answerer.choices,
        required=False,
        help_text=gettext_lazy(
            "'extractive': the extractive baseline answers the queries the retriever gives no "
            "response for"
        ),
    )


class RetrieverInput(AuthHeaderInput):
    name = serializers.CharField(max_length=120)
    kind = serializers.ChoiceField(choices=RetrieverKind.choices)
    config = HttpConfigInput(required=False, help_text=gettext_lazy("HTTP retrievers only"))
    schedule = serializers.ChoiceField(choices=Schedule.choices, required=False, default="")
    answerer = _answerer_field()


class RetrieverUpdateInput(AuthHeaderInput):
    config = HttpConfigInput(required=False, help_text=gettext_lazy("HTTP retrievers only"))
    schedule = serializers.ChoiceField(choices=Schedule.choices, required=False)
    answerer = _answerer_field()


class RetrieverListApi(APIView):
    parser_classes = [JSONParser]  # `config` is an object, which a form cannot carry

    @extend_schema(responses=RetrieverOutput(many=True), summary="Retrievers under test")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.VIEW)
        return Response([retriever_output(r) for r in retrievers_of(project=project)])

    @extend_schema(
        request=RetrieverInput,
        responses={201: RetrieverOutput, 400: REFUSED},
        summary="Add a retriever",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        retriever = endpoint_saved(
            retriever_save, RetrieverInput, request, project=project, by=request.user
        )
        return Response(retriever_output(retriever), status=status.HTTP_201_CREATED)


class RetrieverDetailApi(APIView):
    parser_classes = [JSONParser]

    @extend_schema(responses=RetrieverOutput, summary="One retriever")
    def get(self, request: Request, project_id: int, retriever_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.VIEW)
        retriever = get_object_or_404(Retriever, project=project, pk=retriever_id)
        return Response(retriever_output(retriever))

    @extend_schema(
        request=RetrieverUpdateInput,
        responses={200: RetrieverOutput, 400: REFUSED},
        summary="Change a retriever",
    )
    def patch(self, request: Request, project_id: int, retriever_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        retriever = get_object_or_404(Retriever, project=project, pk=retriever_id)
        retriever = endpoint_saved(
            retriever_save, RetrieverUpdateInput, request, project=project, retriever=retriever
        )
        return Response(retriever_output(retriever))


class RunFileInput(serializers.Serializer):
    file = serializers.FileField()


class RunFileApi(APIView):
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={"multipart/form-data": RunFileInput},
        responses={201: RetrieverOutput},
        summary="Upload the run of a run-file retriever (TREC or JSONL)",
    )
    def post(self, request: Request, project_id: int, retriever_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        retriever = get_object_or_404(Retriever, project=project, pk=retriever_id)
        file = validated(RunFileInput, request)["file"]
        try:
            retriever_save(project=project, retriever=retriever, run_file=file)
        except (formats.FormatError, RetrieverInvalid, UploadRefused) as error:
            raise refusal(error) from None
        return Response(retriever_output(retriever), status=status.HTTP_201_CREATED)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}retrievers/", RetrieverListApi.as_view(), name="api-retriever-list"),
    path(
        f"{P}retrievers/<int:retriever_id>/",
        RetrieverDetailApi.as_view(),
        name="api-retriever-detail",
    ),
    path(
        f"{P}retrievers/<int:retriever_id>/run-file/",
        RunFileApi.as_view(),
        name="api-retriever-run-file",
    ),
]
