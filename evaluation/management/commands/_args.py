"""Arguments of the evaluation commands: the golden-set version to run on, the retriever. The
project and the exit on bad input are every command's (annotation/management/commands/_args.py).
"""

from __future__ import annotations

from annotation.management.commands._args import bad_input
from annotation.models import Project
from annotation.models.goldsets import GoldenSetVersion
from evaluation.models import Retriever


def version_labelled(project: Project, label: str | None) -> GoldenSetVersion:
    versions = GoldenSetVersion.objects.filter(project=project).order_by("-created_at", "-id")
    version = (
        versions.first() if label in (None, "latest") else versions.filter(label=label).first()
    )
    if version is None:
        raise bad_input(f"project {project.name!r} has no golden-set version {label or ''}".strip())
    return version


def retriever_named(project: Project, name: str) -> Retriever:
    retriever = Retriever.objects.filter(project=project, name=name).first()
    if retriever is None:
        raise bad_input(f"project {project.name!r} has no retriever named {name!r}")
    return retriever
