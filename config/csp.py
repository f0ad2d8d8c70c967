"""The Content-Security-Policy header, on every response.

Django 5.2 has no CSP of its own (6.0 brings `django.middleware.csp` and a `SECURE_CSP`
setting of this same shape, which can replace this module). The policy is settings.SECURE_CSP:
a dict of directive -> sources. A response that already carries the header keeps its own.

With DEBUG on, a 404 or 500 is Django's technical page, built with inline style and script for
the developer's eyes: it goes without the header (with DEBUG off, ours have it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence

from django.conf import settings
from django.http import HttpRequest, HttpResponse


def policy_header(policy: Mapping[str, Sequence[str]]) -> str:
    """{"script-src": ["'self'"], "upgrade-insecure-requests": []} ->
    "script-src 'self'; upgrade-insecure-requests"."""
    return "; ".join(" ".join([directive, *sources]) for directive, sources in policy.items())


def csp_override(
    directives: Mapping[str, Sequence[str]],
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """A view decorator: the site's policy with these directives replaced, for that view only."""
    header = policy_header({**settings.SECURE_CSP, **directives})

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @functools.wraps(view)
        def wrapped(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
            response = view(request, *args, **kwargs)
            response.headers["Content-Security-Policy"] = header
            return response

        return wrapped

    return decorate


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.header = policy_header(settings.SECURE_CSP)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if settings.DEBUG and response.status_code in (404, 500):
            return response
        if self.header:
            response.headers.setdefault("Content-Security-Policy", self.header)
        return response
