"""The rules every HTTP endpoint the project calls shares: retrievers, machine judges, answer
judges and the drift webhook.

- which URLs may be called (:func:`url_check`, under the server's :func:`ssrf_policy`; a
  host name that does not resolve here passes, for it may resolve on the workers, and the
  engine checks every URL again where it calls it);
- which plain headers may be sent (:func:`headers_check`: never a credential, which belongs
  in the auth header, stored encrypted);
- how an auth header is changed (:func:`auth_changes`) and read on the worker
  (:func:`auth_header`), on any model with `evaluation.models.AuthHeaderFields`.

Every refusal is one :class:`EndpointInvalid` naming the field it is about (``url``,
``config.url``, ``config.headers``, ``auth_header_env``…); the API answers it as
``{field: [message]}``. No message holds a secret.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import fields, replace
from typing import Any

from django.conf import settings
from django.utils.translation import gettext

from evaluation import credentials
from evaluation.models import AuthHeaderFields
from goldsmith.retrievers.ssrf import Policy, Unresolvable, UnsafeURL, check_url

HEADER_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
NON_FIELD = "non_field_errors"  # as DRF names the errors of no one field
NAME_LIMIT = 100  # the auth header's name and the variable's, as the columns hold them


class EndpointInvalid(ValueError):
    """An endpoint cannot be saved as given: ``field`` names what is wrong (``config.X`` for
    a call setting; :data:`NON_FIELD` when no one field is), the message says why."""

    def __init__(self, message: str, *, field: str = NON_FIELD) -> None:
        super().__init__(message)
        self.field = field


@contextmanager
def refused_as(kind: type[EndpointInvalid]) -> Iterator[None]:
    """Raise the refusals of the rules called inside as `kind`, with the same field and
    message: each endpoint's service keeps its own exception, a subclass of this module's."""
    try:
        yield
    except EndpointInvalid as error:
        if isinstance(error, kind):
            raise
        refused = kind.__new__(kind)  # whatever `kind.__init__` takes: the same field
        EndpointInvalid.__init__(refused, str(error), field=error.field)
        raise refused from None


def ssrf_policy() -> Policy:
    return Policy(allow_private=settings.GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS)


def url_check(url: str, *, field: str) -> None:
    """Refuse a URL the workers may not call (EndpointInvalid with the engine's reason)."""
    try:
        check_url(url, ssrf_policy())
    except Unresolvable:  # a name may resolve only on the workers
        pass
    except UnsafeURL as error:
        raise EndpointInvalid(str(error), field=field) from None


def config_check(
    config: type[Any], given: Mapping[str, Any], *, unknown: str, url: Any = None
) -> dict[str, Any]:
    """`given` as the engine's `config` dataclass takes it (its snapshot), refused by the
    engine's rules (`problems()`) and the URL policy: `unknown` words a setting the class does
    not have (``%(name)r``), `url` makes the URL checked of the configuration (a retriever's
    fills its placeholders); the method is upper-cased."""
    names = {f.name for f in fields(config)}
    extra = sorted(set(given) - names)
    if extra:
        raise EndpointInvalid(unknown % {"name": extra[0]}, field="config")
    try:
        cfg = config(**{**given, "headers": headers_check(given.get("headers") or {})})
    except TypeError as error:
        raise EndpointInvalid(str(error), field="config") from None
    cfg = replace(cfg, method=str(cfg.method).upper())
    problems = cfg.problems()
    if problems:
        raise EndpointInvalid("; ".join(problems), field="config")
    url_check(url(cfg) if url else cfg.url, field="config.url")
    return dict(cfg.snapshot())


def headers_check(headers: Any, *, field: str = "config.headers") -> dict[str, str]:
    """The plain headers to send with every request: names to one-line strings, no
    credential among them (they go in the auth header, stored encrypted)."""
    if not isinstance(headers, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise EndpointInvalid(gettext("headers must map names to strings"), field=field)
    if any(k.strip().lower() in credentials.CREDENTIAL_HEADERS for k in headers):
        raise EndpointInvalid(
            gettext("put credentials in the auth header (stored encrypted)"), field=field
        )
    if any(not k or not set(k) <= HEADER_NAME_CHARS for k in headers):
        raise EndpointInvalid(
            gettext("a header name may hold letters, digits, - and _"), field=field
        )
    if any(c in v for v in headers.values() for c in "\r\n\0"):
        # A line break would end the header early and start another one on the wire.
        raise EndpointInvalid(gettext("a header value is one line"), field=field)
    return dict(headers)


def auth_changes(
    endpoint: AuthHeaderFields | None, name: str | None, value: str | None, env: str | None
) -> dict[str, str]:
    """The auth fields to set on `endpoint` (None: a new one). None and empty values keep
    what is stored (the value is never shown, so a form sent again without it keeps it); an
    empty name removes the header. The value is encrypted here; a variable must be one an
    operator exposed (`credentials.environment_refusal`)."""
    changes: dict[str, str] = {}
    header = endpoint.auth_header_name if endpoint is not None else ""
    if name is not None:
        header = name.strip()
        if header and not set(header) <= HEADER_NAME_CHARS:
            raise EndpointInvalid(
                gettext("the auth header name may hold letters, digits, - and _"),
                field="auth_header_name",
            )
        if len(header) > NAME_LIMIT:
            raise EndpointInvalid(
                gettext("the auth header name is at most 100 characters"),
                field="auth_header_name",
            )
        changes["auth_header_name"] = header
        if not header:
            changes.update(auth_header_encrypted="", auth_header_env="")
    if value and env:
        raise EndpointInvalid(
            gettext("give the auth header's value or an environment variable, not both"),
            field="auth_header_env",
        )
    if value:
        if any(c in value for c in "\r\n\0"):
            # A line break would end the header early and start another one on the wire.
            raise EndpointInvalid(
                gettext("the auth header value is one line"), field="auth_header_value"
            )
        changes.update(auth_header_encrypted=credentials.encrypt(value), auth_header_env="")
    if env:
        env = env.strip()
        if not env.replace("_", "").isalnum() or len(env) > NAME_LIMIT:
            raise EndpointInvalid(
                gettext("the environment variable name may hold letters, digits, _"),
                field="auth_header_env",
            )
        refusal = credentials.environment_refusal(env)
        if refusal is not None:
            raise EndpointInvalid(refusal, field="auth_header_env")
        changes.update(auth_header_env=env, auth_header_encrypted="")
    if (value or env) and not header:
        raise EndpointInvalid(
            gettext("give the auth header a name (e.g. Authorization)"), field="auth_header_name"
        )
    return changes


def auth_header(endpoint: AuthHeaderFields) -> tuple[str, str] | None:
    """(name, value) of the endpoint's auth header, decrypted or read on the worker from the
    exposed variable; credentials.SecretUnavailable (naming no secret) when it cannot be."""
    if not endpoint.auth_header_name:
        return None
    if endpoint.auth_header_env:
        return endpoint.auth_header_name, credentials.from_environment(endpoint.auth_header_env)
    if endpoint.auth_header_encrypted:
        return endpoint.auth_header_name, credentials.decrypt(endpoint.auth_header_encrypted)
    return None
