"""What every project page starts from, in both apps: the project, the caller's membership and
what their role lets the page offer (the header's links and the lead's buttons)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from annotation.models import Membership, Project
from annotation.permissions import Action, request_access, role_allows


def page_context(project: Project, membership: Membership, **extra: Any) -> dict[str, Any]:
    return {
        "project": project,
        "membership": membership,
        "can_lead": role_allows(membership.role, Action.LEAD),
        "can_annotate": role_allows(membership.role, Action.ANNOTATE),
        **extra,
    }


def project_page(
    request: HttpRequest, project_id: int, action: Action = Action.VIEW, **extra: Any
) -> dict[str, Any]:
    """The context of a page of the project, once the caller may take `action` there (else
    the 404 or 403 of `project_access`)."""
    project, membership = request_access(request, project_id, action)
    return page_context(project, membership, **extra)
