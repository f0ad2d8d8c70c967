"""Sign-in and API-token throttling, counted in the shared cache (config/settings.py CACHES:
Redis, or a database table), so that every web process sees the same counts.

Sign-in: an account is refused for GOLDSMITH_SIGNIN_LOCKOUT_SECONDS once
GOLDSMITH_SIGNIN_FAILURES_PER_ACCOUNT passwords failed for it within that time (counted from the
first failure), whatever the address; an address likewise after
GOLDSMITH_SIGNIN_FAILURES_PER_ADDRESS failures, whatever the accounts. While refused, the
password is not even checked, so the right one does not get in either. A successful sign-in
clears its account's count, never its address's (one known password must not buy more guesses
at other accounts).

Tokens: requests authenticated by an API token are limited per minute per account and per
address (GOLDSMITH_TOKEN_REQUESTS_PER_MINUTE[_PER_ADDRESS]); the browser's session is not.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import ngettext
from rest_framework.throttling import BaseThrottle

from annotation.models import ApiToken


def client_address(request: HttpRequest | None) -> str | None:
    """The caller's address: the connection's, or behind a proxy the last address in the header
    named by GOLDSMITH_CLIENT_ADDRESS_HEADER (the one our own proxy added; whatever the client
    wrote comes before it). Any other header a client sends is ignored."""
    if request is None:
        return None
    meta = getattr(request, "META", {})
    raw = ""
    if settings.GOLDSMITH_CLIENT_ADDRESS_HEADER:
        header = "HTTP_" + settings.GOLDSMITH_CLIENT_ADDRESS_HEADER.upper().replace("-", "_")
        raw = meta.get(header, "").split(",")[-1].strip()
    raw = raw or meta.get("REMOTE_ADDR", "")
    try:
        return str(ipaddress.ip_address(raw))
    except ValueError:
        return raw[:100] or None


def _key(*parts: str) -> str:
    """A cache key of fixed length whatever the username or address holds."""
    kind, value = parts[:-1], parts[-1]
    return ":".join(["throttle", *kind, hashlib.sha256(value.encode()).hexdigest()[:40]])


def _count_up(key: str, timeout: int) -> int:
    """Adds one to a counter that lives `timeout` seconds from its first count."""
    cache.add(key, 0, timeout)
    try:
        return cache.incr(key)
    except ValueError:  # it expired between the two calls
        cache.set(key, 1, timeout)
        return 1


# --- Sign-in --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SignInRefusal:
    reason: str
    retry_after: int  # seconds


def _signin_counters(username: str, address: str | None) -> list[tuple[str, str, int]]:
    """(cache key, what it counts: "account" or "address", limit) of each count a sign-in
    belongs to."""
    counters = [
        (
            _key("signin", "account", username),
            "account",
            settings.GOLDSMITH_SIGNIN_FAILURES_PER_ACCOUNT,
        )
    ]
    if address:
        counters.append(
            (
                _key("signin", "address", address),
                "address",
                settings.GOLDSMITH_SIGNIN_FAILURES_PER_ADDRESS,
            )
        )
    return counters


def signin_refusal(*, username: str, address: str | None) -> SignInRefusal | None:
    """Why a sign-in is refused before its password is checked, or None."""
    window = settings.GOLDSMITH_SIGNIN_LOCKOUT_SECONDS
    counters = _signin_counters(username, address)
    found = cache.get_many([k for k, *_ in counters] + [f"{k}:since" for k, *_ in counters])
    now = time.time()
    for key, where, limit in counters:
        if found.get(key, 0) >= limit:
            since = found.get(f"{key}:since", now)
            retry_after = max(1, math.ceil(since + window - now))
            minutes = math.ceil(retry_after / 60)
            if where == "account":
                reason = ngettext(
                    "Too many failed sign-ins for this account. Try again in %(minutes)s minute, "
                    "or ask an administrator to reset your password.",
                    "Too many failed sign-ins for this account. Try again in %(minutes)s "
                    "minutes, or ask an administrator to reset your password.",
                    minutes,
                )
            else:
                reason = ngettext(
                    "Too many failed sign-ins from your address. Try again in %(minutes)s "
                    "minute, or ask an administrator to reset your password.",
                    "Too many failed sign-ins from your address. Try again in %(minutes)s "
                    "minutes, or ask an administrator to reset your password.",
                    minutes,
                )
            return SignInRefusal(reason=reason % {"minutes": minutes}, retry_after=retry_after)
    return None


def signin_failed(*, username: str, address: str | None) -> None:
    window = settings.GOLDSMITH_SIGNIN_LOCKOUT_SECONDS
    now = time.time()
    for key, *_ in _signin_counters(username, address):
        cache.add(f"{key}:since", now, window)
        remaining = max(1, math.ceil(cache.get(f"{key}:since", now) + window - now))
        _count_up(key, remaining)
        # Redis's INCR keeps the key's expiry; the database cache's incr sets the default one.
        cache.touch(key, remaining)


def signin_succeeded(*, username: str) -> None:
    key = _key("signin", "account", username)
    cache.delete_many([key, f"{key}:since"])


# --- API tokens -----------------------------------------------------------------------------


class _TokenRequestThrottle(BaseThrottle):
    """Counts requests made with an API token for a minute from the first one of each window.
    Read-then-write (two cache calls): concurrent requests may be undercounted a little, as in
    DRF's own throttles; sign-in failures use the cache's atomic increment instead."""

    scope = ""
    window = 60

    def ident_of(self, request) -> str | None:
        raise NotImplementedError

    def limit(self) -> int:
        raise NotImplementedError

    def allow_request(self, request, view) -> bool:
        if not isinstance(getattr(request, "auth", None), ApiToken):
            return True
        ident = self.ident_of(request)
        if ident is None:
            return True
        key = _key("token", self.scope, ident)
        now = time.time()
        since, count = cache.get(key) or (now, 0)
        if now - since >= self.window:
            since, count = now, 0
        self.retry_after = max(1, math.ceil(since + self.window - now))
        if count >= self.limit():
            return False
        cache.set(key, (since, count + 1), self.retry_after)
        return True

    def wait(self) -> float | None:
        return getattr(self, "retry_after", None)


class TokenAccountThrottle(_TokenRequestThrottle):
    scope = "account"

    def ident_of(self, request) -> str | None:
        return str(request.user.pk)

    def limit(self) -> int:
        return settings.GOLDSMITH_TOKEN_REQUESTS_PER_MINUTE


class TokenAddressThrottle(_TokenRequestThrottle):
    scope = "address"

    def ident_of(self, request) -> str | None:
        return client_address(request)

    def limit(self) -> int:
        return settings.GOLDSMITH_TOKEN_REQUESTS_PER_MINUTE_PER_ADDRESS
