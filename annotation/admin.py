from django.contrib import admin

from .models import ApiToken, Chunk, Document, Membership, Project, Query


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "annotators_per_query", "kappa_threshold", "created_at"]
    search_fields = ["name"]
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["project", "user", "role"]
    list_filter = ["role", "project"]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "prefix", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = ["prefix", "digest", "created_at", "last_used_at"]


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
