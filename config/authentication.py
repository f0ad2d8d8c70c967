"""Sign-in by password (throttled) and token auth for CI clients (`Authorization: Token gs_…`;
only the key's sha256 is stored)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.utils import timezone
from django.utils.translation import gettext
from rest_framework import authentication, exceptions

from annotation.models import ApiToken
from annotation.models.projects import token_digest
from config.throttling import client_address, signin_failed, signin_refusal, signin_succeeded


class ThrottledModelBackend(ModelBackend):
    """Django's password check, refused while the account or the address has failed too often
    (config/throttling.py). Every password sign-in goes through it: the sign-in page, the
    admin's, and any future one. The refusal is left on the request for the page to show."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is None or password is None:
            return None
        address = client_address(request)
        refusal = signin_refusal(username=username, address=address)
        if refusal is not None:
            if request is not None:
                request.signin_refusal = refusal
            raise PermissionDenied(refusal.reason)  # stops Django trying other backends
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            signin_failed(username=username, address=address)
        else:
            signin_succeeded(username=username)
        return user


class HashedTokenAuthentication(authentication.TokenAuthentication):
    keyword = "Token"

    def authenticate_credentials(self, key: str):  # type: ignore[override]  # DRF's base method is untyped; same arguments
        token = ApiToken.objects.select_related("user").filter(digest=token_digest(key)).first()
        if token is None:
            raise exceptions.AuthenticationFailed(gettext("Invalid token."))
        if token.revoked_at is not None:
            raise exceptions.AuthenticationFailed(
                gettext("This token was revoked on %(revoked_at)s UTC.")
                % {"revoked_at": f"{token.revoked_at:%Y-%m-%d %H:%M}"}
            )
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed(gettext("This token's account is deactivated."))
        if token.has_expired:
            raise exceptions.AuthenticationFailed(
                gettext("This token expired on %(expires_at)s UTC; sign in and issue a new one.")
                % {"expires_at": f"{token.expires_at:%Y-%m-%d %H:%M}"}
            )
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
        return token.user, token
