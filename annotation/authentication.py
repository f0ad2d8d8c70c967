"""Token auth for CI clients: `Authorization: Token gs_…`; only the key's sha256 is stored."""

from __future__ import annotations

from django.utils import timezone
from rest_framework import authentication, exceptions

from .models import ApiToken
from .models.projects import token_digest


class HashedTokenAuthentication(authentication.TokenAuthentication):
    keyword = "Token"

    def authenticate_credentials(self, key: str):  # type: ignore[override]
        token = (
            ApiToken.objects.select_related("user")
            .filter(digest=token_digest(key), revoked_at__isnull=True)
            .first()
        )
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
        return token.user, token
