from __future__ import annotations

from django.conf import settings
from django.db import models


class UserLanguage(models.Model):
    """The interface language a user picked in the page header. No row: the browser's
    language (Accept-Language) decides. Applied at sign-in and on every request
    (config/language.py)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="language_choice"
    )
    language = models.CharField(max_length=16, choices=settings.LANGUAGES)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.language}"


def acting_user() -> models.ForeignKey:
    """The user who did something to a row (created, approved it...): null once that user is
    deleted, the row kept; no reverse accessor on the user."""
    return models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
