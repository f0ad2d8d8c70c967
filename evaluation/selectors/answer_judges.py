"""Reads of answer judges."""

from __future__ import annotations

from django.db.models import QuerySet

from annotation.models import Project
from evaluation.models import (
    AnswerJudge,
)


def answer_judges_of(*, project: Project) -> QuerySet[AnswerJudge]:
    return AnswerJudge.objects.filter(project=project).order_by("name")
