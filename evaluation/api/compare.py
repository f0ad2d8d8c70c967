"""Two runs compared under /api/v1/."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.permissions import Action, request_access
from evaluation.api.shapes import refusal
from evaluation.models import EvaluationRun
from evaluation.services.reports import RunInvalid, compare_report


class CompareMetricOutput(serializers.Serializer):
    metric = serializers.CharField(
        help_text=gettext_lazy("family@K, or precision / f1 of the whole list")
    )
    n = serializers.IntegerField(help_text=gettext_lazy("queries scored in both runs"))
    mean_a = serializers.FloatField(allow_null=True)
    mean_b = serializers.FloatField(allow_null=True)
    diff = serializers.FloatField(allow_null=True, help_text=gettext_lazy("B − A"))
    ci_low = serializers.FloatField(
        allow_null=True, help_text=gettext_lazy("95% bootstrap CI of B − A")
    )
    ci_high = serializers.FloatField(allow_null=True)
    p_randomization = serializers.FloatField(
        allow_null=True, help_text=gettext_lazy("paired sign-flip test")
    )
    p_ttest = serializers.FloatField(allow_null=True, help_text=gettext_lazy("paired t-test"))
    p_holm = serializers.FloatField(
        allow_null=True, help_text=gettext_lazy("Holm over the metrics compared")
    )
    wins = serializers.IntegerField(help_text=gettext_lazy("queries where B is higher"))
    ties = serializers.IntegerField()
    losses = serializers.IntegerField(help_text=gettext_lazy("queries where B is lower"))


class QueryChangeOutput(serializers.Serializer):
    query_id = serializers.CharField()
    text = serializers.CharField()
    category = serializers.CharField(allow_null=True)
    a = serializers.FloatField(help_text=gettext_lazy("the list's metric in run A"))
    b = serializers.FloatField(help_text=gettext_lazy("the list's metric in run B"))
    diff = serializers.FloatField(help_text=gettext_lazy("B − A"))
    also_a = serializers.FloatField(help_text=gettext_lazy("the `also` metric (nDCG@K) in run A"))
    also_b = serializers.FloatField(help_text=gettext_lazy("the `also` metric (nDCG@K) in run B"))


class QueryChangesOutput(serializers.Serializer):
    metric = serializers.CharField(help_text=gettext_lazy("recall@K at the headline K"))
    also = serializers.CharField(allow_null=True, help_text=gettext_lazy("ndcg@K, given beside it"))
    n = serializers.IntegerField(help_text=gettext_lazy("queries scored in both runs"))
    worse_count = serializers.IntegerField()
    better_count = serializers.IntegerField()
    ties = serializers.IntegerField(help_text=gettext_lazy("queries whose metric did not change"))
    worse = QueryChangeOutput(
        many=True, help_text=gettext_lazy("every query that got worse, worst first")
    )
    better = QueryChangeOutput(
        many=True, help_text=gettext_lazy("every query that got better, largest first")
    )


class CompareRunOutput(serializers.Serializer):
    id = serializers.IntegerField()
    retriever = serializers.CharField()
    created_at = serializers.DateTimeField()


class CompareOutput(serializers.Serializer):
    headline_k = serializers.IntegerField()
    a = CompareRunOutput()
    b = CompareRunOutput()
    version = serializers.CharField(help_text=gettext_lazy("the golden-set version of both runs"))
    settings = serializers.JSONField(
        help_text=gettext_lazy("A's settings, with which both runs are scored")
    )
    settings_differ = serializers.ListField(
        child=serializers.CharField(),
        help_text=gettext_lazy("settings B was run with that differ from A's"),
    )
    metrics = CompareMetricOutput(many=True)
    changes = QueryChangesOutput()
    scatter = serializers.ListField(
        child=serializers.DictField(),
        help_text=gettext_lazy("per query: query_id, a and b (Recall@K)"),
    )
    per_category = serializers.DictField(
        help_text=gettext_lazy("category → metric → {a, b, diff}, and n")
    )
    answers = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text=gettext_lazy(
            "answer and first-stage metrics both runs were scored on the same way, as metrics"
        ),
    )
    answers_not_comparable = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text=gettext_lazy(
            "metric → why it is not compared: a run has no answers (for the metrics that read "
            "a response), or the two runs' scorers differ (the rules and an answer judge, or "
            "two judges)"
        ),
    )
    pool_bias = serializers.DictField(
        required=False,
        help_text=gettext_lazy(
            "the share of the golden set's judged candidates each run's retriever put in the "
            "pools: a and b (0 to 1), gap (b - a), threshold (points) and warn (the shares "
            "differ by more than the threshold); absent without pool data"
        ),
    )
    no_answers = serializers.ListField(
        child=serializers.ChoiceField(choices=["a", "b"]),
        required=False,
        help_text=gettext_lazy(
            "the runs that have no answers (no query with a response): they are compared on "
            "context recall and retrieval only"
        ),
    )


class EvaluationCompareApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("a", int, required=True, description="Run A (reference)"),
            OpenApiParameter("b", int, required=True, description="Run B (compared with A)"),
        ],
        responses=CompareOutput,
        summary="Compare two runs on the same version: differences with CIs and p-values by "
        "metric, and the queries that got worse and better",
    )
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.VIEW)
        try:
            a_id, b_id = int(request.query_params["a"]), int(request.query_params["b"])
        except (KeyError, ValueError):
            raise serializers.ValidationError(
                {"detail": gettext("give two run ids as ?a=&b=")}
            ) from None
        runs = EvaluationRun.objects.select_related(
            "retriever", "version", "corpus_version"
        ).filter(project=project)
        a = get_object_or_404(runs, pk=a_id)
        b = get_object_or_404(runs, pk=b_id)
        try:
            return Response(compare_report(a=a, b=b))
        except RunInvalid as error:
            raise refusal(error) from None


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}runs/compare/", EvaluationCompareApi.as_view(), name="api-run-compare"),
]
