"""A query's answer key: read and set by a lead (annotators do not see it)."""

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

from annotation.models import Query
from annotation.permissions import Action, project_access
from annotation.selectors.answers import answer_key_get, answer_key_json
from annotation.services.answers import AnswerKeyError, answer_key_set
from goldsmith.answers.model import ANSWER_TYPES


class KeyFactShape(serializers.Serializer):
    text = serializers.CharField(trim_whitespace=False)
    chunk_ids = serializers.ListField(child=serializers.CharField(), default=list)


class AnswerKeyInput(serializers.Serializer):
    reference_answer = serializers.CharField(
        allow_null=True, required=False, default=None, trim_whitespace=False
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


class AnswerKeyApi(APIView):
    parser_classes = [JSONParser]  # key facts are a list of objects: JSON only

    @extend_schema(
        responses=AnswerKeyOutput,
        summary="A query's reference answer, answer type, choices and key facts (lead)",
    )
    def get(self, request: Request, project_id: int, query_id: int) -> Response:
        project, _ = project_access(user=request.user, project_id=project_id, action=Action.LEAD)
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
        project, _ = project_access(user=request.user, project_id=project_id, action=Action.LEAD)
        data = AnswerKeyInput(data=request.data)
        data.is_valid(raise_exception=True)
        given = dict(data.validated_data)
        if not given["choices"]:
            given["choices"] = None  # the engine reads an empty list as "choices given"
        try:
            query = answer_key_set(project=project, query_id=query_id, data=given)
        except Query.DoesNotExist:
            raise NotFound(gettext_lazy("No such query")) from None
        except AnswerKeyError as error:
            raise serializers.ValidationError({error.field: [error.message]}) from None
        return Response(AnswerKeyOutput(answer_key_json(query)).data)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}queries/<int:query_id>/answer-key/", AnswerKeyApi.as_view(), name="api-answer-key"),
]
