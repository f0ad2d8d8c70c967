"""What a project's overview page shows: where the work stands, for the caller's role."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Q

from annotation.models import Assignment, Chunk, GoldenSetVersion, Project, Query, QueryReview
from annotation.models.judging import AssignmentStatus, ReviewState


@dataclass(frozen=True)
class Overview:
    chunks: int
    queries: int
    my_open: int
    my_total: int
    # How the review stands (None when the caller may not see it: Action.OVERSEE).
    flagged: int | None
    resolved: int | None
    approved: int | None
    latest_version: GoldenSetVersion | None
    versions: int


def project_overview(*, project: Project, user: AbstractBaseUser, with_review: bool) -> Overview:
    """`with_review`: count the flagged, resolved and approved queries (leads and viewers)."""
    mine = Assignment.objects.filter(query__project=project, annotator_id=user.pk)
    reviews = QueryReview.objects.filter(query__project=project)
    counts: dict[str, int | None] = dict.fromkeys(("flagged", "resolved", "approved"))
    if with_review:
        counts = reviews.aggregate(
            flagged=Count("id", filter=Q(state=ReviewState.FLAGGED)),
            resolved=Count("id", filter=Q(state=ReviewState.RESOLVED)),
            approved=Count("id", filter=Q(state=ReviewState.APPROVED)),
        )
    versions = GoldenSetVersion.objects.filter(project=project).order_by("-created_at", "-id")
    return Overview(
        chunks=Chunk.objects.filter(project=project, removed=False).count(),
        queries=Query.objects.filter(project=project).count(),
        my_open=mine.exclude(status=AssignmentStatus.DONE).count(),
        my_total=mine.count(),
        flagged=counts["flagged"],
        resolved=counts["resolved"],
        approved=counts["approved"],
        latest_version=versions.first(),
        versions=versions.count(),
    )
