"""Secrets at rest: retriever auth headers are stored encrypted (Fernet, AES-128-CBC + HMAC).

The key is ``GOLDSMITH_ENCRYPTION_KEY`` (a Fernet key, or any passphrase) when set, else it is
derived from ``SECRET_KEY``. Rotating SECRET_KEY without setting GOLDSMITH_ENCRYPTION_KEY makes
stored headers unreadable (they must be entered again): :func:`decrypt` then raises
:class:`SecretUnavailable`, whose message names no secret.
"""

from __future__ import annotations

import base64
import hashlib
import os

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings


class SecretUnavailable(Exception):
    pass


def _fernet() -> Fernet:
    raw = os.environ.get("GOLDSMITH_ENCRYPTION_KEY", "").strip()
    material = raw or f"goldsmith-secrets:{settings.SECRET_KEY}"
    key = base64.urlsafe_b64encode(hashlib.sha256(material.encode()).digest())
    return Fernet(key)


def encrypt(value: str) -> str:
    return _fernet().encrypt(value.encode()).decode("ascii")


def decrypt(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode("ascii")).decode()
    except (InvalidToken, ValueError):
        raise SecretUnavailable(
            "the stored auth header cannot be decrypted (was the key changed?); enter it again"
        ) from None


def from_environment(name: str) -> str:
    """The value of a named environment variable on the worker."""
    value = os.environ.get(name)
    if value is None:
        raise SecretUnavailable(f"environment variable {name} is not set on the worker")
    return value
