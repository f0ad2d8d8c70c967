"""The interface language a user chose (annotation.UserLanguage)."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation.models import UserLanguage


class UnknownLanguage(ValueError):
    pass


@transaction.atomic
def user_language_set(*, user: AbstractBaseUser, language: str) -> str:
    """Store `language` (a code of settings.LANGUAGES) as the user's choice; "" forgets the
    choice, so the browser's language decides again. Returns the stored code ("" when none)."""
    if language == "":
        UserLanguage.objects.filter(user=user).delete()
        return ""
    if language not in dict(settings.LANGUAGES):
        codes = ", ".join(code for code, _ in settings.LANGUAGES)
        raise UnknownLanguage(f"{language!r} is not a language of this site ({codes})")
    UserLanguage.objects.update_or_create(user=user, defaults={"language": language})
    return language
