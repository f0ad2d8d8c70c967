"""Projects, members and API tokens under /api/v1/: one view per operation, thin."""

from __future__ import annotations

from django.urls import path
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.shapes import RefusalOutput, conflict, invalid, validated
from annotation.models import (
    ApiToken,
    KappaWeights,
    Membership,
    Role,
    TieRule,
    Tokenizer,
    TokenizerOrigin,
)
from annotation.permissions import Action, may_create_projects, request_access
from annotation.selectors.projects import memberships_of
from annotation.services.adjudication import project_escalation_set, project_rules_change
from annotation.services.answers import project_annotators_write_answers_set
from annotation.services.projects import (
    DETECT_LANGUAGE,
    api_token_create,
    api_token_revoke,
    membership_remove,
    membership_set,
    project_archive,
    project_create,
    project_rename,
    project_restore,
    project_tokenizer_set,
)


# A project as its member sees it: it serializes the Membership, whose role is theirs.
class ProjectOutput(serializers.Serializer):
    id = serializers.IntegerField(source="project.pk")
    name = serializers.CharField(source="project.name")
    description = serializers.CharField(source="project.description")
    role = serializers.CharField()
    annotators_per_query = serializers.IntegerField(source="project.annotators_per_query")
    kappa_threshold = serializers.FloatField(source="project.kappa_threshold")
    tie_rule = serializers.ChoiceField(
        source="project.tie_rule",
        choices=TieRule.choices,
        help_text=gettext_lazy(
            "What a one-grade tie gets in a query that is not otherwise flagged"
        ),
    )
    kappa_weights = serializers.ChoiceField(
        source="project.kappa_weights",
        choices=KappaWeights.choices,
        help_text=gettext_lazy(
            "Which coefficient the flag rule compares with kappa_threshold: Cohen's kappa "
            "unweighted or linearly weighted (one grade apart counts half), Gwet's AC1, or "
            "Gwet's AC2 with linear weights (AC1 and AC2 stay high when annotators agree that "
            "most chunks are not relevant)"
        ),
    )
    escalate = serializers.BooleanField(
        source="project.escalate",
        help_text=gettext_lazy(
            "Whether a flagged query first goes to one more annotator before a lead"
        ),
    )
    annotators_write_answers = serializers.BooleanField(
        source="project.annotators_write_answers",
        help_text=gettext_lazy(
            "Whether annotators write reference answers and key facts after grading"
        ),
    )
    tokenizer = serializers.ChoiceField(
        source="project.tokenizer",
        choices=Tokenizer.choices,
        help_text=gettext_lazy(
            "How texts are cut into words for the built-in retrievers, highlighting, "
            "near-duplicates and clusters"
        ),
    )
    tokenizer_origin = serializers.ChoiceField(
        source="project.tokenizer_origin",
        choices=TokenizerOrigin.choices,
        help_text=gettext_lazy(
            "Who chose the tokenizer: nobody yet (the first import detects it from its "
            "texts' language), the first import, or a lead"
        ),
    )
    archived_at = serializers.DateTimeField(
        source="project.archived_at",
        allow_null=True,
        help_text=gettext_lazy(
            "When a lead archived the project (null: in use). An archived project keeps "
            "everything and leaves the default list"
        ),
    )


class RequiredBooleanField(serializers.BooleanField):
    """A boolean that must be given: DRF reads a boolean missing from a form-encoded body as
    false (an unchecked checkbox), which would switch a setting off by accident."""

    default_empty_html = serializers.empty


class MemberInput(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=Role.choices)


# One line of text (sitewide.text_input.single_line), said in the schema as a pattern.
ONE_LINE = r"^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$"


def _name_field(**kwargs: object) -> serializers.RegexField:
    return serializers.RegexField(
        ONE_LINE,
        max_length=120,
        error_messages={"invalid": gettext_lazy("a project's name is one line of text")},
        **kwargs,
    )


class ProjectCreateInput(serializers.Serializer):
    name = _name_field()
    description = serializers.CharField(required=False, allow_blank=True, default="")
    # Not a choice field: the tokenizer's choices plus "detect" would be a second enum of
    # the same name in the schema; the service names the values when one is wrong.
    tokenizer = serializers.CharField(
        default=DETECT_LANGUAGE,
        help_text=gettext_lazy(
            "How texts are cut into words: detect (the default: the first import decides), "
            "default, zh-words or zh-bigrams"
        ),
    )
    members = MemberInput(
        many=True,
        required=False,
        default=list,
        help_text=gettext_lazy("Existing users and their roles; the caller is the first lead"),
    )


class ArchivedQuery(serializers.Serializer):
    archived = serializers.BooleanField(required=False, default=False)


class ProjectListApi(APIView):
    @extend_schema(
        responses=ProjectOutput(many=True),
        parameters=[
            OpenApiParameter(
                "archived",
                bool,
                description="true: the caller's archived projects only (default: those in use)",
            )
        ],
        summary="The caller's projects",
    )
    def get(self, request: Request) -> Response:
        archived = validated(ArchivedQuery, request.query_params)["archived"]
        return Response(
            [ProjectOutput(m).data for m in memberships_of(request.user, archived=archived)]
        )

    @extend_schema(
        request=ProjectCreateInput,
        responses={
            201: ProjectOutput,
            400: OpenApiResponse(description="A field is wrong (the name taken, a user unknown)"),
            403: OpenApiResponse(RefusalOutput, description="The caller is not site staff"),
        },
        summary="Create a project (site staff); the caller is its first lead",
    )
    def post(self, request: Request) -> Response:
        if not may_create_projects(request.user):
            raise PermissionDenied(
                gettext("Only site staff may create projects: ask an administrator.")
            )
        values = validated(ProjectCreateInput, request.data)
        try:
            project = project_create(
                by=request.user,
                name=values["name"],
                description=values["description"],
                tokenizer=values["tokenizer"],
                members=[(m["username"], m["role"]) for m in values["members"]],
            )
        except ValueError as error:
            raise invalid("project", error) from None
        membership = Membership.objects.select_related("project").get(
            project=project, user=request.user
        )
        return Response(ProjectOutput(membership).data, status=status.HTTP_201_CREATED)


class ProjectRenameInput(serializers.Serializer):
    """A PATCH: what is given changes, what is left out stays."""

    name = _name_field(required=False)
    description = serializers.CharField(required=False, allow_blank=True)


class ProjectDetailApi(APIView):
    @extend_schema(responses=ProjectOutput, summary="One project (404 for non-members)")
    def get(self, request: Request, project_id: int) -> Response:
        _project, membership = request_access(request, project_id, Action.VIEW)
        return Response(ProjectOutput(membership).data)

    @extend_schema(
        request=ProjectRenameInput,
        responses={
            200: ProjectOutput,
            400: OpenApiResponse(description="The name is empty, too long or taken"),
            403: OpenApiResponse(RefusalOutput, description="The caller is not a lead"),
        },
        summary="Rename a project, or rewrite its description (lead)",
    )
    def patch(self, request: Request, project_id: int) -> Response:
        project, membership = request_access(request, project_id, Action.LEAD)
        data = validated(ProjectRenameInput, request.data)
        try:
            project_rename(
                project=project,
                name=data.get("name"),
                description=data.get("description"),
            )
        except ValueError as error:
            raise invalid("name", error) from None
        membership.project = project
        return Response(ProjectOutput(membership).data)


class ArchivedInput(serializers.Serializer):
    archived = RequiredBooleanField(
        help_text=gettext_lazy("true: archive the project (everything kept); false: restore it")
    )


class ProjectArchivedApi(APIView):
    @extend_schema(
        request=ArchivedInput,
        responses={
            200: ProjectOutput,
            403: OpenApiResponse(RefusalOutput, description="The caller is not a lead"),
        },
        summary="Archive a project or restore it (lead); nothing in it is deleted",
    )
    def put(self, request: Request, project_id: int) -> Response:
        project, membership = request_access(request, project_id, Action.LEAD)
        data = validated(ArchivedInput, request.data)
        if data["archived"]:
            project = project_archive(project=project, by=request.user)
        else:
            project = project_restore(project=project)
        membership.project = project
        return Response(ProjectOutput(membership).data)


class MemberOutput(serializers.Serializer):
    username = serializers.CharField(source="user.username")
    role = serializers.CharField()


class MemberListApi(APIView):
    @extend_schema(responses=MemberOutput(many=True), summary="Members of a project")
    def get(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.VIEW)
        members = project.memberships.select_related("user").order_by("user__username")
        return Response(MemberOutput(members, many=True).data)

    @extend_schema(
        request=MemberInput,
        responses={201: MemberOutput},
        summary="Add a member or change a role (lead)",
    )
    def post(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        data = validated(MemberInput, request.data)
        try:
            membership = membership_set(project=project, **data)
        except ValueError as error:
            raise invalid("username", error) from None
        return Response(MemberOutput(membership).data, status=status.HTTP_201_CREATED)


class TieRuleInput(serializers.Serializer):
    tie_rule = serializers.ChoiceField(choices=TieRule.choices)


RESETTLED_HELP = gettext_lazy(
    "Queries not yet approved whose outcome changed: flagged ↔ resolved, or resolved with "
    "other final grades; null when a worker settles them (queued)"
)
QUEUED_HELP = gettext_lazy(
    "true (with status 202) when the project has more finished queries than "
    "GOLDSMITH_SETTLE_IN_REQUEST_MAX: the setting is stored and a worker settles them again"
)


class TieRuleOutput(serializers.Serializer):
    tie_rule = serializers.ChoiceField(choices=TieRule.choices)
    resettled = serializers.IntegerField(allow_null=True, help_text=RESETTLED_HELP)
    queued = serializers.BooleanField(help_text=QUEUED_HELP)


class _SettleAgainApi(APIView):
    """PUT one of the settings that settle finished queries again (`project_rules_change`):
    200 with how many changed, or 202 when a worker settles them."""

    field: str
    input_class: type[serializers.Serializer]
    output_class: type[serializers.Serializer]

    def _put(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        value = validated(self.input_class, request.data)[self.field]
        change = project_rules_change(project=project, **{self.field: value})
        return Response(
            self.output_class(
                {self.field: value, "resettled": change.changed, "queued": change.queued}
            ).data,
            status=status.HTTP_202_ACCEPTED if change.queued else status.HTTP_200_OK,
        )


class ProjectTieRuleApi(_SettleAgainApi):
    field, input_class, output_class = "tie_rule", TieRuleInput, TieRuleOutput

    @extend_schema(
        request=TieRuleInput,
        responses={
            200: TieRuleOutput,
            202: OpenApiResponse(TieRuleOutput, description="Stored; a worker settles again"),
            403: OpenApiResponse(RefusalOutput, description="The caller is not a lead"),
        },
        summary="Set the tie rule (lead); queries not yet approved are settled again under it",
    )
    def put(self, request: Request, project_id: int) -> Response:
        return self._put(request, project_id)


class KappaWeightsInput(serializers.Serializer):
    kappa_weights = serializers.ChoiceField(choices=KappaWeights.choices)


class KappaWeightsOutput(serializers.Serializer):
    kappa_weights = serializers.ChoiceField(choices=KappaWeights.choices)
    resettled = serializers.IntegerField(allow_null=True, help_text=RESETTLED_HELP)
    queued = serializers.BooleanField(help_text=QUEUED_HELP)


class ProjectKappaWeightsApi(_SettleAgainApi):
    field, input_class, output_class = "kappa_weights", KappaWeightsInput, KappaWeightsOutput

    @extend_schema(
        request=KappaWeightsInput,
        responses={
            200: KappaWeightsOutput,
            202: OpenApiResponse(KappaWeightsOutput, description="Stored; a worker settles again"),
            403: OpenApiResponse(RefusalOutput, description="The caller is not a lead"),
        },
        summary="Choose the kappa the flag rule reads (lead); queries not yet approved are "
        "settled again",
    )
    def put(self, request: Request, project_id: int) -> Response:
        return self._put(request, project_id)


class EscalationInput(serializers.Serializer):
    escalate = RequiredBooleanField(
        help_text=gettext_lazy(
            "true: a flagged query first goes to one more annotator; false: to a lead"
        )
    )


class EscalationOutput(serializers.Serializer):
    escalate = serializers.BooleanField()
    escalated = serializers.IntegerField(
        help_text=gettext_lazy(
            "Flagged queries (not adjudicated, never escalated) given one more annotator "
            "now (switched on)"
        )
    )
    withdrawn = serializers.IntegerField(
        help_text=gettext_lazy(
            "Queries whose unfinished extra assignment was withdrawn; they went to a lead "
            "(switched off)"
        )
    )


class ProjectEscalationApi(APIView):
    @extend_schema(
        request=EscalationInput,
        responses={
            200: EscalationOutput,
            403: OpenApiResponse(RefusalOutput, description="The caller is not a lead"),
        },
        summary="Switch escalation to one more annotator on or off (lead)",
    )
    def put(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        escalate = validated(EscalationInput, request.data)["escalate"]
        change = project_escalation_set(project=project, escalate=escalate)
        return Response(EscalationOutput(change).data)


class AnnotatorAnswersInput(serializers.Serializer):
    annotators_write_answers = RequiredBooleanField(
        help_text=gettext_lazy(
            "true: annotators write reference answers and key facts after grading, and a lead "
            "merges them; false: only a lead sets answer keys"
        )
    )


class ProjectAnnotatorAnswersApi(APIView):
    @extend_schema(
        request=AnnotatorAnswersInput,
        responses={
            200: AnnotatorAnswersInput,
            403: OpenApiResponse(RefusalOutput, description="The caller is not a lead"),
        },
        summary="Switch on or off annotators writing reference answers and key facts (lead)",
    )
    def put(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        on = validated(AnnotatorAnswersInput, request.data)["annotators_write_answers"]
        project = project_annotators_write_answers_set(project=project, on=on)
        return Response(AnnotatorAnswersInput(project).data)


class TokenizerInput(serializers.Serializer):
    tokenizer = serializers.ChoiceField(choices=Tokenizer.choices)


class TokenizerOutput(serializers.Serializer):
    tokenizer = serializers.ChoiceField(choices=Tokenizer.choices)
    tokenizer_origin = serializers.ChoiceField(choices=TokenizerOrigin.choices)


class ProjectTokenizerApi(APIView):
    @extend_schema(
        request=TokenizerInput,
        responses={
            200: TokenizerOutput,
            403: OpenApiResponse(RefusalOutput, description="The caller is not a lead"),
        },
        summary="Choose the tokenizer (lead); imports no longer detect it. Pool and run again "
        "for the built-in retrievers to use it",
    )
    def put(self, request: Request, project_id: int) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        tokenizer = validated(TokenizerInput, request.data)["tokenizer"]
        project = project_tokenizer_set(project=project, tokenizer=tokenizer)
        return Response(TokenizerOutput(project).data)


class MemberDetailApi(APIView):
    @extend_schema(
        request=None,
        responses={
            204: None,
            403: OpenApiResponse(RefusalOutput, description="The caller is not a lead"),
            404: OpenApiResponse(RefusalOutput, description="No such project or member"),
            409: OpenApiResponse(RefusalOutput, description="The project's only lead"),
        },
        summary="Remove a member (lead); their last project's removal revokes their tokens",
    )
    def delete(self, request: Request, project_id: int, username: str) -> Response:
        project, _ = request_access(request, project_id, Action.LEAD)
        try:
            membership_remove(project=project, username=username)
        except Membership.DoesNotExist:
            raise NotFound(gettext("No such member.")) from None
        except ValueError as error:
            return conflict(error)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenOutput(serializers.ModelSerializer):
    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "expires_at", "revoked_at"]


class TokenCreatedOutput(TokenOutput):
    key = serializers.CharField(help_text=gettext_lazy("Shown once; only its hash is stored."))

    class Meta(TokenOutput.Meta):
        fields = [*TokenOutput.Meta.fields, "key"]


class TokenInput(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    expires_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        help_text=gettext_lazy(
            "When the token stops working (ISO 8601, in the future); never when absent."
        ),
    )

    def validate_expires_at(self, value):
        if value is not None and value <= timezone.now():
            raise serializers.ValidationError(gettext("The expiry must be in the future."))
        return value


TOKENS_NEED_A_PERSON = gettext_lazy(
    "A token cannot issue tokens: sign in and issue one from your session "
    "(for example on /api/docs/)."
)


class TokenListApi(APIView):
    @extend_schema(responses=TokenOutput(many=True), summary="The caller's API tokens")
    def get(self, request: Request) -> Response:
        return Response(TokenOutput(request.user.api_tokens.all(), many=True).data)

    @extend_schema(
        request=TokenInput,
        responses={
            201: TokenCreatedOutput,
            400: OpenApiResponse(OpenApiTypes.OBJECT, description="Each bad field and why"),
            403: OpenApiResponse(RefusalOutput, description="Sent with a token, not a session"),
        },
        summary="Issue a token (signed in by session only: 403 with a token)",
    )
    def post(self, request: Request) -> Response:
        # A token that could mint tokens would outlive its own revocation through them.
        if isinstance(request.auth, ApiToken):
            raise PermissionDenied(TOKENS_NEED_A_PERSON)
        data = validated(TokenInput, request.data)
        try:
            issued = api_token_create(
                user=request.user,
                name=data["name"],
                expires_at=data.get("expires_at"),
            )
        except ValueError as error:
            raise invalid("name", error) from None
        payload = dict(TokenOutput(issued.token).data, key=issued.key)
        return Response(payload, status=status.HTTP_201_CREATED)


class TokenRevokeApi(APIView):
    @extend_schema(request=None, responses={204: None}, summary="Revoke a token")
    def delete(self, request: Request, token_id: int) -> Response:
        try:
            api_token_revoke(user=request.user, token_id=token_id)
        except ApiToken.DoesNotExist:
            raise NotFound(gettext("No such token.")) from None
        return Response(status=status.HTTP_204_NO_CONTENT)


P = "projects/<int:project_id>/"
urlpatterns = [
    path("projects/", ProjectListApi.as_view(), name="api-project-list"),
    path(P, ProjectDetailApi.as_view(), name="api-project-detail"),
    path(f"{P}archived/", ProjectArchivedApi.as_view(), name="api-project-archived"),
    path(f"{P}tie-rule/", ProjectTieRuleApi.as_view(), name="api-tie-rule"),
    path(f"{P}kappa-weights/", ProjectKappaWeightsApi.as_view(), name="api-kappa-weights"),
    path(f"{P}escalation/", ProjectEscalationApi.as_view(), name="api-escalation"),
    path(
        f"{P}annotator-answers/", ProjectAnnotatorAnswersApi.as_view(), name="api-annotator-answers"
    ),
    path(f"{P}tokenizer/", ProjectTokenizerApi.as_view(), name="api-project-tokenizer"),
    path(f"{P}members/", MemberListApi.as_view(), name="api-member-list"),
    path(f"{P}members/<str:username>/", MemberDetailApi.as_view(), name="api-member-detail"),
    path("tokens/", TokenListApi.as_view(), name="api-token-list"),
    path("tokens/<int:token_id>/", TokenRevokeApi.as_view(), name="api-token-revoke"),
]
