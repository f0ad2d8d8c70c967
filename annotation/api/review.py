"""Leads' API: pools, assignment, the disagreement queue, adjudication, approval, agreement."""

from __future__ import annotations

from django.db.models import Count
from django.shortcuts import get_object_or_404
from django.urls import path
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.shapes import STORED_INT_MAX, RefusalOutput, conflict, invalid, validated
from annotation.models import Assignment, PoolBuild, PoolSource
from annotation.models.judging import AdjudicationReason, Escalation, Provenance, SourceKind
from annotation.models.projects import KappaWeights, TieRule
from annotation.permissions import Action, request_access
from annotation.selectors.judging import (
    adjudication_view,
    disagreement_queue,
    escalated_queue,
    resolved_queue,
)
from annotation.services.adjudication import (
    StaleReview,
    project_agreement_recompute,
    queries_approve,
    query_adjudicate,
    query_approve,
)
from annotation.services.agreement import project_agreement
from annotation.services.assignment import assignment_reassign, queries_assign
from annotation.services.pooling import (
    DEFAULT_K,
    PoolBuildBusy,
    pool_build_queue,
    pool_builds_fail_stale,
    pool_import_run,
)
from annotation.services.uploads import upload_file


class StaleReviewOutput(serializers.Serializer):
    detail = serializers.CharField()
    current_version = serializers.IntegerField(
        help_text=gettext_lazy("Send this version to try again.")
    )


# --- Pools ----------------------------------------------------------------------------------


class PoolSourceOutput(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.CharField()
    k = serializers.IntegerField()
    hits = serializers.IntegerField(source="n_hits")


class PoolResultOutput(serializers.Serializer):
    source = serializers.CharField()
    queries = serializers.IntegerField()
    hits = serializers.IntegerField()
    new_candidates = serializers.IntegerField()
    queries_with_new_candidates = serializers.IntegerField()
    reopened_queries = serializers.IntegerField(
        help_text=gettext_lazy("Finished queries that went back into their annotators' queues")
    )
    skipped = serializers.IntegerField(
        help_text=gettext_lazy("Run rows naming an unknown query or chunk")
    )


class PoolBuildInput(serializers.Serializer):
    retrievers = serializers.ListField(
        child=serializers.ChoiceField(choices=[SourceKind.BM25, SourceKind.TFIDF]),
        default=[SourceKind.BM25, SourceKind.TFIDF],
    )
    k = serializers.IntegerField(min_value=1, max_value=1000, default=DEFAULT_K)


class PoolRunInput(serializers.Serializer):
    name = serializers.CharField(max_length=120)
    format = serializers.ChoiceField(choices=["auto", "trec", "jsonl"], default="auto")
    k = serializers.IntegerField(min_value=1, max_value=1000, default=DEFAULT_K)
    file = serializers.FileField()


class PoolSourceListApi(APIView):
    @extend_schema(responses=PoolSourceOutput(many=True), summary="Pool sources (lead)")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        rows = PoolSource.objects.filter(project=project).annotate(n_hits=Count("hits"))
        return Response(PoolSourceOutput(rows, many=True).data)


class PoolBuildOutput(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)
    progress = serializers.FloatField(
        read_only=True, help_text=gettext_lazy("Share of the retrievers that have ended, 0–1")
    )
    results = PoolResultOutput(
        many=True,
        help_text=gettext_lazy("What each retriever added, in order, as each one ends"),
    )
    error = serializers.CharField(
        help_text=gettext_lazy("Why a failed build stopped, in the asking lead's language")
    )

    class Meta:
        model = PoolBuild
        fields = [
            "id",
            "status",
            "retrievers",
            "k",
            "progress",
            "results",
            "error",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
        ]


class PoolBuildApi(APIView):
    @extend_schema(
        request=PoolBuildInput,
        responses={202: PoolBuildOutput, 409: RefusalOutput},
        summary="Queue a build of the built-in retrievers' pools for every query (lead); a "
        "worker runs it: follow it at pools/builds/{id}/. 409 while another build runs",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        data = validated(PoolBuildInput, request.data)
        try:
            build = pool_build_queue(
                project=project, kinds=data["retrievers"], k=data["k"], created_by=request.user
            )
        except PoolBuildBusy as error:
            return conflict(error)
        except ValueError as error:
            raise invalid("retrievers", error) from None
        return Response(PoolBuildOutput(build).data, status=status.HTTP_202_ACCEPTED)


class PoolBuildListApi(APIView):
    @extend_schema(responses=PoolBuildOutput(many=True), summary="Pool builds, newest first (lead)")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        builds = PoolBuild.objects.filter(project=project).select_related("created_by")[:100]
        return Response(PoolBuildOutput(builds, many=True).data)


class PoolBuildDetailApi(APIView):
    @extend_schema(
        responses=PoolBuildOutput,
        summary="One pool build: its status and what each retriever added (lead)",
    )
    def get(self, request: Request, project_id: int, build_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        pool_builds_fail_stale(project=project)
        build = get_object_or_404(
            PoolBuild.objects.select_related("created_by"), pk=build_id, project=project
        )
        return Response(PoolBuildOutput(build).data)


class PoolRunImportApi(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request={"multipart/form-data": PoolRunInput},
        responses=PoolResultOutput,
        summary="Pool the top k of an imported production run, TREC or JSONL (lead)",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        data = validated(PoolRunInput, request.data)
        try:
            with upload_file(data["file"]) as copy:
                result = pool_import_run(
                    project=project,
                    name=data["name"],
                    path=copy,
                    format=data["format"],
                    k=data["k"],
                )
        except ValueError as error:  # FormatError is a ValueError: "FILE:LINE: msg"
            raise invalid("file", error) from None
        return Response(PoolResultOutput(result).data)


# --- Assignment -----------------------------------------------------------------------------


class AssignInput(serializers.Serializer):
    per_query = serializers.IntegerField(min_value=1, max_value=20, required=False)


class AssignOutput(serializers.Serializer):
    created = serializers.IntegerField()
    queries = serializers.IntegerField()
    annotators = serializers.IntegerField()


class AssignmentOutput(serializers.Serializer):
    id = serializers.IntegerField()
    query_id = serializers.IntegerField()
    annotator = serializers.CharField(source="annotator.username")
    order = serializers.IntegerField()
    status = serializers.CharField()
    judged = serializers.IntegerField()
    total = serializers.IntegerField()
    escalation = serializers.BooleanField(
        help_text=gettext_lazy("The one more annotator a flagged query got before going to a lead")
    )


class ReassignInput(serializers.Serializer):
    username = serializers.CharField(max_length=150)


class AssignApi(APIView):
    @extend_schema(
        request=AssignInput,
        responses=AssignOutput,
        summary="Give every pooled query N annotators, balancing load (lead)",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        data = validated(AssignInput, request.data)
        try:
            result = queries_assign(project=project, per_query=data.get("per_query"))
        except ValueError as error:
            raise invalid("per_query", error) from None
        return Response(AssignOutput(result).data)


class AssignmentFilterInput(serializers.Serializer):
    annotator = serializers.CharField(
        required=False, allow_blank=True, help_text=gettext_lazy("an annotator's username")
    )
    query = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=STORED_INT_MAX,
        help_text=gettext_lazy("a query's id"),
    )


class AssignmentListApi(APIView):
    @extend_schema(
        parameters=[AssignmentFilterInput],
        responses=AssignmentOutput(many=True),
        summary="Assignments of the project (lead)",
    )
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        # ?query=abc was ignored: every assignment
        filters = validated(AssignmentFilterInput, request.query_params)
        rows = Assignment.objects.filter(query__project=project).select_related("annotator")
        if filters.get("annotator"):
            rows = rows.filter(annotator__username=filters["annotator"])
        if "query" in filters:
            rows = rows.filter(query_id=filters["query"])
        rows = rows.order_by("query_id", "annotator__username")
        return Response(AssignmentOutput(rows, many=True).data)


class ReassignApi(APIView):
    @extend_schema(
        request=ReassignInput,
        responses=AssignmentOutput,
        summary="Give an assignment to another annotator (lead); the old one's grades go",
    )
    def post(self, request: Request, project_id: int, assignment_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        assignment = (
            Assignment.objects.select_related("query")
            .filter(pk=assignment_id, query__project=project)
            .first()
        )
        if assignment is None:
            raise NotFound(gettext("No such assignment"))
        data = validated(ReassignInput, request.data)
        try:
            assignment = assignment_reassign(assignment=assignment, to_username=data["username"])
        except ValueError as error:
            raise invalid("username", error) from None
        return Response(AssignmentOutput(assignment).data)


# --- Review ---------------------------------------------------------------------------------


class ReviewItemOutput(serializers.Serializer):
    query_id = serializers.IntegerField()
    text = serializers.CharField(source="query.text")
    category = serializers.CharField(source="query.category")
    state = serializers.CharField()
    version = serializers.IntegerField()
    kappa = serializers.FloatField(source="query.agreement.kappa", allow_null=True)
    raw_agreement = serializers.FloatField(source="query.agreement.raw_agreement", allow_null=True)
    flag_reasons = serializers.ListField(
        child=serializers.CharField(), source="query.agreement.flag_reasons"
    )


class ReviewQueueInput(serializers.Serializer):
    state = serializers.ChoiceField(
        choices=["flagged", "resolved", "escalated"],
        default="flagged",
        help_text=gettext_lazy("escalated: queries waiting for one more annotator"),
    )


class ReviewQueueApi(APIView):
    @extend_schema(
        parameters=[ReviewQueueInput],
        responses=ReviewItemOutput(many=True),
        summary="Flagged queries, lowest agreement first; or resolved ones awaiting approval; "
        "or those waiting for one more annotator",
    )
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        # ?state=typo showed the flagged queue
        filters = validated(ReviewQueueInput, request.query_params)
        if filters["state"] == "resolved":
            rows = resolved_queue(project=project)
        elif filters["state"] == "escalated":
            rows = escalated_queue(project=project)
        else:
            rows = disagreement_queue(project=project)
        return Response(ReviewItemOutput(rows, many=True).data)


class AnnotatorGradeOutput(serializers.Serializer):
    annotator = serializers.CharField()
    grade = serializers.IntegerField(allow_null=True)
    note = serializers.CharField()


class AdjudicationCandidateOutput(serializers.Serializer):
    candidate_id = serializers.IntegerField(min_value=1, max_value=STORED_INT_MAX)
    chunk_id = serializers.CharField()
    document_title = serializers.CharField()
    text = serializers.CharField()
    grades = AnnotatorGradeOutput(many=True)
    final = serializers.IntegerField(allow_null=True)
    provenance = serializers.CharField()
    suggested = serializers.IntegerField(allow_null=True)
    sources = serializers.ListField(child=serializers.DictField())


class AnnotatorNoteOutput(serializers.Serializer):
    annotator = serializers.CharField()
    flags = serializers.ListField(child=serializers.CharField())
    note = serializers.CharField()
    seconds_spent = serializers.FloatField()


class QueryAgreementOutput(serializers.Serializer):
    kappa = serializers.FloatField(allow_null=True)
    kappa_linear = serializers.FloatField(allow_null=True)
    raw_agreement = serializers.FloatField(allow_null=True)
    ac1 = serializers.FloatField(allow_null=True)
    flagged = serializers.BooleanField()
    flag_reasons = serializers.ListField(child=serializers.CharField())


class AdjudicationOutput(serializers.Serializer):
    query_id = serializers.IntegerField()
    text = serializers.CharField()
    category = serializers.CharField()
    state = serializers.CharField()
    version = serializers.IntegerField()
    reason = serializers.CharField()
    reason_note = serializers.CharField()
    escalation = serializers.ChoiceField(
        choices=Escalation.choices,
        help_text=gettext_lazy(
            "escalated: it went to one more annotator; no_annotator: escalation is on "
            "but nobody was left to ask, so it went to a lead"
        ),
    )
    agreement = QueryAgreementOutput(allow_null=True)
    annotators = AnnotatorNoteOutput(many=True)
    candidates = AdjudicationCandidateOutput(many=True)


def adjudication_output(view) -> dict[str, object]:
    review = view.review
    return {
        "query_id": view.query.pk,
        "text": view.query.text,
        "category": view.query.category,
        "state": review.state if review else "open",
        "version": review.version if review else 0,
        "reason": review.reason if review else "",
        "reason_note": review.reason_note if review else "",
        "escalation": review.escalation if review else "",
        "agreement": view.agreement,
        "annotators": [
            {
                "annotator": label,
                "flags": annotation.flag_names() if annotation else [],
                "note": annotation.note if annotation else "",
                "seconds_spent": annotation.seconds_spent if annotation else 0.0,
            }
            for label, annotation in view.annotations
        ],
        "candidates": [
            {
                "candidate_id": row.candidate_id,
                "chunk_id": row.chunk_id,
                "document_title": row.document_title,
                "text": row.text,
                "grades": [
                    {"annotator": label, "grade": grade, "note": note}
                    for label, grade, note in row.grades
                ],
                "final": row.final,
                "provenance": row.provenance,
                "suggested": row.suggested,
                "sources": [{"source": name, "rank": rank} for name, rank in row.sources],
            }
            for row in view.rows
        ],
    }


class FinalGradeInput(serializers.Serializer):
    candidate_id = serializers.IntegerField(min_value=1, max_value=STORED_INT_MAX)
    grade = serializers.ChoiceField(choices=[0, 1, 2])


class AdjudicateInput(serializers.Serializer):
    version = serializers.IntegerField(
        min_value=0,
        max_value=STORED_INT_MAX,
        help_text=gettext_lazy("The review version the lead saw (409 if stale)"),
    )
    grades = FinalGradeInput(many=True)
    reason = serializers.ChoiceField(choices=AdjudicationReason.choices)
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=5000)


class ApproveInput(serializers.Serializer):
    version = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=0, max_value=STORED_INT_MAX
    )


class ReviewStateOutput(serializers.Serializer):
    query_id = serializers.IntegerField()
    state = serializers.CharField()
    version = serializers.IntegerField()


class BulkApproveInput(serializers.Serializer):
    query_ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=STORED_INT_MAX), required=False
    )
    all_resolved = serializers.BooleanField(default=False)


class BulkApproveOutput(serializers.Serializer):
    approved = serializers.ListField(child=serializers.IntegerField())
    skipped = serializers.ListField(child=serializers.IntegerField())


class AdjudicationInput(serializers.Serializer):
    hide_names = serializers.BooleanField(
        default=False, help_text=gettext_lazy("annotators as A, B, C…")
    )


class AdjudicationApi(APIView):
    @extend_schema(
        parameters=[AdjudicationInput],
        responses=AdjudicationOutput,
        summary="Every annotator's grade and note per candidate, side by side (lead)",
    )
    def get(self, request: Request, project_id: int, query_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        options = validated(AdjudicationInput, request.query_params)
        hide = options["hide_names"]
        view = adjudication_view(project=project, query_id=query_id, hide_names=hide)
        if view is None:
            raise NotFound(gettext("No such query"))
        return Response(AdjudicationOutput(adjudication_output(view)).data)


class AdjudicateApi(APIView):
    @extend_schema(
        request=AdjudicateInput,
        responses={200: ReviewStateOutput, 409: StaleReviewOutput},
        summary="Set the final grades of a query and record why (lead; 409 on a stale version)",
    )
    def post(self, request: Request, project_id: int, query_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        if not project.queries.filter(pk=query_id).exists():
            raise NotFound(gettext("No such query"))
        data = validated(AdjudicateInput, request.data)
        try:
            review = query_adjudicate(
                project=project,
                query_id=query_id,
                by=request.user,
                version=data["version"],
                grades={g["candidate_id"]: int(g["grade"]) for g in data["grades"]},
                reason=data["reason"],
                note=data["note"],
            )
        except StaleReview as error:
            return conflict(error, current_version=error.current)
        except ValueError as error:
            raise invalid("grades", error) from None
        return Response(ReviewStateOutput(review).data)


class ApproveApi(APIView):
    @extend_schema(
        request=ApproveInput,
        responses={200: ReviewStateOutput, 409: StaleReviewOutput},
        summary="Approve one resolved query (lead)",
    )
    def post(self, request: Request, project_id: int, query_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        if not project.queries.filter(pk=query_id).exists():
            raise NotFound(gettext("No such query"))
        data = validated(ApproveInput, request.data)
        try:
            review = query_approve(
                project=project,
                query_id=query_id,
                by=request.user,
                version=data["version"],
            )
        except StaleReview as error:
            return conflict(error, current_version=error.current)
        except ValueError as error:
            raise invalid("query", error) from None
        return Response(ReviewStateOutput(review).data)


class BulkApproveApi(APIView):
    @extend_schema(
        request=BulkApproveInput,
        responses=BulkApproveOutput,
        summary="Approve many resolved queries at once (lead); others are skipped",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        data = validated(BulkApproveInput, request.data)
        ids = data.get("query_ids")
        if ids is None and not data["all_resolved"]:
            raise invalid("query_ids", gettext("name the queries or set all_resolved"))
        try:
            result = queries_approve(
                project=project,
                by=request.user,
                query_ids=None if data["all_resolved"] else ids,
            )
        except ValueError as error:
            raise invalid("query_ids", error) from None
        return Response(BulkApproveOutput(result).data)


# --- Agreement ------------------------------------------------------------------------------


class PairOutput(serializers.Serializer):
    a = serializers.CharField()
    b = serializers.CharField()
    kappa = serializers.FloatField(allow_null=True)
    n = serializers.IntegerField()


class AnnotatorStatsOutput(serializers.Serializer):
    annotator = serializers.CharField()
    assigned = serializers.IntegerField()
    done = serializers.IntegerField()
    judgments = serializers.IntegerField()
    seconds_per_query = serializers.FloatField(allow_null=True)
    agreement_with_final = serializers.FloatField(allow_null=True)


class OverallProgressOutput(serializers.Serializer):
    assigned = serializers.IntegerField()
    done = serializers.IntegerField()
    judgments = serializers.IntegerField()


class GuidelinesWarningOutput(serializers.Serializer):
    measure = serializers.CharField(help_text=gettext_lazy("the figure's name, in words"))
    metric = serializers.ChoiceField(choices=["alpha_ordinal", "kappa"])
    value = serializers.FloatField()
    limit = serializers.FloatField(help_text="0.6")
    items = serializers.IntegerField(help_text=gettext_lazy("judged chunks"))
    text = serializers.CharField(help_text=gettext_lazy("the warning in plain words"))


class DecidedByOutput(serializers.Serializer):
    provenance = serializers.ChoiceField(choices=Provenance.choices)
    label = serializers.CharField()
    count = serializers.IntegerField()


class ProjectAgreementOutput(serializers.Serializer):
    items = serializers.IntegerField()
    judgments = serializers.IntegerField()
    alpha_ordinal = serializers.FloatField(allow_null=True)
    raw_agreement = serializers.FloatField(allow_null=True)
    ac1 = serializers.FloatField(allow_null=True)
    kappa_histogram = serializers.ListField(child=serializers.DictField())
    pairwise = PairOutput(many=True)
    kappa = serializers.FloatField(
        allow_null=True, help_text=gettext_lazy("Mean pairwise Cohen's kappa")
    )
    annotators = AnnotatorStatsOutput(many=True)
    overall = OverallProgressOutput()
    states = serializers.DictField(child=serializers.IntegerField())
    tie_rule = serializers.ChoiceField(choices=TieRule.choices)
    kappa_weights = serializers.ChoiceField(
        choices=KappaWeights.choices,
        help_text=gettext_lazy("Which kappa the flag rule compares with the threshold"),
    )
    escalate = serializers.BooleanField(
        help_text=gettext_lazy("Whether a flagged query first goes to one more annotator")
    )
    decided_by = DecidedByOutput(
        many=True,
        help_text=gettext_lazy("How many final grades each rule decided, and how many a lead set"),
    )
    guidelines_warning = GuidelinesWarningOutput(
        allow_null=True,
        help_text=gettext_lazy(
            "present when Krippendorff's α (or, without it, the mean κ) is below 0.6: "
            "revisit the guidelines"
        ),
    )


class AgreementApi(APIView):
    @extend_schema(responses=ProjectAgreementOutput, summary="Project agreement summary (lead)")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        return Response(ProjectAgreementOutput(project_agreement(project=project)).data)


class AgreementRecomputeApi(APIView):
    @extend_schema(
        request=None,
        responses=ProjectAgreementOutput,
        summary="Recompute every query's agreement and flags from stored judgments (lead)",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        project_agreement_recompute(project=project)
        return Response(ProjectAgreementOutput(project_agreement(project=project)).data)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}pools/", PoolSourceListApi.as_view(), name="api-pool-sources"),
    path(f"{P}pools/build/", PoolBuildApi.as_view(), name="api-pool-build"),
    path(f"{P}pools/builds/", PoolBuildListApi.as_view(), name="api-pool-builds"),
    path(
        f"{P}pools/builds/<int:build_id>/",
        PoolBuildDetailApi.as_view(),
        name="api-pool-build-detail",
    ),
    path(f"{P}pools/runs/", PoolRunImportApi.as_view(), name="api-pool-run-import"),
    path(f"{P}assignments/", AssignmentListApi.as_view(), name="api-assignment-list"),
    path(f"{P}assignments/assign/", AssignApi.as_view(), name="api-assign"),
    path(
        f"{P}assignments/<int:assignment_id>/reassign/", ReassignApi.as_view(), name="api-reassign"
    ),
    path(f"{P}review/queue/", ReviewQueueApi.as_view(), name="api-review-queue"),
    path(f"{P}review/approve/", BulkApproveApi.as_view(), name="api-review-bulk-approve"),
    path(f"{P}review/queries/<int:query_id>/", AdjudicationApi.as_view(), name="api-adjudication"),
    path(
        f"{P}review/queries/<int:query_id>/adjudicate/",
        AdjudicateApi.as_view(),
        name="api-adjudicate",
    ),
    path(f"{P}review/queries/<int:query_id>/approve/", ApproveApi.as_view(), name="api-approve"),
    path(f"{P}agreement/", AgreementApi.as_view(), name="api-agreement"),
    path(
        f"{P}agreement/recompute/", AgreementRecomputeApi.as_view(), name="api-agreement-recompute"
    ),
]
