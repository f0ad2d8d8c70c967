from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from annotation.models import Membership


def memberships_of(user: AbstractBaseUser, *, archived: bool = False) -> QuerySet[Membership]:
    """The caller's memberships with their projects, for lists and navigation: of projects in
    use, or (`archived`) of archived ones only."""
    return (
        Membership.objects.filter(user_id=user.pk, project__archived_at__isnull=not archived)
        .select_related("project")
        .order_by("project__name")
    )
