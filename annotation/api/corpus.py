"""Corpus imports and full-text search under /api/v1/: one view per operation, thin.

An upload is stored temporarily and imported by a Celery task; poll the import for progress.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.i18n import localize
from annotation.models import CorpusImport
from annotation.permissions import Action, project_access
from annotation.selectors.corpus import chunk_search, corpus_figures, corpus_imports
from annotation.services.corpus import changed_text_warning, corpus_upload_accept
from goldsmith.intake.readers import ReadError


class CorpusImportOutput(serializers.ModelSerializer):
    progress = serializers.FloatField(read_only=True)
    warning = serializers.SerializerMethodField(
        help_text=gettext_lazy(
            "what the import says about chunks whose text it changed ('' when none)"
        )
    )

    def get_warning(self, record: CorpusImport) -> str:
        return changed_text_warning(record)

    class Meta:
        model = CorpusImport
        fields = [
            "id",
            "filename",
            "sha256",
            "status",
            "phase",
            "mode",
            "progress",
            "bytes_total",
            "bytes_read",
            "records",
            "documents_created",
            "chunks_created",
            "chunks_unchanged",
            "chunks_changed",
            "chunks_removed",
            "chunks_restored",
            "changed_chunk_ids",
            "judged_chunks_changed",
            "warning",
            "tokenizer_detected",
            "chunk_size",
            "overlap",
            "error",
            "created_at",
            "finished_at",
        ]


class CorpusImportUploadInput(serializers.Serializer):
    file = serializers.FileField(
        help_text=gettext_lazy("JSONL or CSV of chunks or of whole documents")
    )
    chunk_size = serializers.IntegerField(default=1000, min_value=50, max_value=100_000)
    overlap = serializers.IntegerField(default=100, min_value=0, max_value=50_000)


class CorpusImportListApi(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(responses=CorpusImportOutput(many=True), summary="Corpus imports (lead)")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = project_access(user=request.user, project_id=project_id, action=Action.LEAD)
        return Response(CorpusImportOutput(corpus_imports(project=project)[:100], many=True).data)

    @extend_schema(
        request={"multipart/form-data": CorpusImportUploadInput},
        responses={202: CorpusImportOutput},
        summary="Upload a corpus file; it is imported in the background (lead)",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = project_access(user=request.user, project_id=project_id, action=Action.LEAD)
        data = CorpusImportUploadInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            record = corpus_upload_accept(
                project=project,
                upload=data.validated_data["file"],
                created_by=request.user,
                chunk_size=data.validated_data["chunk_size"],
                overlap=data.validated_data["overlap"],
            )
        except (ReadError, ValueError) as error:
            raise serializers.ValidationError({"file": [localize(error)]}) from None
        return Response(CorpusImportOutput(record).data, status=status.HTTP_202_ACCEPTED)


class CorpusImportDetailApi(APIView):
    @extend_schema(responses=CorpusImportOutput, summary="One corpus import: progress, report")
    def get(self, request: Request, project_id: int, import_id: int) -> Response:
        project, _ = project_access(user=request.user, project_id=project_id, action=Action.LEAD)
        record = get_object_or_404(CorpusImport, pk=import_id, project=project)
        return Response(CorpusImportOutput(record).data)


class CorpusFiguresOutput(serializers.Serializer):
    documents = serializers.IntegerField()
    chunks = serializers.IntegerField()
    removed = serializers.IntegerField()
    changed = serializers.IntegerField()


class CorpusFiguresApi(APIView):
    @extend_schema(responses=CorpusFiguresOutput, summary="Corpus size, changed and removed")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = project_access(user=request.user, project_id=project_id, action=Action.VIEW)
        return Response(corpus_figures(project=project))


class CorpusSearchHitOutput(serializers.Serializer):
    chunk_id = serializers.CharField()
    doc_id = serializers.CharField(source="document.doc_id")
    title = serializers.CharField(source="document.title")
    position = serializers.IntegerField()
    start = serializers.IntegerField(allow_null=True)
    end = serializers.IntegerField(allow_null=True)
    text = serializers.CharField()
    text_changed = serializers.BooleanField()


class CorpusFullTextSearchApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("q", str, description="words to look for", required=True),
            OpenApiParameter("limit", int, description="at most this many (≤ 100)"),
        ],
        responses=CorpusSearchHitOutput(many=True),
        summary="Full-text search over the corpus",
    )
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = project_access(user=request.user, project_id=project_id, action=Action.VIEW)
        try:
            limit = max(1, min(int(request.query_params.get("limit", 20)), 100))
        except ValueError:
            raise serializers.ValidationError({"limit": [gettext("must be an integer")]}) from None
        hits = chunk_search(project=project, text=request.query_params.get("q", ""), limit=limit)
        return Response(CorpusSearchHitOutput(hits, many=True).data)


urlpatterns = [
    path("projects/<int:project_id>/corpus/", CorpusFiguresApi.as_view(), name="api-corpus"),
    path(
        "projects/<int:project_id>/corpus/imports/",
        CorpusImportListApi.as_view(),
        name="api-corpus-import-list",
    ),
    path(
        "projects/<int:project_id>/corpus/imports/<int:import_id>/",
        CorpusImportDetailApi.as_view(),
        name="api-corpus-import-detail",
    ),
    path(
        "projects/<int:project_id>/corpus/search/",
        CorpusFullTextSearchApi.as_view(),
        name="api-corpus-fulltext",
    ),
]
