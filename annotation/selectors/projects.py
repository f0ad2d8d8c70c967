from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from annotation.models import Membership


def memberships_of(user: AbstractBaseUser) -> QuerySet[Membership]:
    """The caller's memberships with their projects, for lists and navigation."""
    return (
        Membership.objects.filter(user_id=user.pk)
        .select_related("project")
        .order_by("project__name")
    )
