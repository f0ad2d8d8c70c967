from __future__ import annotations

from django.http import HttpRequest

from annotation.selectors.projects import memberships_of


def navigation(request: HttpRequest) -> dict[str, object]:
    """The signed-in user's projects, so the layout shows only what they may open."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"nav_memberships": []}
    return {"nav_memberships": list(memberships_of(user))}
