"""Annotators' API: their queue, a query's candidates, grades, flags, notes, corpus search.

Every view checks the role with `request_access` and then that the query is in the caller's
own queue (404 otherwise). Responses carry only the caller's own grades, flags and notes.
"""

from __future__ import annotations

from django.urls import path
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.shapes import RefusalOutput, conflict, invalid, validated
from annotation.models import Assignment, Chunk, Guideline, Project, QueryAnnotation
from annotation.models.judging import JudgingOrder
from annotation.permissions import Action, request_access
from annotation.selectors.corpus import chunk_search
from annotation.selectors.judging import (
    annotation_view,
    annotator_queue,
    assignment_for,
    candidate_for,
    queue_summary,
)
from annotation.services.judging import (
    JudgingClosed,
    guideline_publish,
    judgment_save,
    query_annotation_save,
)
from annotation.services.pooling import candidate_add_by_annotator


def own_assignment(request: Request, project: Project, query_id: int) -> Assignment:
    """The caller's assignment for a query of the project; 404 when it is not theirs."""
    assignment = assignment_for(user=request.user, project=project, query_id=query_id)
    if assignment is None:
        raise NotFound(gettext("That query is not in your queue"))
    return assignment


# --- Queue ----------------------------------------------------------------------------------


class QueueItemOutput(serializers.Serializer):
    query_id = serializers.IntegerField(source="query.pk")
    text = serializers.CharField(source="query.text")
    category = serializers.CharField(source="query.category")
    order = serializers.IntegerField()
    status = serializers.CharField()
    judged = serializers.IntegerField()
    total = serializers.IntegerField()


class QueueOutput(serializers.Serializer):
    total = serializers.IntegerField()
    done = serializers.IntegerField()
    items = QueueItemOutput(many=True)


class QueueApi(APIView):
    @extend_schema(responses=QueueOutput, summary="The caller's annotation queue, in order")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.ANNOTATE)
        items = annotator_queue(user=request.user, project=project)
        summary = queue_summary(user=request.user, project=project)
        return Response(QueueOutput({**summary, "items": items}).data)


# --- One query ------------------------------------------------------------------------------


class FlagsSerializer(serializers.Serializer):
    ambiguous = serializers.BooleanField(required=False)
    no_answer = serializers.BooleanField(required=False)
    personal_data = serializers.BooleanField(required=False)
    not_a_query = serializers.BooleanField(required=False)


class OwnCandidateOutput(serializers.Serializer):
    id = serializers.IntegerField()
    chunk_id = serializers.CharField()
    document_title = serializers.CharField()
    text = serializers.CharField()
    grade = serializers.IntegerField(
        allow_null=True, help_text=gettext_lazy("The caller's own grade.")
    )
    note = serializers.CharField()


class OwnQueryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    text = serializers.CharField()
    category = serializers.CharField()


class QueryAnnotationOutput(serializers.Serializer):
    flags = FlagsSerializer()
    note = serializers.CharField()
    seconds_spent = serializers.FloatField()


class AnnotationPageOutput(serializers.Serializer):
    query = OwnQueryOutput()
    guideline_version = serializers.IntegerField(allow_null=True)
    locked = serializers.BooleanField(
        help_text=gettext_lazy("Adjudicated or approved: grades are final.")
    )
    status = serializers.CharField()
    judged = serializers.IntegerField()
    total = serializers.IntegerField()
    candidates = OwnCandidateOutput(many=True)
    annotation = QueryAnnotationOutput()


def annotation_output(annotation: QueryAnnotation | None) -> dict[str, object]:
    if annotation is None:
        annotation = QueryAnnotation()
    return {
        "flags": {flag: getattr(annotation, flag) for flag in QueryAnnotation.FLAGS},
        "note": annotation.note,
        "seconds_spent": annotation.seconds_spent,
    }


class QueryAnnotationInput(serializers.Serializer):
    flags = FlagsSerializer(required=False)
    note = serializers.CharField(required=False, allow_blank=True, max_length=5000)
    seconds = serializers.FloatField(
        required=False,
        min_value=0,
        default=0,
        help_text=gettext_lazy("Seconds spent: added, or with `visit` the visit's total so far."),
    )
    visit = serializers.CharField(
        required=False,
        max_length=64,
        help_text=gettext_lazy(
            "An id the page makes up per visit; a visit's time is stored once, so a "
            "report sent again changes nothing."
        ),
    )


class AnnotationApi(APIView):
    @extend_schema(
        responses=AnnotationPageOutput,
        summary="A query of the caller's queue with its candidates and the caller's own grades",
    )
    def get(self, request: Request, project_id: int, query_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.ANNOTATE)
        assignment = own_assignment(request, project, query_id)
        view = annotation_view(assignment=assignment)
        payload = {
            "query": view.query,
            "guideline_version": view.guideline_version,
            "locked": view.locked,
            "status": assignment.status,
            "judged": assignment.judged,
            "total": assignment.total,
            "candidates": [c.__dict__ for c in view.candidates],
            "annotation": annotation_output(view.annotation),
        }
        return Response(AnnotationPageOutput(payload).data)

    @extend_schema(
        request=QueryAnnotationInput,
        responses={200: QueryAnnotationOutput, 409: RefusalOutput},
        summary="Set the caller's flags and note on a query; record time spent (seconds)",
    )
    def put(self, request: Request, project_id: int, query_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.ANNOTATE)
        assignment = own_assignment(request, project, query_id)
        data = validated(QueryAnnotationInput, request.data)
        try:
            annotation = query_annotation_save(
                assignment=assignment,
                flags=data.get("flags"),
                note=data.get("note"),
                seconds=data["seconds"],
                visit=data.get("visit"),
            )
        except JudgingClosed as error:
            return conflict(error)
        return Response(QueryAnnotationOutput(annotation_output(annotation)).data)


# --- Grades ---------------------------------------------------------------------------------


class JudgmentInput(serializers.Serializer):
    grade = serializers.ChoiceField(choices=[0, 1, 2])
    note = serializers.CharField(required=False, allow_blank=True, max_length=5000)
    order = serializers.ChoiceField(
        choices=[o for o in JudgingOrder.values if o],
        required=False,
        help_text=gettext_lazy(
            "The order the annotator was following: likely (most likely relevant first), "
            "plain (the pool's plain order) or check (drawn at random for the stop estimate)."
        ),
    )


class JudgmentOutput(serializers.Serializer):
    candidate_id = serializers.IntegerField(source="judgment.candidate_id")
    grade = serializers.IntegerField(source="judgment.grade")
    note = serializers.CharField(source="judgment.note")
    guideline_version = serializers.IntegerField(
        source="judgment.guideline_version", allow_null=True
    )
    updated_at = serializers.DateTimeField(source="judgment.updated_at")
    status = serializers.CharField(
        help_text=gettext_lazy("The caller's assignment status after this grade.")
    )
    judged = serializers.IntegerField()
    total = serializers.IntegerField()


class JudgmentApi(APIView):
    @extend_schema(
        request=JudgmentInput,
        responses={200: JudgmentOutput, 409: RefusalOutput},
        summary="Grade a candidate of the caller's queue (idempotent: one judgment per pair)",
    )
    def put(self, request: Request, project_id: int, candidate_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.ANNOTATE)
        candidate, assignment = candidate_for(
            user=request.user, project=project, candidate_id=candidate_id
        )
        if candidate is None:
            raise NotFound(gettext("No such candidate"))
        if assignment is None:
            raise NotFound(gettext("That query is not in your queue"))
        data = validated(JudgmentInput, request.data)
        try:
            saved = judgment_save(
                assignment=assignment,
                candidate=candidate,
                grade=int(data["grade"]),
                note=data.get("note"),
                order=data.get("order"),
            )
        except JudgingClosed as error:
            return conflict(error)
        return Response(JudgmentOutput(saved).data)


# --- Corpus search and added candidates -----------------------------------------------------


class SearchHitOutput(serializers.Serializer):
    chunk_id = serializers.CharField()
    document_title = serializers.CharField(source="document.title")
    text = serializers.CharField()


class CorpusSearchApi(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("q", str, description="words to look for")],
        responses=SearchHitOutput(many=True),
        summary="Search the project's corpus for a chunk to add to a query of the caller's queue",
    )
    def get(self, request: Request, project_id: int, query_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.ANNOTATE)
        own_assignment(request, project, query_id)
        hits = chunk_search(project=project, text=request.query_params.get("q", ""))
        return Response(SearchHitOutput(hits, many=True).data)


class CandidateAddInput(serializers.Serializer):
    chunk_id = serializers.CharField(max_length=255)


class CandidateAddedOutput(serializers.Serializer):
    id = serializers.IntegerField()
    chunk_id = serializers.CharField()
    created = serializers.BooleanField()


class CandidateAddApi(APIView):
    @extend_schema(
        request=CandidateAddInput,
        responses={
            200: CandidateAddedOutput,
            201: CandidateAddedOutput,
            409: RefusalOutput,
        },
        summary="Add a chunk found by corpus search to the pool of a query of the caller's queue",
    )
    def post(self, request: Request, project_id: int, query_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.ANNOTATE)
        assignment = own_assignment(request, project, query_id)
        data = validated(CandidateAddInput, request.data)
        chunk = Chunk.objects.filter(
            project=project, chunk_id=data["chunk_id"], removed=False
        ).first()
        if chunk is None:
            raise NotFound(gettext("No such chunk in this project's corpus"))
        try:
            candidate, created = candidate_add_by_annotator(
                query=assignment.query, chunk=chunk, user=request.user
            )
        except JudgingClosed as error:
            return conflict(error)
        except ValueError as error:
            raise invalid("chunk_id", error) from None
        payload = {"id": candidate.pk, "chunk_id": chunk.chunk_id, "created": created}
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(CandidateAddedOutput(payload).data, status=code)


# --- Guidelines -----------------------------------------------------------------------------


class GuidelineOutput(serializers.Serializer):
    version = serializers.IntegerField()
    markdown = serializers.CharField()
    created_by = serializers.CharField(source="created_by.username", allow_null=True)
    created_at = serializers.DateTimeField()


class GuidelineInput(serializers.Serializer):
    markdown = serializers.CharField(min_length=1, max_length=200_000)


class GuidelineListApi(APIView):
    @extend_schema(responses=GuidelineOutput(many=True), summary="Guideline versions, newest first")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.VIEW)
        rows = Guideline.objects.filter(project=project).select_related("created_by")
        return Response(GuidelineOutput(rows.order_by("-version"), many=True).data)

    @extend_schema(
        request=GuidelineInput,
        responses={201: GuidelineOutput},
        summary="Publish a new guideline version (lead)",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        data = validated(GuidelineInput, request.data)
        try:
            guideline = guideline_publish(
                project=project, markdown=data["markdown"], by=request.user
            )
        except ValueError as error:
            raise invalid("markdown", error) from None
        return Response(GuidelineOutput(guideline).data, status=status.HTTP_201_CREATED)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}queue/", QueueApi.as_view(), name="api-queue"),
    path(f"{P}queries/<int:query_id>/annotation/", AnnotationApi.as_view(), name="api-annotation"),
    path(f"{P}queries/<int:query_id>/search/", CorpusSearchApi.as_view(), name="api-corpus-search"),
    path(
        f"{P}queries/<int:query_id>/candidates/",
        CandidateAddApi.as_view(),
        name="api-candidate-add",
    ),
    path(f"{P}candidates/<int:candidate_id>/judgment/", JudgmentApi.as_view(), name="api-judgment"),
    path(f"{P}guidelines/", GuidelineListApi.as_view(), name="api-guidelines"),
]
