"""One permission layer for pages and API alike.

A non-member gets 404 for anything of a project (its existence is not revealed); a member whose
role does not allow the action gets 403. Django's Http404 and PermissionDenied are turned into
the right responses by both Django views and DRF views.
"""

from __future__ import annotations

from enum import StrEnum

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy

from annotation.models import Membership, Project, Role


class Action(StrEnum):
    VIEW = "view"  # read the project, its golden sets and reports
    ANNOTATE = "annotate"  # grade own assignments
    LEAD = "lead"  # import, sample, pool, assign, adjudicate, freeze, configure
    # See how the review stands before a freeze: counts of flagged, resolved and approved
    # queries. Not annotators: knowing how far the others got must not sway a grade. Viewers
    # do not judge, so they may follow the progress.
    OVERSEE = "oversee"


ALLOWED_ROLES: dict[Action, frozenset[str]] = {
    Action.VIEW: frozenset({Role.LEAD, Role.ANNOTATOR, Role.VIEWER}),
    Action.ANNOTATE: frozenset({Role.LEAD, Role.ANNOTATOR}),
    Action.LEAD: frozenset({Role.LEAD}),
    Action.OVERSEE: frozenset({Role.LEAD, Role.VIEWER}),
}


# What a refused member is told: what their role may not do, and who may. Whole sentences per
# role, so that each language can word them its own way.
REFUSALS: dict[tuple[str, Action], str | Promise] = {
    (Role.ANNOTATOR, Action.LEAD): gettext_lazy(
        "An annotator of this project may not do this: only a lead can."
    ),
    (Role.VIEWER, Action.LEAD): gettext_lazy(
        "A viewer of this project may not do this: only a lead can."
    ),
    (Role.VIEWER, Action.ANNOTATE): gettext_lazy(
        "A viewer of this project may not grade: only annotators and leads can."
    ),
    (Role.ANNOTATOR, Action.OVERSEE): gettext_lazy(
        "An annotator of this project may not see how the review stands before a version is frozen."
    ),
}


def role_allows(role: str, action: Action) -> bool:
    return role in ALLOWED_ROLES[action]


def refusal(role: str, action: Action) -> str:
    """'An annotator of this project may not do this: only a lead can.'"""
    sentence = REFUSALS.get((role, action))
    if sentence is None:
        return gettext("Your role in this project does not allow this.")
    return str(sentence)


def may_create_projects(user: AbstractBaseUser | AnonymousUser) -> bool:
    """Site staff create projects (a user marked staff in the admin, every superuser), and
    anyone given the `annotation.add_project` permission; whoever creates one is its first
    lead (docs/projects.md)."""
    if not user.is_authenticated:
        return False
    return bool(getattr(user, "is_staff", False)) or user.has_perm("annotation.add_project")


def project_access(
    *, user: AbstractBaseUser | AnonymousUser, project_id: int, action: Action
) -> tuple[Project, Membership]:
    """The project and the caller's membership, if the caller may do `action` in it."""
    if not user.is_authenticated:
        raise Http404(gettext("No such project"))
    membership = (
        Membership.objects.select_related("project")
        .filter(project_id=project_id, user_id=user.pk)
        .first()
    )
    if membership is None:
        raise Http404(gettext("No such project"))
    if not role_allows(membership.role, action):
        raise PermissionDenied(refusal(membership.role, action))
    return membership.project, membership


def request_access(
    request: HttpRequest, project_id: int, action: Action
) -> tuple[Project, Membership]:
    """`project_access` for the user who made the request (a page's or an API view's)."""
    return project_access(user=request.user, project_id=project_id, action=action)
