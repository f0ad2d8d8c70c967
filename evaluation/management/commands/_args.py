"""Shared arguments of the evaluation commands: exit 2 with a one-line reason on bad input."""

from __future__ import annotations

from django.core.management.base import CommandError

from annotation.models import Project
from annotation.models.goldsets import GoldenSetVersion
from evaluation.models import Retriever


def bad_input(message: str) -> CommandError:
    return CommandError(" ".join(message.split()), returncode=2)


def project_named(value: str) -> Project:
    project = Project.objects.filter(name=value).first()
    if project is None and value.isdigit():
        project = Project.objects.filter(pk=int(value)).first()
    if project is None:
        raise bad_input(f"no project named {value!r}")
    return project


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
