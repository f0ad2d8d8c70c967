"""HTTP answer judges under /api/v1/projects/ID/answer-judges/: register one, list, read,
change and remove them, and send one sample answer to a judge to see its score and reason.
Leads only (a judge's URL and settings are the project's configuration, like its machine
judges). An auth header value can be written, never read: `has_auth_header` says whether one
is stored."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.permissions import Action, request_access
from evaluation.api.endpoints import (
    REFUSED,
    AuthHeaderInput,
    SettingsInput,
    endpoint_saved,
    setting_field,
)
from evaluation.api.shapes import output_of, validated
from evaluation.models import AnswerJudge
from evaluation.selectors.answer_judges import answer_judges_of
from evaluation.services.answer_judges import (
    CALL_SETTINGS,
    SAMPLE,
    answer_judge_config,
    answer_judge_delete,
    answer_judge_register,
    answer_judge_test_call,
    answer_judge_update,
)
from goldsmith.answers.judge import AnswerItem
from goldsmith.judges import JUDGE_SETTINGS
from sitewide.text_input import JSONParser

# One word without control characters: reports name the scorer `judge:<name>`.
NAME_PATTERN = r"^[^\s\x00-\x1f\x7f-\x9f]{1,100}$"


class AnswerJudgeSettingsInput(SettingsInput):
    """How to call the judge (docs/formats.md, "HTTP answer judge"); each is optional (the
    engine's default when registering, the stored value when changing). Others are refused."""

    unknown = gettext_lazy("unknown answer judge setting %(name)r")

    method = serializers.ChoiceField(choices=["POST", "PUT"], required=False)
    body_template = serializers.CharField(
        required=False,
        trim_whitespace=False,
        help_text=gettext_lazy(
            "JSON whose strings may hold {query}, {query_id}, {reference_answer}, "
            "{answer_type}, {facts}, {response} (required), {contexts}, {model}, "
            "{prompt_version}, {temperature}"
        ),
    )
    score_path = serializers.CharField(
        required=False, help_text=gettext_lazy("dotted path of the score (0 to 1)")
    )
    reason_path = serializers.CharField(
        required=False, allow_blank=True, help_text=gettext_lazy("dotted path of the reason")
    )
    faithfulness_path = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text=gettext_lazy(
            "dotted path of the judge's faithfulness (a score, or an object with score and "
            "reason); empty: not read"
        ),
    )
    relevance_path = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text=gettext_lazy("dotted path of the judge's answer relevance; empty: not read"),
    )
    timeout = setting_field(JUDGE_SETTINGS["timeout"], help_text=gettext_lazy("seconds"))
    max_concurrency = setting_field(
        JUDGE_SETTINGS["max_concurrency"], help_text=gettext_lazy("requests at once")
    )
    retries = setting_field(JUDGE_SETTINGS["retries"], help_text=None)
    backoff = setting_field(JUDGE_SETTINGS["backoff"], help_text=gettext_lazy("seconds"))
    batch_size = setting_field(
        JUDGE_SETTINGS["batch_size"],
        help_text=gettext_lazy("answers handed back and saved together"),
    )
    headers = serializers.DictField(
        child=serializers.CharField(allow_blank=True),
        required=False,
        help_text=gettext_lazy("extra headers, never credentials (use the auth header)"),
    )


def _name_field(**kwargs: Any) -> serializers.Field:
    return serializers.RegexField(
        NAME_PATTERN,
        help_text=gettext_lazy("one word; reports name the scorer judge:NAME"),
        error_messages={
            "invalid": gettext_lazy(
                "the name must be 1 to 100 characters without spaces or control characters"
            )
        },
        **kwargs,
    )


class AnswerJudgeInput(AuthHeaderInput):
    name = _name_field()
    url = serializers.CharField(
        max_length=2000, help_text=gettext_lazy("http:// or https://, where the judge listens")
    )
    model = serializers.CharField(
        max_length=200, required=False, default="", allow_blank=True,
        help_text=gettext_lazy("as configured in the judge; recorded with each run"),
    )  # fmt: skip
    prompt_version = serializers.CharField(
        max_length=200, required=False, default="", allow_blank=True,
        help_text=gettext_lazy("recorded with each run"),
    )  # fmt: skip
    temperature = serializers.FloatField(
        required=False, default=None, allow_null=True, min_value=0,
        help_text=gettext_lazy("recorded with each run; null: not set"),
    )  # fmt: skip
    config = AnswerJudgeSettingsInput(required=False)


class AnswerJudgeUpdateInput(AuthHeaderInput):
    name = _name_field(required=False)
    url = serializers.CharField(max_length=2000, required=False)
    model = serializers.CharField(max_length=200, required=False, allow_blank=True)
    prompt_version = serializers.CharField(max_length=200, required=False, allow_blank=True)
    temperature = serializers.FloatField(required=False, allow_null=True, min_value=0)
    config = AnswerJudgeSettingsInput(required=False)


class AnswerJudgeOutput(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    url = serializers.CharField()
    model = serializers.CharField()
    prompt_version = serializers.CharField()
    temperature = serializers.FloatField(allow_null=True)
    scorer = serializers.CharField(help_text=gettext_lazy("how reports name it: judge:NAME"))
    identity = serializers.CharField(
        help_text=gettext_lazy("the scorer with its model, prompt version and temperature")
    )
    config = serializers.JSONField(help_text=gettext_lazy("how it is called"))
    auth_header_name = serializers.CharField()
    has_auth_header = serializers.BooleanField()
    auth_header_source = serializers.ChoiceField(choices=["stored", "env"], allow_null=True)
    auth_header_env = serializers.CharField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


def answer_judge_output(judge: AnswerJudge) -> dict[str, Any]:
    """A judge as the API shows it: never its auth header's value."""
    config = answer_judge_config(judge)
    return output_of(
        AnswerJudgeOutput,
        judge,
        id=judge.pk,
        scorer=config.identity.scorer,
        identity=config.identity.describe(),
        config={k: v for k, v in config.snapshot().items() if k in CALL_SETTINGS},
    )


def _judge(project: Any, judge_id: int) -> AnswerJudge:
    return get_object_or_404(AnswerJudge, project=project, pk=judge_id)


class AnswerJudgeListApi(APIView):
    parser_classes = [JSONParser]  # `config` is an object, which a form cannot carry

    @extend_schema(responses=AnswerJudgeOutput(many=True), summary="HTTP answer judges")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        return Response([answer_judge_output(j) for j in answer_judges_of(project=project)])

    @extend_schema(
        request=AnswerJudgeInput,
        responses={201: AnswerJudgeOutput, 400: REFUSED},
        summary="Register an HTTP answer judge",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        judge = endpoint_saved(
            answer_judge_register, AnswerJudgeInput, request, project=project, by=request.user
        )
        return Response(answer_judge_output(judge), status=status.HTTP_201_CREATED)


class AnswerJudgeDetailApi(APIView):
    parser_classes = [JSONParser]

    @extend_schema(responses=AnswerJudgeOutput, summary="One HTTP answer judge")
    def get(self, request: Request, project_id: int, answer_judge_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        return Response(answer_judge_output(_judge(project, answer_judge_id)))

    @extend_schema(
        request=AnswerJudgeUpdateInput,
        responses={200: AnswerJudgeOutput, 400: REFUSED},
        summary="Change an HTTP answer judge",
    )
    def patch(self, request: Request, project_id: int, answer_judge_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        judge = _judge(project, answer_judge_id)
        # a temperature left out is kept (`answer_judge_update`'s KEEP); a null one clears it
        judge = endpoint_saved(answer_judge_update, AnswerJudgeUpdateInput, request, judge=judge)
        return Response(answer_judge_output(judge))

    @extend_schema(request=None, responses={204: None}, summary="Remove an HTTP answer judge")
    def delete(self, request: Request, project_id: int, answer_judge_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        answer_judge_delete(judge=_judge(project, answer_judge_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class JudgeCallInput(serializers.Serializer):
    question = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    reference_answer = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, trim_whitespace=False
    )
    facts = serializers.ListField(
        child=serializers.CharField(trim_whitespace=False, min_length=1),
        required=False,
        max_length=100,
    )
    response = serializers.CharField(
        required=False,
        trim_whitespace=False,
        help_text=gettext_lazy("the answer to judge; a sample answer (shown back) when left out"),
    )
    contexts = serializers.ListField(
        child=serializers.CharField(trim_whitespace=False, allow_blank=True),
        required=False,
        max_length=100,
        help_text=gettext_lazy("the contexts' texts the answer was written from"),
    )


class SentOutput(serializers.Serializer):
    question = serializers.CharField()
    reference_answer = serializers.CharField(allow_null=True)
    answer_type = serializers.CharField()
    facts = serializers.ListField(child=serializers.CharField())
    response = serializers.CharField()
    contexts = serializers.ListField(child=serializers.CharField(allow_blank=True))


class JudgeIdentityOutput(serializers.Serializer):
    scorer = serializers.CharField()
    name = serializers.CharField()
    model = serializers.CharField()
    prompt_version = serializers.CharField()
    temperature = serializers.FloatField(allow_null=True)


class JudgeCallOutput(serializers.Serializer):
    ok = serializers.BooleanField(help_text=gettext_lazy("false: the judge gave no score"))
    score = serializers.FloatField(allow_null=True)
    reason = serializers.CharField(allow_blank=True)
    error = serializers.CharField(
        allow_blank=True, help_text=gettext_lazy("why there is no score (HTTP 401, a bad path…)")
    )
    attempts = serializers.IntegerField()
    latency_ms = serializers.FloatField()
    judge = JudgeIdentityOutput()
    sent = SentOutput()
    more = serializers.DictField(
        help_text=gettext_lazy(
            "what the judge said of faithfulness and answer relevance: metric → score and reason"
        )
    )


class AnswerJudgeTestCallApi(APIView):
    parser_classes = [JSONParser]

    @extend_schema(
        request=JudgeCallInput,
        responses=JudgeCallOutput,
        summary="Send one answer to the judge (one attempt) and return its score and reason",
    )
    def post(self, request: Request, project_id: int, answer_judge_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        judge = _judge(project, answer_judge_id)
        given = validated(JudgeCallInput, request)
        item = AnswerItem(
            query_id=SAMPLE.query_id,
            question=given.get("question", SAMPLE.question),
            reference_answer=given.get("reference_answer", SAMPLE.reference_answer) or None,
            answer_type="open",
            facts=tuple(given.get("facts", SAMPLE.facts)),
            response=given.get("response", SAMPLE.response),
            contexts=tuple(given.get("contexts", SAMPLE.contexts)),
        )
        answer = answer_judge_test_call(judge=judge, item=item)
        return Response(
            output_of(
                JudgeCallOutput,
                answer,
                latency_ms=round(answer.latency_ms, 1),
                judge=answer_judge_config(judge).identity.to_json(),
                sent=output_of(
                    SentOutput, item, facts=list(item.facts), contexts=list(item.contexts)
                ),
                more={m: dict(v) for m, v in answer.more.items()},
            )
        )


P = "projects/<int:project_id>/answer-judges/"
urlpatterns = [
    path(P, AnswerJudgeListApi.as_view(), name="api-answer-judge-list"),
    path(f"{P}<int:answer_judge_id>/", AnswerJudgeDetailApi.as_view(), name="api-answer-judge"),
    path(
        f"{P}<int:answer_judge_id>/test-call/",
        AnswerJudgeTestCallApi.as_view(),
        name="api-answer-judge-test-call",
    ),
]
