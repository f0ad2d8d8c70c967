"""Evaluation runs under /api/v1/: one view per operation, thin.

For CI: create a run (POST .../runs/), poll it (GET .../runs/ID/), fetch its report
(GET .../runs/ID/report/). An auth header value can be written, never read.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.shapes import RefusalOutput
from annotation.permissions import Action, request_access
from evaluation.api.shapes import output_of, refusal, validated
from evaluation.models import AnswerJudge, EvaluationRun, Matching, Retriever
from evaluation.selectors.goldsets import versions_of
from evaluation.selectors.retrievers import baseline_run_id
from evaluation.selectors.runs import run_progress, runs_of
from evaluation.services.reports import RunInvalid, corpus_assumed, pool_unjudged, run_report_cached
from evaluation.services.runs import baseline_set, evaluation_run_cancel, evaluation_run_create
from sitewide.i18n import localized


class RunProgressOutput(serializers.Serializer):
    state = serializers.CharField()
    total = serializers.IntegerField()
    done = serializers.IntegerField()
    failed = serializers.IntegerField()
    progress = serializers.FloatField()
    seconds_left = serializers.FloatField(allow_null=True)
    error = serializers.CharField()


class VerdictMeanOutput(serializers.Serializer):
    metric = serializers.CharField(help_text=gettext_lazy("recall@K or pass@K at the headline K"))
    mean = serializers.FloatField(
        allow_null=True, help_text=gettext_lazy("null: no query was scored")
    )
    target = serializers.FloatField()
    floor = serializers.FloatField()
    band = serializers.ChoiceField(choices=["good", "fair", "poor"])


class VerdictJudgedOutput(serializers.Serializer):
    metric = serializers.CharField(help_text=gettext_lazy("judged@K at the headline K"))
    mean = serializers.FloatField(allow_null=True)
    min = serializers.FloatField(help_text=gettext_lazy("the judged@K a verdict needs"))


class VerdictBasisOutput(serializers.Serializer):
    total = serializers.IntegerField(help_text=gettext_lazy("queries of the golden set"))
    queries = serializers.IntegerField(help_text=gettext_lazy("queries the verdict rests on"))
    no_relevant = serializers.IntegerField(help_text=gettext_lazy("left out: no relevant chunk"))
    touched = serializers.IntegerField(
        help_text=gettext_lazy("left out: touched by a corpus update")
    )
    missing = serializers.IntegerField(help_text=gettext_lazy("missing from the run (scored 0)"))
    named = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text=gettext_lazy("the first query ids of each kind"),
    )
    left_out_share = serializers.FloatField()
    warning = serializers.BooleanField(
        help_text=gettext_lazy("more than 20% of the queries are left out or missing")
    )


class VerdictOutput(serializers.Serializer):
    verdict = serializers.ChoiceField(
        choices=["pass", "warn", "unjudged", "fail"],
        help_text=gettext_lazy(
            "pass: mean recall and pass rate meet their targets; fail: either is below "
            "its floor; warn: in between; unjudged: not enough judgments (judged@K under 0.8)"
        ),
    )
    judged = VerdictJudgedOutput(required=False)
    basis = VerdictBasisOutput(required=False)
    basis_words = serializers.CharField(
        required=False, help_text=gettext_lazy("what the verdict rests on, in plain words")
    )
    k = serializers.IntegerField(help_text=gettext_lazy("the headline K"))
    queries = serializers.IntegerField(help_text=gettext_lazy("queries in the means"))
    recall = VerdictMeanOutput()
    pass_rate = VerdictMeanOutput()
    pass_threshold = serializers.FloatField()
    summary = serializers.CharField(help_text=gettext_lazy("the verdict in plain words"))


class SignificanceOutput(serializers.Serializer):
    metric = serializers.CharField()
    n = serializers.IntegerField(help_text=gettext_lazy("queries scored in both runs"))
    before = serializers.FloatField(allow_null=True)
    after = serializers.FloatField(allow_null=True)
    diff = serializers.FloatField(allow_null=True, help_text=gettext_lazy("current − baseline"))
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    p_value = serializers.FloatField(
        allow_null=True, help_text=gettext_lazy("paired randomization test")
    )
    beyond_noise = serializers.BooleanField(help_text=gettext_lazy("p < 0.05"))
    words = serializers.CharField()


class FiredRuleOutput(serializers.Serializer):
    rule = serializers.ChoiceField(
        choices=["min_recall", "min_pass_rate", "max_recall_drop", "max_pass_rate_drop"]
    )
    value = serializers.FloatField(allow_null=True)
    limit = serializers.FloatField()
    baseline = serializers.FloatField(allow_null=True)
    message = serializers.CharField()
    significance = SignificanceOutput(allow_null=True, help_text=gettext_lazy("drops only"))


class SettingChangeOutput(serializers.Serializer):
    setting = serializers.ChoiceField(
        choices=["headline_k", "relevance_threshold", "matching", "pass_threshold"]
    )
    before = serializers.JSONField()
    after = serializers.JSONField()
    words = serializers.CharField(help_text=gettext_lazy("e.g. top-K 5 → 20"))


class DriftMeansOutput(serializers.Serializer):
    recall = serializers.FloatField(allow_null=True, help_text=gettext_lazy("mean Recall@K"))
    pass_rate = serializers.FloatField(allow_null=True, help_text=gettext_lazy("mean pass@K"))


class DriftLimitsOutput(serializers.Serializer):
    max_recall_drop = serializers.FloatField(
        allow_null=True, help_text=gettext_lazy("null: rule off")
    )
    max_pass_rate_drop = serializers.FloatField(
        allow_null=True, help_text=gettext_lazy("null: rule off")
    )
    recall_floor = serializers.FloatField()
    pass_rate_floor = serializers.FloatField()


class DriftOutput(serializers.Serializer):
    baseline_run = serializers.IntegerField()
    comparable = serializers.BooleanField(
        help_text=gettext_lazy(
            "false: a setting changed since the baseline; the drop rules were not applied"
        )
    )
    settings_changed = SettingChangeOutput(many=True)
    note = serializers.CharField()
    k = serializers.IntegerField(
        allow_null=True, help_text=gettext_lazy("the headline K (null: older runs)")
    )
    limits = DriftLimitsOutput(allow_null=True)
    current = DriftMeansOutput(allow_null=True)
    baseline = DriftMeansOutput(allow_null=True, help_text=gettext_lazy("null when not comparable"))
    fired = FiredRuleOutput(many=True)
    significance = serializers.DictField(child=SignificanceOutput())
    changed = serializers.ListField(
        child=serializers.ChoiceField(choices=["golden_set", "retriever_config", "corpus"])
    )
    newly_failing = serializers.ListField(child=serializers.CharField())
    untouched_queries = serializers.IntegerField(
        allow_null=True,
        help_text=gettext_lazy(
            "when a corpus update touched queries: the queries untouched in both runs, the "
            "only ones compared (null: every query)"
        ),
    )


class RunCorpusVersionOutput(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    content_hash = serializers.CharField()
    assumed = serializers.BooleanField(
        help_text=gettext_lazy(
            "true for HTTP retrievers and run files: the live corpus at run time, assumed"
        )
    )


class EvaluationRunOutput(serializers.Serializer):
    id = serializers.IntegerField()
    retriever = serializers.JSONField()
    version = serializers.JSONField()
    ks = serializers.ListField(child=serializers.IntegerField())
    relevance_threshold = serializers.IntegerField()
    gain = serializers.CharField()
    matching = serializers.CharField()
    pass_threshold = serializers.FloatField()
    tokenizer = serializers.CharField(
        help_text=gettext_lazy(
            "how the built-in retriever's index cut the texts (zh-words, zh-bigrams or "
            "default); empty for HTTP retrievers and run files"
        )
    )
    machine_grades = serializers.BooleanField(
        help_text=gettext_lazy(
            "count the version's machine grades as judged (false: those chunks are "
            "unjudged); the report states which"
        )
    )
    state = serializers.CharField()
    error = serializers.CharField()
    progress = RunProgressOutput()
    failed_queries = serializers.IntegerField()
    is_baseline = serializers.BooleanField()
    headline_k = serializers.IntegerField(
        allow_null=True, help_text=gettext_lazy("null on older runs")
    )
    verdict = serializers.ChoiceField(
        choices=["pass", "warn", "unjudged", "fail", ""],
        help_text=gettext_lazy("empty until the run has succeeded; unjudged: not enough judgments"),
    )
    verdict_detail = VerdictOutput(allow_null=True)
    corpus_version = RunCorpusVersionOutput(allow_null=True)
    corpus = serializers.JSONField(
        allow_null=True,
        help_text=gettext_lazy(
            "null unless the corpus moved under the golden set: what the update did, the "
            "touched queries and every metric over the untouched ones"
        ),
    )
    drift = DriftOutput(allow_null=True)
    headline = serializers.JSONField(allow_null=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


def _drift_output(drift: dict[str, Any] | None) -> dict[str, Any] | None:
    """A run's drift; reports stored before comparability and significance existed get their
    neutral values."""
    if drift is None:
        return None
    return {
        "comparable": True,
        "settings_changed": [],
        "note": "",
        "k": None,
        "limits": None,
        "current": None,
        "baseline": None,
        "significance": {},
        "untouched_queries": None,
        **drift,
        "fired": [{"significance": None, **f} for f in drift.get("fired") or []],
    }


def run_output(run: EvaluationRun) -> dict[str, Any]:
    stored = run.report or {}
    # the sentences of its verdict, corpus and drift in the reader's language
    report = localized(
        {part: stored.get(part) for part in ("verdict", "corpus", "drift")},
        stored.get("templates"),
    )
    drift = _drift_output(report.get("drift"))
    k = (run.report or {}).get("settings", {}).get("headline_k")
    agg = (run.report or {}).get("aggregate") or {}
    headline = (
        {
            m: agg[m]
            for m in (f"recall@{k}", f"ndcg@{k}", f"mrr@{k}", f"pass@{k}", f"judged@{k}")
            if m in agg
        }
        if agg
        else None
    )
    return output_of(
        EvaluationRunOutput,
        run,
        id=run.pk,
        retriever={"id": run.retriever_id, "name": run.retriever.name},
        version={
            "id": run.version_id,
            "label": run.version.label,
            "content_hash": run.version.content_hash,
        },
        progress=run_progress(run=run).as_dict(),
        is_baseline=baseline_run_id(retriever=run.retriever) == run.pk,
        verdict_detail=report.get("verdict"),
        corpus_version=(
            output_of(RunCorpusVersionOutput, run.corpus_version, assumed=corpus_assumed(run))
            if run.corpus_version is not None
            else None
        ),
        corpus=report.get("corpus"),
        drift=drift,
        headline=headline,
    )


class EvaluationRunInput(serializers.Serializer):
    retriever = serializers.CharField(help_text=gettext_lazy("Retriever id or name"))
    version = serializers.CharField(
        required=False,
        help_text=gettext_lazy("Version label or id; the latest version when absent"),
    )
    ks = serializers.ListField(child=serializers.IntegerField(min_value=1), required=False)
    relevance_threshold = serializers.ChoiceField(choices=[1, 2], default=2)
    gain = serializers.ChoiceField(choices=["linear", "exp"], default="linear")
    matching = serializers.ChoiceField(choices=Matching.choices, default=Matching.CHUNK)
    pass_threshold = serializers.FloatField(required=False, min_value=0, max_value=1)
    machine_grades = serializers.BooleanField(
        default=True,
        help_text=gettext_lazy(
            "count the version's machine grades as judged (false: those chunks are "
            "unjudged); the report states which"
        ),
    )
    answer_judge = serializers.CharField(
        required=False,
        help_text=gettext_lazy(
            "Answer judge id or name: it scores the open answers' correctness when the run "
            "finishes (the rules score the rest)"
        ),
    )


def _named(rows: QuerySet[Any], field: str, ref: str) -> Any:
    """The row of `rows` whose `field` is `ref`, else (a number) whose id is; None."""
    found = rows.filter(**{field: ref}).first()
    if found is None and ref.isdigit():
        found = rows.filter(pk=int(ref)).first()
    return found


def _find_answer_judge(project: Any, ref: str | None) -> AnswerJudge | None:
    found = _named(AnswerJudge.objects.filter(project=project), "name", ref) if ref else None
    if ref and found is None:
        raise RunInvalid(gettext("no answer judge %(ref)r in this project") % {"ref": ref})
    return found


def _find_retriever(project: Any, ref: str) -> Retriever:
    found = _named(Retriever.objects.filter(project=project), "name", ref)
    if found is None:
        raise serializers.ValidationError({"retriever": [f"no retriever {ref!r}"]})
    return found


def _find_version(project: Any, ref: str | None) -> Any:
    versions = versions_of(project=project)
    found = versions.first() if ref is None else _named(versions, "label", ref)
    if found is None:
        raise serializers.ValidationError({"version": [f"no golden-set version {ref or ''}"]})
    return found


class EvaluationRunListApi(APIView):
    @extend_schema(responses=EvaluationRunOutput(many=True), summary="Evaluation runs")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.VIEW)
        runs = runs_of(project=project)[:200]
        return Response([run_output(r) for r in runs])

    @extend_schema(
        request=EvaluationRunInput,
        responses={201: EvaluationRunOutput},
        summary="Start a run (lead)",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        v = validated(EvaluationRunInput, request)
        try:
            run = evaluation_run_create(
                project=project,
                retriever=_find_retriever(project, v["retriever"]),
                version=_find_version(project, v.get("version")),
                ks=v.get("ks"),
                relevance_threshold=int(v["relevance_threshold"]),
                gain=v["gain"],
                matching=v["matching"],
                pass_threshold=v.get("pass_threshold"),
                machine_grades=v["machine_grades"],
                answer_judge=_find_answer_judge(project, v.get("answer_judge")),
                by=request.user,
                trigger="api",
            )
        except RunInvalid as error:
            raise refusal(error) from None
        return Response(run_output(run), status=status.HTTP_201_CREATED)


def _run(request: Request, project_id: int, run_id: int, action: Action) -> EvaluationRun:
    project, _ = request_access(request, project_id, action)
    return get_object_or_404(
        EvaluationRun.objects.select_related("retriever", "version", "corpus_version"),
        project=project,
        pk=run_id,
    )


class EvaluationRunDetailApi(APIView):
    @extend_schema(responses=EvaluationRunOutput, summary="A run: state and progress (poll it)")
    def get(self, request: Request, project_id: int, run_id: int) -> Response:
        return Response(run_output(_run(request, project_id, run_id, Action.VIEW)))


class EvaluationRunReportApi(APIView):
    @extend_schema(
        responses={
            200: OpenApiTypes.OBJECT,
            409: OpenApiResponse(RefusalOutput, description="The run has not succeeded (yet)."),
        },
        parameters=[
            OpenApiParameter(
                name,
                {"type": "number", "minimum": 0, "maximum": 1},
                required=False,
                description=f"The quadrants' {what} threshold (0 to 1); by default the "
                "project's, else the run's pass threshold",
            )
            for name, what in (
                ("recall_threshold", "context recall"),
                ("correctness_threshold", "answer correctness"),
            )
        ],
        summary="A finished run's report (aggregates at every K with CIs, per category, "
        "answer metrics and quadrants, ...)",
    )
    def get(self, request: Request, project_id: int, run_id: int) -> Response:
        run = _run(request, project_id, run_id, Action.VIEW)
        thresholds: dict[str, float | None] = {}
        for name in ("recall_threshold", "correctness_threshold"):
            raw = request.query_params.get(name)
            if raw in (None, ""):
                continue
            try:
                value = float(raw)
            except ValueError:
                value = -1.0
            if not 0.0 <= value <= 1.0:
                raise serializers.ValidationError({name: [gettext("a number between 0 and 1")]})
            thresholds[name] = value
        if run.state != "succeeded":
            return Response(
                {
                    "detail": gettext(
                        "the run is %(state)s; its report comes when it has succeeded"
                    )
                    % {"state": run.get_state_display()}
                },
                status=status.HTTP_409_CONFLICT,
            )
        return Response(localized(run_report_cached(run, **thresholds)))


class EvaluationRunCancelApi(APIView):
    @extend_schema(request=None, responses=EvaluationRunOutput, summary="Cancel a run (lead)")
    def post(self, request: Request, project_id: int, run_id: int) -> Response:
        run = _run(request, project_id, run_id, Action.LEAD)
        evaluation_run_cancel(run=run)
        run.refresh_from_db()
        return Response(run_output(run))


class EvaluationRunBaselineApi(APIView):
    @extend_schema(
        request=None, responses=EvaluationRunOutput, summary="Make a run its retriever's baseline"
    )
    def post(self, request: Request, project_id: int, run_id: int) -> Response:
        run = _run(request, project_id, run_id, Action.LEAD)
        try:
            baseline_set(run=run, by=request.user)
        except RunInvalid as error:
            raise refusal(error) from None
        return Response(run_output(run))


class PoolUnjudgedOutput(serializers.Serializer):
    queries = serializers.IntegerField()
    chunks = serializers.IntegerField()
    new_candidates = serializers.IntegerField()
    skipped = serializers.IntegerField()


class EvaluationRunPoolApi(APIView):
    @extend_schema(
        request=None,
        responses=PoolUnjudgedOutput,
        summary="Send the unjudged chunks of the run's top K into the annotation pools (lead)",
    )
    def post(self, request: Request, project_id: int, run_id: int) -> Response:
        run = _run(request, project_id, run_id, Action.LEAD)
        try:
            outcome = pool_unjudged(run=run)
        except RunInvalid as error:
            raise refusal(error) from None
        return Response(outcome)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}runs/", EvaluationRunListApi.as_view(), name="api-run-list"),
    path(f"{P}runs/<int:run_id>/", EvaluationRunDetailApi.as_view(), name="api-run-detail"),
    path(f"{P}runs/<int:run_id>/report/", EvaluationRunReportApi.as_view(), name="api-run-report"),
    path(f"{P}runs/<int:run_id>/cancel/", EvaluationRunCancelApi.as_view(), name="api-run-cancel"),
    path(
        f"{P}runs/<int:run_id>/baseline/",
        EvaluationRunBaselineApi.as_view(),
        name="api-run-baseline",
    ),
    path(
        f"{P}runs/<int:run_id>/pool-unjudged/",
        EvaluationRunPoolApi.as_view(),
        name="api-run-pool-unjudged",
    ),
]
