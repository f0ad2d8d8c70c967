"""Secrets at rest: retriever auth headers are stored encrypted (Fernet, AES-128-CBC + HMAC).

The key is ``GOLDSMITH_ENCRYPTION_KEY`` (a Fernet key, or any passphrase) when set, else it is
derived from ``SECRET_KEY``. Rotating SECRET_KEY without setting GOLDSMITH_ENCRYPTION_KEY makes
stored headers unreadable (they must be entered again): :func:`decrypt` then raises
:class:`SecretUnavailable`, whose message names no secret.

A header may instead be read from an environment variable of the workers, but only from one
an operator exposed on purpose (:func:`environment_refusal`), never from the server's own.
"""

from __future__ import annotations

import base64
import hashlib
import os

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings
from django.utils.translation import gettext

# Headers that carry credentials: a retriever's or a judge's plain headers may not hold them,
# they belong in its auth header, which is stored encrypted (names compared in lower case).
CREDENTIAL_HEADERS = frozenset(
    {"authorization", "cookie", "x-api-key", "proxy-authorization", "host"}
)


class SecretUnavailable(Exception):
    pass


def _fernet() -> Fernet:
    material = settings.GOLDSMITH_ENCRYPTION_KEY or f"goldsmith-secrets:{settings.SECRET_KEY}"
    key = base64.urlsafe_b64encode(hashlib.sha256(material.encode()).digest())
    return Fernet(key)


def encrypt(value: str) -> str:
    return _fernet().encrypt(value.encode()).decode("ascii")


def decrypt(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode("ascii")).decode()
    except (InvalidToken, ValueError):
        raise SecretUnavailable(
            gettext(
                "the stored auth header cannot be decrypted (was the key changed?); enter it again"
            )
        ) from None


# Never readable by a retriever, whatever the allow-list says: the server's own secrets.
SERVER_SECRETS = frozenset({"SECRET_KEY", "DATABASE_URL", "REDIS_URL", "GOLDSMITH_ENCRYPTION_KEY"})
EXPOSED_PREFIX = "GOLDSMITH_SECRET_"


def environment_refusal(name: str) -> str | None:
    """Why a retriever may not read environment variable `name`, or None when it may.

    A lead names the variable, but its value is sent to the lead's URL: only variables an
    operator exposed on purpose may be read, those whose name starts with ``GOLDSMITH_SECRET_``
    and those listed in the ``GOLDSMITH_RETRIEVER_SECRET_ENV`` setting. The message names the
    variable and the rule, never a value.
    """
    allowed = set(getattr(settings, "GOLDSMITH_RETRIEVER_SECRET_ENV", ()) or ())
    if name not in SERVER_SECRETS and (name.startswith(EXPOSED_PREFIX) or name in allowed):
        return None
    return gettext(
        "environment variable %(name)s may not be used for an auth header: only variables "
        "named %(prefix)s… or listed in the GOLDSMITH_RETRIEVER_SECRET_ENV setting may be (an "
        "operator exposes them on purpose)"
    ) % {"name": name, "prefix": EXPOSED_PREFIX}


def from_environment(name: str) -> str:
    """The value of a named environment variable on the worker, if it may be used at all
    (checked here again, right before use: a retriever saved before the rule existed, or
    changed behind the service, must not send the server's secrets)."""
    refusal = environment_refusal(name)
    if refusal is not None:
        raise SecretUnavailable(refusal)
    value = os.environ.get(name)
    if value is None:
        raise SecretUnavailable(
            gettext("environment variable %(name)s is not set on the worker") % {"name": name}
        )
    return value
