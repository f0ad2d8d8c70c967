from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.db import transaction
from django.utils import timezone

from ..models import ApiToken, Membership, Project, Role
from ..models.projects import token_digest
from ..text_input import single_line

User = get_user_model()


@dataclass(frozen=True)
class ProjectSetup:
    project: Project
    created_users: list[str]
    changed: bool


@transaction.atomic
def project_setup(
    *,
    name: str,
    leads: list[str],
    annotators: list[str] = (),  # type: ignore[assignment]
    viewers: list[str] = (),  # type: ignore[assignment]
    password: str | None = None,
) -> ProjectSetup:
    """Create the project and any missing users, and give each their role.

    Idempotent: running it again with the same arguments changes nothing. An existing user's
    password is never reset; an existing member keeps the highest role named.
    """
    name = single_line(name, "a project's name")
    if not name:
        raise ValueError("a project needs a name")
    if not leads:
        raise ValueError("a project needs at least one lead")
    project, changed = Project.objects.get_or_create(name=name.strip())
    created_users: list[str] = []
    wanted: dict[str, str] = {}
    # Later roles in this order do not override earlier ones: lead beats annotator beats viewer.
    for role, usernames in (
        (Role.LEAD, leads),
        (Role.ANNOTATOR, annotators),
        (Role.VIEWER, viewers),
    ):
        for username in usernames:
            wanted.setdefault(username, role)
    for username, role in wanted.items():
        user, user_created = User.objects.get_or_create(username=username)
        if user_created:
            if password:
                user.set_password(password)
            else:
                user.set_unusable_password()
            user.save()
            created_users.append(username)
        _membership, created = Membership.objects.update_or_create(
            project=project, user=user, defaults={"role": role}
        )
        changed = changed or created
    return ProjectSetup(project=project, created_users=created_users, changed=changed)


@transaction.atomic
def membership_set(*, project: Project, username: str, role: str) -> Membership:
    user = User.objects.filter(username=username).first()
    if user is None:
        raise ValueError(f"no user named {username!r}")
    if role not in Role.values:
        raise ValueError(f"unknown role {role!r}; use one of {', '.join(Role.values)}")
    membership, _ = Membership.objects.update_or_create(
        project=project, user=user, defaults={"role": role}
    )
    return membership


@dataclass(frozen=True)
class IssuedToken:
    token: ApiToken
    key: str  # shown once, never stored


def api_token_create(*, user: AbstractUser, name: str) -> IssuedToken:
    name = single_line(name, "a token's name")
    key = "gs_" + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        name=name or "token",
        prefix=key[: ApiToken.PREFIX_LENGTH],
        digest=token_digest(key),
    )
    return IssuedToken(token=token, key=key)


def api_token_revoke(*, user: AbstractUser, token_id: int) -> ApiToken:
    token = ApiToken.objects.get(pk=token_id, user=user)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token
