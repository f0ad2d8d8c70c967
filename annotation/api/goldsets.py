"""Golden-set versions under /api/v1/: list, read, diff, streamed export; freeze and import for
leads. There is no PATCH, PUT or DELETE on a version: frozen means frozen (those answer 405)."""

from __future__ import annotations

from contextlib import ExitStack

from django.db.models import Prefetch
from django.http import StreamingHttpResponse
from django.urls import path
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.shapes import PAGE_PARAMETERS, STORED_INT_MAX, invalid, page_of, validated
from annotation.models import GoldenItem, GoldenJudgment, GoldenSetVersion, Project
from annotation.permissions import Action, request_access
from annotation.selectors.goldsets import (
    EXPORT_FORMATS,
    export_stream,
    golden_set_version_get,
    golden_set_versions,
    version_diff,
)
from annotation.selectors.refresh import (
    open_refresh,
    refresh_for_diff,
    refresh_plan_read,
    refresh_progress,
)
from annotation.services.goldsets import (
    IMPORT_FORMATS,
    FreezeIdentical,
    SplitSpec,
    golden_set_version_freeze,
    golden_set_version_import,
    goldset_load,
)
from annotation.services.refresh import golden_set_refresh_freeze, golden_set_refresh_open
from annotation.services.uploads import upload_file, upload_name
from goldsmith.formats.goldset import parse_grade_map
from sitewide.downloads import attachment

HASH_HEADER = "X-Goldsmith-Content-Hash"


def _version_or_404(project: Project, label: str) -> GoldenSetVersion:
    try:
        return golden_set_version_get(project=project, label=label)
    except GoldenSetVersion.DoesNotExist:
        raise NotFound(gettext("no version %(label)r in this project") % {"label": label}) from None


class GoldenSetVersionOutput(serializers.Serializer):
    id = serializers.IntegerField()
    label = serializers.CharField()
    content_hash = serializers.CharField()
    note = serializers.CharField()
    parent = serializers.CharField(source="parent.label", allow_null=True, default=None)
    origin = serializers.CharField()
    source_name = serializers.CharField()
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    query_count = serializers.IntegerField()
    judgment_count = serializers.IntegerField()
    counts = serializers.JSONField()
    agreement_summary = serializers.JSONField()
    guideline_version = serializers.IntegerField(allow_null=True)
    sampling_provenance = serializers.JSONField()
    filters = serializers.JSONField()
    split_seed = serializers.IntegerField(allow_null=True)
    test_share = serializers.FloatField(allow_null=True)
    corpus_version = serializers.IntegerField(
        source="corpus_version.number",
        allow_null=True,
        default=None,
        help_text=gettext_lazy("the corpus version its judgments were made on (null: not known)"),
    )
    corpus_hash = serializers.CharField(
        help_text=gettext_lazy("content hash of that corpus ('' when not known)")
    )


class GoldenSetFreezeInput(serializers.Serializer):
    label = serializers.CharField(max_length=40, required=False, allow_blank=True)
    note = serializers.CharField(required=False, allow_blank=True, default="")
    categories = serializers.ListField(child=serializers.CharField(), required=False)
    strata = serializers.ListField(child=serializers.CharField(), required=False)
    split_seed = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, max_value=STORED_INT_MAX
    )
    test_share = serializers.FloatField(required=False, min_value=0.01, max_value=0.99)


class GoldenSetListApi(APIView):
    @extend_schema(responses=GoldenSetVersionOutput(many=True), summary="Golden-set versions")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.VIEW)
        versions = golden_set_versions(project=project)
        return Response(GoldenSetVersionOutput(versions, many=True).data)

    @extend_schema(
        request=GoldenSetFreezeInput,
        responses={
            201: GoldenSetVersionOutput,
            409: OpenApiResponse(
                description="identical to the latest version: nothing stored "
                "({detail, code: identical, label, content_hash})"
            ),
        },
        summary="Freeze the approved queries into a new version (lead)",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        given = validated(GoldenSetFreezeInput, request.data)
        try:
            version = golden_set_version_freeze(
                project=project,
                by=request.user,
                note=given["note"],
                label=given.get("label") or None,
                categories=given.get("categories"),
                strata=given.get("strata"),
                split=SplitSpec.given(given.get("split_seed"), given.get("test_share")),
            )
        except FreezeIdentical as same:
            body = {
                "detail": str(same),
                "code": "identical",
                "label": same.latest.label,
                "content_hash": same.latest.content_hash,
            }
            return Response(body, status=status.HTTP_409_CONFLICT)
        except ValueError as error:
            raise invalid("detail", error) from None
        response = Response(GoldenSetVersionOutput(version).data, status=status.HTTP_201_CREATED)
        response[HASH_HEADER] = version.content_hash
        return response


class GoldenSetDetailApi(APIView):
    @extend_schema(responses=GoldenSetVersionOutput, summary="One version (by label)")
    def get(self, request: Request, project_id: int, label: str) -> Response:
        project, _ = request_access(request, project_id, Action.VIEW)
        version = _version_or_404(project, label)
        response = Response(GoldenSetVersionOutput(version).data)
        response[HASH_HEADER] = version.content_hash
        return response


class GoldenJudgmentOutput(serializers.Serializer):
    chunk_id = serializers.CharField()
    doc_id = serializers.CharField(allow_null=True)
    start = serializers.IntegerField(allow_null=True)
    end = serializers.IntegerField(allow_null=True)
    grade = serializers.IntegerField()
    provenance = serializers.CharField(allow_null=True)
    text = serializers.CharField(allow_null=True)


class GoldenItemOutput(serializers.Serializer):
    query_id = serializers.CharField()
    query = serializers.CharField(source="text")
    category = serializers.CharField(allow_null=True)
    stratum = serializers.CharField(allow_null=True)
    weight = serializers.FloatField()
    split = serializers.CharField(allow_null=True)
    reference_answer = serializers.CharField(allow_null=True)
    answer_type = serializers.CharField(allow_null=True)
    choices = serializers.ListField(child=serializers.CharField())
    reference_facts = serializers.ListField(
        child=serializers.DictField(), help_text=gettext_lazy('[{"text": ..., "chunk_ids": [...]}]')
    )
    judgments = GoldenJudgmentOutput(many=True)


class GoldenItemListApi(APIView):
    @extend_schema(
        responses=page_of(GoldenItemOutput),
        parameters=PAGE_PARAMETERS,
        summary="The queries of a version with their graded chunks, in query_id order (paged)",
    )
    def get(self, request: Request, project_id: int, label: str) -> Response:
        project, _ = request_access(request, project_id, Action.VIEW)
        version = _version_or_404(project, label)
        items = (
            GoldenItem.objects.filter(version=version)
            .order_by("position")
            .prefetch_related(
                Prefetch("judgments", queryset=GoldenJudgment.objects.order_by("position"))
            )
        )
        paginator = LimitOffsetPagination()
        page = paginator.paginate_queryset(items, request, view=self)
        response = paginator.get_paginated_response(GoldenItemOutput(page, many=True).data)
        response[HASH_HEADER] = version.content_hash
        return response


class GoldenSetExportApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("fmt", str, OpenApiParameter.PATH, enum=EXPORT_FORMATS)],
        responses={
            (200, media_type): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="The file, streamed; its content hash is in "
                f"{HASH_HEADER} and in the file name.",
            )
            # One media type per format, as annotation/selectors/goldsets.py export_stream.
            for media_type in (
                "application/x-ndjson",
                "text/plain",
                "text/tab-separated-values",
                "application/zip",
                "text/csv",
            )
        },
        summary="Export a version: jsonl (native), trec (qrels), topics (TSV), beir (zip), csv",
    )
    def get(self, request: Request, project_id: int, label: str, fmt: str) -> StreamingHttpResponse:
        project, _ = request_access(request, project_id, Action.VIEW)
        version = _version_or_404(project, label)
        if fmt not in EXPORT_FORMATS:
            raise NotFound(
                gettext("unknown export format %(fmt)r; use one of %(names)s")
                % {"fmt": fmt, "names": ", ".join(EXPORT_FORMATS)}
            )
        return streamed_export(version, fmt)


def streamed_export(version: GoldenSetVersion, fmt: str) -> StreamingHttpResponse:
    """The export as a streamed download (shared with the version page)."""
    stream = export_stream(version, fmt)
    response = StreamingHttpResponse(stream.pieces(), content_type=stream.content_type)
    stem, _, extension = stream.filename.rpartition(".")
    response["Content-Disposition"] = attachment(stem, extension)
    response[HASH_HEADER] = version.content_hash
    response["X-Goldsmith-Version"] = version.label
    # Candidates annotators left not judged (stopped) are unjudged: in no format's grades.
    # The native JSONL says how many in its header; every download says it here.
    response["X-Goldsmith-Stopped"] = str(
        (version.counts.get("stopped") or {}).get("candidates", 0)
    )
    return response


class GoldenSetDiffOutput(serializers.Serializer):
    a = serializers.DictField()
    b = serializers.DictField()
    totals = serializers.DictField(child=serializers.IntegerField())
    added_queries = serializers.ListField(child=serializers.CharField())
    removed_queries = serializers.ListField(child=serializers.CharField())
    changed_text = serializers.ListField(child=serializers.CharField())
    changed_answers = serializers.ListField(
        child=serializers.CharField(),
        help_text=gettext_lazy(
            "common queries whose reference answer, answer type, choices or key facts changed"
        ),
    )
    changed_grades = serializers.ListField(child=serializers.DictField())
    added_judgments = serializers.ListField(child=serializers.DictField())
    removed_judgments = serializers.ListField(child=serializers.DictField())
    reasons = serializers.ListField(
        child=serializers.DictField(),
        help_text=gettext_lazy(
            "when b is a refresh of a: why each row changed (query_id, chunk_id, kind: retired, "
            "carried_text, carried_span or rejudged, and its values)"
        ),
    )


class GoldenSetDiffInput(serializers.Serializer):
    a = serializers.CharField(help_text=gettext_lazy("label of the older version"))
    b = serializers.CharField(help_text=gettext_lazy("label of the newer version"))


class GoldenSetDiffApi(APIView):
    @extend_schema(
        responses=GoldenSetDiffOutput,
        parameters=[GoldenSetDiffInput],  # as the schema: both labels, neither empty
        summary="Queries added and removed and grades changed between two versions",
    )
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.VIEW)
        a_label, b_label = request.query_params.get("a"), request.query_params.get("b")
        if not a_label or not b_label:
            raise invalid("detail", gettext("name two versions: ?a=v1&b=v2"))
        a, b = _version_or_404(project, a_label), _version_or_404(project, b_label)
        diff = version_diff(a, b)
        payload = {
            "a": {"label": a.label, "content_hash": a.content_hash},
            "b": {"label": b.label, "content_hash": b.content_hash},
            **diff.to_json(),
        }
        refresh = refresh_for_diff(a=a, b=b)
        payload["reasons"] = refresh.reasons if refresh is not None else []
        return Response(GoldenSetDiffOutput(payload).data)


class GoldenSetRefreshOutput(serializers.Serializer):
    base = serializers.CharField(help_text=gettext_lazy("label of the version refreshed"))
    state = serializers.CharField(
        help_text=gettext_lazy("open, frozen, identical (nothing stored) or current")
    )
    identical_to = serializers.CharField(allow_null=True)
    corpus_hash = serializers.CharField(allow_blank=True)
    counts = serializers.DictField(
        child=serializers.IntegerField(),
        help_text=gettext_lazy(
            "untouched (carried over), touched, asked (grades asked: changed, replaces, pool), "
            "carried_text, carried_span, dropped (retired chunks nothing carries), rejudged"
        ),
    )
    progress = serializers.DictField(child=serializers.IntegerField(), allow_null=True)
    result = serializers.CharField(allow_null=True, help_text=gettext_lazy("the version stored"))


class GoldenSetRefreshFreezeInput(serializers.Serializer):
    label = serializers.CharField(max_length=40, required=False, allow_blank=True)
    note = serializers.CharField(required=False, allow_blank=True, default="")


def _refresh_json(refresh, *, base: str, identical_to: str | None = None, counts=None):  # type: ignore[no-untyped-def]
    if refresh is None:
        return {
            "base": base, "state": "current", "identical_to": identical_to, "corpus_hash": "",
            "counts": counts or {}, "progress": None, "result": None,
        }  # fmt: skip
    return {
        "base": base,
        "state": refresh.state,
        "identical_to": identical_to,
        "corpus_hash": refresh.corpus_hash,
        "counts": refresh.counts,
        "progress": refresh_progress(refresh) if refresh.state == "open" else None,
        "result": refresh.result.label if refresh.result else None,
    }


class GoldenSetRefreshApi(APIView):
    @extend_schema(
        responses=GoldenSetRefreshOutput,
        summary="The open refresh of a version, or what a refresh would ask (dry run)",
    )
    def get(self, request: Request, project_id: int, label: str) -> Response:
        project, _ = request_access(request, project_id, Action.VIEW)
        version = _version_or_404(project, label)
        refresh = open_refresh(version=version)
        if refresh is not None:
            return Response(GoldenSetRefreshOutput(_refresh_json(refresh, base=label)).data)
        plan = refresh_plan_read(version=version).plan
        payload = _refresh_json(
            None,
            base=label,
            identical_to=label if plan.identical else None,
            counts=plan.counts(),
        )
        return Response(GoldenSetRefreshOutput(payload).data)

    @extend_schema(
        request=None,
        responses={201: GoldenSetRefreshOutput, 200: GoldenSetRefreshOutput},
        summary="Open a refresh of a version on the current corpus (lead)",
    )
    def post(self, request: Request, project_id: int, label: str) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        version = _version_or_404(project, label)
        try:
            opened = golden_set_refresh_open(version=version, by=request.user)
        except ValueError as error:
            raise invalid("detail", error) from None
        payload = _refresh_json(
            opened.refresh, base=label, identical_to=opened.identical_to, counts=opened.counts
        )
        code = status.HTTP_201_CREATED if opened.refresh is not None else status.HTTP_200_OK
        return Response(GoldenSetRefreshOutput(payload).data, status=code)


class GoldenSetRefreshFreezeApi(APIView):
    @extend_schema(
        request=GoldenSetRefreshFreezeInput,
        responses={201: GoldenSetRefreshOutput, 200: GoldenSetRefreshOutput},
        summary="Freeze the open refresh of a version into the next version (lead)",
    )
    def post(self, request: Request, project_id: int, label: str) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        version = _version_or_404(project, label)
        data = validated(GoldenSetRefreshFreezeInput, request.data)
        refresh = open_refresh(version=version)
        if refresh is None:
            raise NotFound(gettext("no open refresh of %(label)s") % {"label": label})
        try:
            done = golden_set_refresh_freeze(
                refresh=refresh,
                by=request.user,
                label=data.get("label") or None,
                note=data["note"],
            )
        except ValueError as error:
            raise invalid("detail", error) from None
        payload = _refresh_json(done.refresh, base=label, identical_to=done.identical_to)
        code = status.HTTP_201_CREATED if done.version is not None else status.HTTP_200_OK
        response = Response(GoldenSetRefreshOutput(payload).data, status=code)
        if done.version is not None:
            response[HASH_HEADER] = done.version.content_hash
        return response


class GoldenSetImportInput(serializers.Serializer):
    format = serializers.ChoiceField(choices=[(f, f) for f in IMPORT_FORMATS])
    file = serializers.FileField(help_text=gettext_lazy("native JSONL, TREC qrels, or a BEIR zip"))
    topics = serializers.FileField(
        required=False, help_text=gettext_lazy("TREC topics (qid<TAB>query)")
    )
    corpus = serializers.FileField(
        required=False, help_text=gettext_lazy("BEIR-style corpus.jsonl")
    )
    label = serializers.CharField(max_length=40, required=False, allow_blank=True)
    note = serializers.CharField(required=False, allow_blank=True, default="")
    grade_map = serializers.CharField(
        required=False, allow_blank=True, help_text=gettext_lazy('e.g. "1:2,2:2,3:1,4:1,-1:drop"')
    )


class GoldenSetImportApi(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request={"multipart/form-data": GoldenSetImportInput},
        responses={201: GoldenSetVersionOutput},
        summary="Import a golden set (native JSONL, TREC + topics, BEIR zip) as a version (lead)",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        given = validated(GoldenSetImportInput, request.data)
        try:
            # Errors name each upload by its own name and line, never the temporary copy.
            with ExitStack() as files:
                copies = {
                    f: files.enter_context(upload_file(given[f]))
                    for f in ("file", "topics", "corpus")
                    if given.get(f)
                }
                loaded = goldset_load(
                    fmt=given["format"],
                    path=copies["file"],
                    topics=copies.get("topics"),
                    corpus=copies.get("corpus"),
                    grade_map=parse_grade_map(given["grade_map"])
                    if given.get("grade_map")
                    else None,
                    name=upload_name(given["file"]),
                )
                version = golden_set_version_import(
                    project=project,
                    by=request.user,
                    loaded=loaded,
                    fmt=given["format"],
                    label=given.get("label") or None,
                    note=given["note"],
                )
        except ValueError as error:  # FormatError is a ValueError: "FILE:LINE: what"
            raise invalid("file", error) from None
        response = Response(GoldenSetVersionOutput(version).data, status=status.HTTP_201_CREATED)
        response[HASH_HEADER] = version.content_hash
        return response


P = "projects/<int:project_id>/goldsets/"
urlpatterns = [
    path(P, GoldenSetListApi.as_view(), name="api-goldset-list"),
    path(f"{P}import/", GoldenSetImportApi.as_view(), name="api-goldset-import"),
    path(f"{P}diff/", GoldenSetDiffApi.as_view(), name="api-goldset-diff"),
    path(f"{P}<str:label>/", GoldenSetDetailApi.as_view(), name="api-goldset-detail"),
    path(f"{P}<str:label>/items/", GoldenItemListApi.as_view(), name="api-goldset-items"),
    path(f"{P}<str:label>/refresh/", GoldenSetRefreshApi.as_view(), name="api-goldset-refresh"),
    path(
        f"{P}<str:label>/refresh/freeze/",
        GoldenSetRefreshFreezeApi.as_view(),
        name="api-goldset-refresh-freeze",
    ),
    path(
        f"{P}<str:label>/export/<str:fmt>/", GoldenSetExportApi.as_view(), name="api-goldset-export"
    ),
]
