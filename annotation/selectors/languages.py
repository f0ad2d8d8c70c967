from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest

from annotation.models import UserLanguage

# The signed-in user's choice, kept in the session from sign-in on ("" when the browser's
# language decides), so that no request reads it from the database again (config/language.py).
SESSION_KEY = "goldsmith_language"


def user_language_of(user: AbstractBaseUser) -> str:
    """The language the user chose, or "" when the browser's language decides."""
    choice = UserLanguage.objects.filter(user=user).values_list("language", flat=True).first()
    return choice or ""


def remember_user_language(
    sender: Any, request: HttpRequest | None, user: AbstractBaseUser, **kwargs: Any
) -> None:
    """On `user_logged_in`: the user's choice into the new session."""
    session = getattr(request, "session", None)
    if session is not None:
        session[SESSION_KEY] = user_language_of(user)
