from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.utils.translation import gettext_lazy, ngettext

from annotation.models import ApiToken, Chunk, Document, Membership, Project, Query
from annotation.services.projects import (
    api_tokens_revoke_all,
    api_tokens_revoke_without_membership,
    user_deactivate,
)


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "annotators_per_query", "kappa_threshold", "created_at"]
    search_fields = ["name"]
    inlines = [MembershipInline]

    def save_formset(self, request, form, formset, change):
        super().save_formset(request, form, formset, change)
        # Removing someone's last membership revokes their tokens, here as on the members page.
        for membership in getattr(formset, "deleted_objects", []):
            if isinstance(membership, Membership):
                api_tokens_revoke_without_membership(user=membership.user)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["project", "user", "role"]
    list_filter = ["role", "project"]

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        api_tokens_revoke_without_membership(user=obj.user)

    def delete_queryset(self, request, queryset):
        users = {m.user for m in queryset.select_related("user")}
        super().delete_queryset(request, queryset)
        for user in users:
            api_tokens_revoke_without_membership(user=user)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "user",
        "prefix",
        "created_at",
        "last_used_at",
        "expires_at",
        "revoked_at",
    ]
    readonly_fields = ["prefix", "digest", "created_at", "last_used_at"]


# Deactivating a user revokes their API tokens for good (a reactivation does not revive them).
admin.site.unregister(get_user_model())


@admin.register(get_user_model())
class GoldsmithUserAdmin(UserAdmin):
    actions = ["deactivate"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change and "is_active" in form.changed_data and not obj.is_active:
            revoked = api_tokens_revoke_all(user=obj)
            if revoked:
                messages.info(
                    request,
                    ngettext(
                        "%(username)s is deactivated: %(count)s API token was revoked.",
                        "%(username)s is deactivated: %(count)s API tokens were revoked.",
                        revoked,
                    )
                    % {"username": obj.username, "count": revoked},
                )

    @admin.action(
        description=gettext_lazy("Deactivate the selected users and revoke their API tokens")
    )
    def deactivate(self, request, queryset):
        for user in queryset:
            user_deactivate(user=user)
        count = queryset.count()
        messages.success(
            request,
            ngettext("Deactivated %(count)s user.", "Deactivated %(count)s users.", count)
            % {"count": count},
        )


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["doc_id", "project", "title"]
    list_filter = ["project"]
    search_fields = ["doc_id", "title"]


@admin.register(Chunk)
class ChunkAdmin(admin.ModelAdmin):
    list_display = ["chunk_id", "project", "document", "position", "text_changed", "removed"]
    list_filter = ["project", "text_changed", "removed"]
    search_fields = ["chunk_id"]
    raw_id_fields = ["document"]


@admin.register(Query)
class QueryAdmin(admin.ModelAdmin):
    list_display = ["text", "project", "category", "stratum", "weight"]
    list_filter = ["project", "category"]
    search_fields = ["text"]


# --- Judging (pools, assignments, judgments, review) ----------------------------------------
from annotation.models import judging as judging_models  # noqa: E402


@admin.register(judging_models.PoolSource)
class PoolSourceAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "kind", "k", "created_at"]
    list_filter = ["project", "kind"]


@admin.register(judging_models.Candidate)
class CandidateAdmin(admin.ModelAdmin):
    list_display = ["id", "query", "chunk", "created_at"]
    raw_id_fields = ["query", "chunk"]


@admin.register(judging_models.Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["query", "annotator", "order", "status", "judged", "total"]
    list_filter = ["status"]
    raw_id_fields = ["query"]


@admin.register(judging_models.Judgment)
class JudgmentAdmin(admin.ModelAdmin):
    list_display = ["candidate", "annotator", "grade", "guideline_version", "updated_at"]
    list_filter = ["grade"]
    raw_id_fields = ["candidate"]


@admin.register(judging_models.Guideline)
class GuidelineAdmin(admin.ModelAdmin):
    list_display = ["project", "version", "created_by", "created_at"]


@admin.register(judging_models.QueryReview)
class QueryReviewAdmin(admin.ModelAdmin):
    list_display = ["query", "state", "version", "reason", "approved_by", "approved_at"]
    list_filter = ["state", "reason"]
    raw_id_fields = ["query"]


@admin.register(judging_models.Resolution)
class ResolutionAdmin(admin.ModelAdmin):
    list_display = ["candidate", "grade", "provenance", "reason", "resolved_by", "resolved_at"]
    list_filter = ["provenance", "grade"]
    raw_id_fields = ["candidate"]


# --- Golden-set versions: read-only, because a frozen version never changes ------------------

from annotation.models import GoldenItem, GoldenJudgment, GoldenSetVersion  # noqa: E402


class FrozenAdmin(admin.ModelAdmin):
    """Lists and shows frozen rows; no add, change or delete (a POST answers 403)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(GoldenSetVersion)
class GoldenSetVersionAdmin(FrozenAdmin):
    list_display = ["label", "project", "content_hash", "query_count", "judgment_count", "origin",
                    "created_by", "created_at"]  # fmt: skip
    list_filter = ["project", "origin"]
    search_fields = ["label", "content_hash", "note"]


@admin.register(GoldenItem)
class GoldenItemAdmin(FrozenAdmin):
    list_display = ["query_id", "version", "text", "category", "stratum", "split"]
    list_filter = ["version__project"]
    search_fields = ["query_id", "text"]
    list_select_related = ["version"]


@admin.register(GoldenJudgment)
class GoldenJudgmentAdmin(FrozenAdmin):
    list_display = ["chunk_id", "item", "grade", "provenance"]
    list_filter = ["grade", "provenance"]
    search_fields = ["chunk_id"]
    list_select_related = ["item"]


# --- Corpus imports, query logs, samples ------------------------------------------------------
from annotation.models import CorpusImport, LogQuery, QueryLog, Sample, ScrubPattern  # noqa: E402


@admin.register(CorpusImport)
class CorpusImportAdmin(admin.ModelAdmin):
    list_display = ["filename", "project", "status", "mode", "records", "chunks_created",
                    "chunks_changed", "chunks_removed", "created_at"]  # fmt: skip
    list_filter = ["project", "status"]
    readonly_fields = ["sha256", "error", "upload_path"]


@admin.register(QueryLog)
class QueryLogAdmin(admin.ModelAdmin):
    list_display = ["filename", "project", "status", "lines", "distinct", "created_at"]
    list_filter = ["project", "status"]
    readonly_fields = ["sha256", "scrubbed", "report", "error", "upload_path"]


@admin.register(LogQuery)
class LogQueryAdmin(admin.ModelAdmin):
    list_display = ["text", "log", "count", "category", "band", "cluster", "near_group"]
    list_filter = ["log", "band"]
    search_fields = ["text"]
    raw_id_fields = ["log"]


@admin.register(ScrubPattern)
class ScrubPatternAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "pattern"]
    list_filter = ["project"]


@admin.register(Sample)
class SampleAdmin(admin.ModelAdmin):
    list_display = ["id", "project", "strategy", "by", "allocation", "seed", "n_chosen",
                    "created_at"]  # fmt: skip
    list_filter = ["project", "strategy"]
    readonly_fields = ["log_sha256", "params", "strata"]
