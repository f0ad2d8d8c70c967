"""A query's answer key: read and set by a lead (annotators do not see it); annotators' own
drafts of it, each read and written only by its writer, and all of them side by side for a
lead with their fact agreement."""

from __future__ import annotations

from django.urls import path
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.judging import own_assignment
from annotation.api.shapes import RefusalOutput, conflict, invalid, validated
from annotation.models import Query
from annotation.permissions import Action, request_access
from annotation.selectors.answers import (
    answer_draft_get,
    answer_draft_json,
    answer_drafts_view,
    answer_key_get,
    answer_key_json,
    project_fact_agreement,
)
from annotation.services.answers import (
    AnswerDraftsOff,
    AnswerKeyError,
    answer_draft_save,
    answer_key_set,
)
from annotation.services.judging import JudgingClosed
from goldsmith.answers.model import ANSWER_TYPES


class KeyFactShape(serializers.Serializer):
    text = serializers.CharField(trim_whitespace=False)
    chunk_ids = serializers.ListField(child=serializers.CharField(), default=list)


class AnswerKeyInput(serializers.Serializer):
    reference_answer = serializers.CharField(
        allow_null=True, required=False, default=None, trim_whitespace=False
    )
    reference_answers = serializers.ListField(
        child=serializers.CharField(trim_whitespace=False),
        required=False,
        default=list,
        help_text=gettext_lazy(
            "every reference answer, the primary one first (answer F1 and exact match take the "
            "best of them); reference_answer, when given, must be the first"
        ),
    )
    answer_type = serializers.ChoiceField(
        choices=ANSWER_TYPES, allow_null=True, required=False, default=None
    )
    choices = serializers.ListField(
        child=serializers.CharField(trim_whitespace=False),
        required=False,
        default=list,
        help_text=gettext_lazy(
            'for "answer_type": "choice" only: two or more, the reference answer one of them'
        ),
    )
    reference_facts = KeyFactShape(
        many=True,
        required=False,
        default=list,
        help_text=gettext_lazy("key facts, each linked to chunks that are candidates of the query"),
    )


class AnswerKeyOutput(AnswerKeyInput):
    query_id = serializers.IntegerField()


def _given(request: Request) -> dict[str, object]:
    given = dict(validated(AnswerKeyInput, request.data))
    if not given["choices"]:
        given["choices"] = None  # the engine reads an empty list as "choices given"
    if not given["reference_answers"]:
        given["reference_answers"] = None  # the engine refuses an empty list
    return given


class AnswerKeyApi(APIView):
    parser_classes = [JSONParser]  # key facts are a list of objects: JSON only

    @extend_schema(
        responses=AnswerKeyOutput,
        summary="A query's reference answer, answer type, choices and key facts (lead)",
    )
    def get(self, request: Request, project_id: int, query_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        try:
            key = answer_key_get(project=project, query_id=query_id)
        except Query.DoesNotExist:
            raise NotFound(gettext_lazy("No such query")) from None
        return Response(AnswerKeyOutput(key).data)

    @extend_schema(
        request=AnswerKeyInput,
        responses=AnswerKeyOutput,
        summary="Replace a query's answer key; a field left out is cleared (lead)",
    )
    def put(self, request: Request, project_id: int, query_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        given = _given(request)
        try:
            query = answer_key_set(project=project, query_id=query_id, data=given)
        except Query.DoesNotExist:
            raise NotFound(gettext_lazy("No such query")) from None
        except AnswerKeyError as error:
            raise invalid(error.field, error.message) from None
        return Response(AnswerKeyOutput(answer_key_json(query)).data)


# --- Annotators' drafts ---------------------------------------------------------------------


class AnswerDraftOutput(AnswerKeyOutput):
    updated_at = serializers.DateTimeField(
        allow_null=True, help_text=gettext_lazy("When the draft was last saved (null: never).")
    )


class AnswerDraftApi(APIView):
    parser_classes = [JSONParser]

    @extend_schema(
        responses=AnswerDraftOutput,
        summary="The caller's own draft answer key of a query of their queue (annotator)",
    )
    def get(self, request: Request, project_id: int, query_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.ANNOTATE)
        own_assignment(request, project, query_id)
        draft = answer_draft_get(query_id=query_id, annotator_id=request.user.pk)
        return Response(AnswerDraftOutput(draft).data)

    @extend_schema(
        request=AnswerKeyInput,
        responses={200: AnswerDraftOutput, 409: RefusalOutput},
        summary=(
            "Replace the caller's draft answer key of a query of their queue: reference answer, "
            "type, choices, key facts linked to chunks they graded 1 or 2 (annotator)"
        ),
    )
    def put(self, request: Request, project_id: int, query_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.ANNOTATE)
        assignment = own_assignment(request, project, query_id)
        given = _given(request)
        try:
            draft = answer_draft_save(assignment=assignment, data=given)
        except (AnswerDraftsOff, JudgingClosed) as error:
            return conflict(error)
        except AnswerKeyError as error:
            raise invalid(error.field, error.message) from None
        return Response(AnswerDraftOutput(answer_draft_json(draft)).data)


class FactAgreementOutput(serializers.Serializer):
    matched = serializers.IntegerField(
        help_text=gettext_lazy("Facts matched one to one by identical chunk sets, over pairs")
    )
    distinct = serializers.IntegerField(
        help_text=gettext_lazy("Distinct facts: both annotators' facts, a matched pair once")
    )
    value = serializers.FloatField(
        allow_null=True, help_text=gettext_lazy("matched / distinct (null: no fact written)")
    )
    queries = serializers.IntegerField(
        help_text=gettext_lazy("Queries with two or more drafts counted")
    )


class DraftOfOutput(serializers.Serializer):
    annotator = serializers.CharField()
    draft = AnswerDraftOutput(allow_null=True)


class AnswerDraftsOutput(serializers.Serializer):
    query_id = serializers.IntegerField()
    fact_agreement = FactAgreementOutput()
    drafts = DraftOfOutput(many=True)
    answer_key = AnswerKeyOutput()


class AnswerDraftsApi(APIView):
    @extend_schema(
        responses=AnswerDraftsOutput,
        summary="Every assigned annotator's draft answer key of a query and their fact agreement "
        "(lead)",
    )
    def get(self, request: Request, project_id: int, query_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        try:
            view = answer_drafts_view(project=project, query_id=query_id, hide_names=False)
        except Query.DoesNotExist:
            raise NotFound(gettext_lazy("No such query")) from None
        payload = {
            "query_id": query_id,
            "fact_agreement": view.agreement,
            "drafts": [{"annotator": c.label, "draft": c.draft} for c in view.columns],
            "answer_key": view.key,
        }
        return Response(AnswerDraftsOutput(payload).data)


class ProjectFactAgreementApi(APIView):
    @extend_schema(
        responses=FactAgreementOutput,
        summary="The project's fact agreement over every query with two or more drafts (lead)",
    )
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        return Response(FactAgreementOutput(project_fact_agreement(project=project)).data)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}queries/<int:query_id>/answer-key/", AnswerKeyApi.as_view(), name="api-answer-key"),
    path(
        f"{P}queries/<int:query_id>/answer-draft/",
        AnswerDraftApi.as_view(),
        name="api-answer-draft",
    ),
    path(
        f"{P}queries/<int:query_id>/answer-drafts/",
        AnswerDraftsApi.as_view(),
        name="api-answer-drafts",
    ),
    path(f"{P}fact-agreement/", ProjectFactAgreementApi.as_view(), name="api-fact-agreement"),
]
