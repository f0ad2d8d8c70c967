"""Reads of retrievers: a project's, a retriever's baseline and its trend across runs."""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import QuerySet

from annotation.models import Project
from evaluation.models import (
    Baseline,
    EvaluationRun,
    Retriever,
    RunState,
)


def retrievers_of(*, project: Project) -> QuerySet[Retriever]:
    return Retriever.objects.filter(project=project).select_related("baseline")


def baseline_run_id(*, retriever: Retriever) -> int | None:
    return Baseline.objects.filter(retriever=retriever).values_list("run_id", flat=True).first()


def trend(*, retriever: Retriever, metrics: Sequence[str], limit: int = 50) -> dict[str, object]:
    """Each metric's mean across the retriever's finished runs (oldest first)."""
    runs = list(
        EvaluationRun.objects.filter(retriever=retriever, state=RunState.SUCCEEDED).order_by(
            "-created_at", "-id"
        )[:limit]
    )[::-1]
    series = {
        m: [((r.report.get("aggregate") or {}).get(m) or {}).get("mean") for r in runs]
        for m in metrics
    }
    return {
        "runs": [{"id": r.pk, "created_at": r.created_at, "version": r.version_id} for r in runs],
        "series": series,
        "baseline": baseline_run_id(retriever=retriever),
    }
