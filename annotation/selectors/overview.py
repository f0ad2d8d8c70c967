"""What a project's overview page shows: where the work stands, for the caller's role."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser

from ..models import Assignment, Chunk, GoldenSetVersion, Project, Query, QueryReview
from ..models.judging import AssignmentStatus, ReviewState


@dataclass(frozen=True)
class Overview:
    chunks: int
    queries: int
    my_open: int
    my_total: int
    flagged: int
    resolved: int
    approved: int
    latest_version: GoldenSetVersion | None
    versions: int


def project_overview(*, project: Project, user: AbstractBaseUser) -> Overview:
    mine = Assignment.objects.filter(query__project=project, annotator_id=user.pk)
    reviews = QueryReview.objects.filter(query__project=project)
    versions = GoldenSetVersion.objects.filter(project=project).order_by("-created_at", "-id")
    return Overview(
        chunks=Chunk.objects.filter(project=project, removed=False).count(),
        queries=Query.objects.filter(project=project).count(),
        my_open=mine.exclude(status=AssignmentStatus.DONE).count(),
        my_total=mine.count(),
        flagged=reviews.filter(state=ReviewState.FLAGGED).count(),
        resolved=reviews.filter(state=ReviewState.RESOLVED).count(),
        approved=reviews.filter(state=ReviewState.APPROVED).count(),
        latest_version=versions.first(),
        versions=versions.count(),
    )
