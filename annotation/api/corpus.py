"""Corpus imports, corpus versions and full-text search under /api/v1/: one view per
operation, thin.

An upload is stored temporarily and imported by a Celery task; poll the import for progress.
``mode=add`` (the default) adds or updates chunks, ``mode=replace`` makes the file the whole
corpus; ``dry_run=true`` answers at once with the counts the import would make and stores
nothing.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.shapes import invalid, validated
from annotation.models import CorpusImport, CorpusVersion
from annotation.permissions import Action, request_access
from annotation.selectors.corpus import (
    chunk_search,
    corpus_figures,
    corpus_imports,
    corpus_version_diff,
    corpus_versions,
)
from annotation.services.corpus import (
    changed_text_warning,
    corpus_import_create,
    corpus_preview,
)
from annotation.services.imports import upload_accept
from annotation.services.uploads import upload_file, upload_name
from goldsmith.intake.readers import ReadError

UPDATE_MODES = ("add", "replace")


class CorpusImportOutput(serializers.ModelSerializer):
    progress = serializers.FloatField(read_only=True)
    warning = serializers.SerializerMethodField(
        help_text=gettext_lazy(
            "what the import says about chunks whose text it changed ('' when none)"
        )
    )

    mode = serializers.CharField(
        help_text=gettext_lazy("the kind of file: chunks, or documents the import chunked")
    )
    replace = serializers.BooleanField(
        help_text=gettext_lazy("true: a replace (the file was the whole corpus); false: add")
    )
    corpus_version = serializers.SerializerMethodField(
        help_text=gettext_lazy("the corpus version this import made (null: it changed nothing)")
    )

    def get_warning(self, record: CorpusImport) -> str:
        return changed_text_warning(record)

    def get_corpus_version(self, record: CorpusImport) -> int | None:
        version = getattr(record, "corpus_version", None)
        return version.number if version else None

    class Meta:
        model = CorpusImport
        fields = [
            "id",
            "filename",
            "sha256",
            "status",
            "phase",
            "mode",
            "replace",
            "corpus_version",
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
            "cited_by_frozen",
            "cited_by_open",
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
    mode = serializers.ChoiceField(
        choices=UPDATE_MODES,
        default="add",
        help_text=gettext_lazy(
            "add: add new chunk ids and update changed ones, retire nothing (default); "
            "replace: the file is the whole corpus, live chunks it lacks are retired"
        ),
    )
    dry_run = serializers.BooleanField(
        default=False,
        help_text=gettext_lazy("answer with the counts the import would make; store nothing"),
    )


class CorpusPreviewOutput(serializers.Serializer):
    dry_run = serializers.BooleanField(default=True)
    filename = serializers.CharField()
    mode = serializers.SerializerMethodField()
    file_kind = serializers.CharField(source="mode")
    records = serializers.IntegerField()
    documents_created = serializers.IntegerField()
    added = serializers.IntegerField()
    changed = serializers.IntegerField()
    retired = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    cited_by_frozen = serializers.IntegerField(
        help_text=gettext_lazy("changed or retired chunks that a frozen version cites")
    )
    cited_by_open = serializers.IntegerField(
        help_text=gettext_lazy("changed or retired chunks graded in queries not frozen yet")
    )
    live_version = serializers.IntegerField(
        allow_null=True, help_text=gettext_lazy("the corpus version the counts compare with")
    )
    live_chunks_after = serializers.IntegerField()

    def get_mode(self, preview: object) -> str:
        return "replace" if getattr(preview, "replace", False) else "add"


class CorpusImportListApi(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(responses=CorpusImportOutput(many=True), summary="Corpus imports (lead)")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        return Response(CorpusImportOutput(corpus_imports(project=project)[:100], many=True).data)

    @extend_schema(
        request={"multipart/form-data": CorpusImportUploadInput},
        responses={202: CorpusImportOutput, 200: CorpusPreviewOutput},
        summary="Upload a corpus file; it is imported in the background (lead). "
        "With dry_run, the counts it would make, at once (200), nothing stored",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        given = validated(CorpusImportUploadInput, request.data)
        upload = given["file"]
        settings = {
            "project": project,
            "chunk_size": given["chunk_size"],
            "overlap": given["overlap"],
            "replace": given["mode"] == "replace",
        }
        try:
            if given["dry_run"]:
                with upload_file(upload) as path:
                    preview = corpus_preview(path=path, filename=upload_name(upload), **settings)
                return Response(CorpusPreviewOutput(preview).data)
            record = upload_accept(
                corpus_import_create, upload=upload, created_by=request.user, **settings
            )
        except (ReadError, ValueError) as error:
            raise invalid("file", error) from None
        return Response(CorpusImportOutput(record).data, status=status.HTTP_202_ACCEPTED)


class CorpusImportDetailApi(APIView):
    @extend_schema(responses=CorpusImportOutput, summary="One corpus import: progress, report")
    def get(self, request: Request, project_id: int, import_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        record = get_object_or_404(CorpusImport, pk=import_id, project=project)
        return Response(CorpusImportOutput(record).data)


class SearchIndexOutput(serializers.Serializer):
    state = serializers.ChoiceField(
        choices=["ready", "building", "none"],
        help_text=gettext_lazy(
            "ready: every live chunk is indexed; building: an import's index is being built by "
            "a worker (searches find every chunk meanwhile, more slowly); none: an English "
            "project on SQLite has no index"
        ),
    )
    indexed = serializers.IntegerField()
    chunks = serializers.IntegerField()


class CorpusFiguresOutput(serializers.Serializer):
    documents = serializers.IntegerField()
    chunks = serializers.IntegerField()
    removed = serializers.IntegerField()
    changed = serializers.IntegerField()
    search_index = SearchIndexOutput()


class CorpusFiguresApi(APIView):
    @extend_schema(responses=CorpusFiguresOutput, summary="Corpus size, changed and removed")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.VIEW)
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
        project, _ = request_access(request, project_id, Action.VIEW)
        try:
            limit = max(1, min(int(request.query_params.get("limit", 20)), 100))
        except ValueError:
            raise invalid("limit", gettext("must be an integer")) from None
        hits = chunk_search(project=project, text=request.query_params.get("q", ""), limit=limit)
        return Response(CorpusSearchHitOutput(hits, many=True).data)


class CorpusVersionOutput(serializers.Serializer):
    number = serializers.IntegerField()
    content_hash = serializers.CharField()
    live_chunks = serializers.IntegerField()
    added = serializers.IntegerField()
    changed = serializers.IntegerField()
    retired = serializers.IntegerField()
    origin = serializers.CharField(
        help_text=gettext_lazy("import, golden_set (a golden-set import) or baseline")
    )
    replace = serializers.BooleanField()
    filename = serializers.CharField()
    corpus_import = serializers.IntegerField(source="corpus_import_id", allow_null=True)
    created_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)
    created_at = serializers.DateTimeField()


class CorpusVersionListApi(APIView):
    @extend_schema(
        responses=CorpusVersionOutput(many=True), summary="Corpus versions, newest first"
    )
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.VIEW)
        return Response(CorpusVersionOutput(corpus_versions(project=project), many=True).data)


class CitedByOutput(serializers.Serializer):
    label = serializers.CharField(help_text=gettext_lazy("the frozen version"))
    query_id = serializers.CharField()


class DiffChunkOutput(serializers.Serializer):
    chunk_id = serializers.CharField()
    kind = serializers.CharField(help_text=gettext_lazy("added, changed or retired"))
    old_sha256 = serializers.CharField()
    new_sha256 = serializers.CharField()
    cited_by = CitedByOutput(many=True)


class CorpusDiffOutput(serializers.Serializer):
    old = serializers.IntegerField(source="old.number")
    new = serializers.IntegerField(source="new.number")
    counts = serializers.JSONField()
    chunks = DiffChunkOutput(many=True)


class CorpusVersionDiffApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("a", int, description="one version number", required=True),
            OpenApiParameter("b", int, description="the other version number", required=True),
        ],
        responses=CorpusDiffOutput,
        summary="The chunks added, changed and retired between two corpus versions, "
        "with the frozen versions and queries citing each",
    )
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.VIEW)
        numbers = []
        for name in ("a", "b"):
            try:
                numbers.append(int(request.query_params.get(name, "")))
            except ValueError:
                raise invalid(name, gettext("must be an integer")) from None
        try:
            diff = corpus_version_diff(project=project, old=numbers[0], new=numbers[1])
        except CorpusVersion.DoesNotExist:
            raise NotFound(gettext("no such corpus version in this project")) from None
        return Response(CorpusDiffOutput(diff).data)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}corpus/", CorpusFiguresApi.as_view(), name="api-corpus"),
    path(f"{P}corpus/imports/", CorpusImportListApi.as_view(), name="api-corpus-import-list"),
    path(
        f"{P}corpus/imports/<int:import_id>/",
        CorpusImportDetailApi.as_view(),
        name="api-corpus-import-detail",
    ),
    path(f"{P}corpus/versions/", CorpusVersionListApi.as_view(), name="api-corpus-versions"),
    path(
        f"{P}corpus/versions/diff/", CorpusVersionDiffApi.as_view(), name="api-corpus-version-diff"
    ),
    path(f"{P}corpus/search/", CorpusFullTextSearchApi.as_view(), name="api-corpus-fulltext"),
]
