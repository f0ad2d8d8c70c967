from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from annotation.models import UserLanguage


def user_language_of(user: AbstractBaseUser) -> str:
    """The language the user chose, or "" when the browser's language decides."""
    choice = UserLanguage.objects.filter(user=user).values_list("language", flat=True).first()
    return choice or ""
