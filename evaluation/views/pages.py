"""What every evaluation page starts from: the project, the caller's membership and roles."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from annotation.permissions import Action, project_access, role_allows


def page_context(
    request: HttpRequest, project_id: int, action: Action = Action.VIEW
) -> dict[str, Any]:
    project, membership = project_access(user=request.user, project_id=project_id, action=action)
    return {
        "project": project,
        "membership": membership,
        "can_lead": role_allows(membership.role, Action.LEAD),
        "can_annotate": role_allows(membership.role, Action.ANNOTATE),
    }
