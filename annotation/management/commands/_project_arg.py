"""`--project NAME|ID` for the judging commands."""

from __future__ import annotations

from django.core.management.base import CommandError

from annotation.models import Project


def project_from(value: str) -> Project:
    project = Project.objects.filter(name=value).first()
    if project is None and value.isdigit():
        project = Project.objects.filter(pk=int(value)).first()
    if project is None:
        raise CommandError(f"no project named {value!r}")
    return project
