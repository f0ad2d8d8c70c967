"""Arguments every command shares: `--project NAME|ID`, a golden-set version, a user.

Bad input exits 2 with a one-line reason (`bad_input`). The evaluation commands use these too
(evaluation/management/commands/_args.py adds a retriever and the latest version).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from annotation.models import GoldenSetVersion, Project


def bad_input(message: str) -> CommandError:
    """Exit 2 with `message` on one line."""
    return CommandError(" ".join(message.split()), returncode=2)


def project_named(value: str) -> Project:
    """The project named `value`, else the one whose id it is."""
    project = Project.objects.filter(name=value).first()
    if project is None and value.isdigit():
        project = Project.objects.filter(pk=int(value)).first()
    if project is None:
        raise bad_input(f"no project named {value!r}")
    return project


def version_labelled(project: Project, label: str) -> GoldenSetVersion:
    version = GoldenSetVersion.objects.filter(project=project, label=label).first()
    if version is None:
        labels = ", ".join(
            GoldenSetVersion.objects.filter(project=project).values_list("label", flat=True)
        )
        raise bad_input(f"no version {label!r} in {project.name} (it has: {labels or 'none'})")
    return version


def user_named(username: str | None):  # type: ignore[no-untyped-def]  # returns a User, which has no static type without django-stubs
    if not username:
        return None
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise bad_input(f"no user named {username!r}")
    return user
