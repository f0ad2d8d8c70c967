"""The interface language: the browser's, until the user picks one in the page header.

LocaleMiddleware (Django's) picks the language from the language cookie, else from the
browser's Accept-Language. A signed-in user's own choice (annotation.UserLanguage) goes over
both: it is read from the account once per sign-in into the session (a `user_logged_in`
receiver, annotation/apps.py), and this middleware activates it on every request, so it
follows the user to any browser. The response also carries it in the language cookie, so the
sign-in page after signing out still speaks the user's language.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.http import require_POST
from django.views.i18n import JavaScriptCatalog

from annotation.selectors.languages import SESSION_KEY, user_language_of
from annotation.services.languages import UnknownLanguage, user_language_set


def _set_cookie(response: HttpResponse, language: str) -> None:
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


def _choice(request: HttpRequest, *, look_up: bool) -> str:
    """The signed-in user's choice ("" when none), kept in the session from sign-in on
    (annotation.selectors.languages.remember_user_language). A session signed in before that
    existed reads it once from the account (`look_up`)."""
    session = getattr(request, "session", None)
    if session is None:
        return ""
    language = session.get(SESSION_KEY)
    if language is None:
        # Only a session that came with the request's cookie: a request authenticated by an
        # API token has none, and must not get one.
        user = getattr(request, "user", None)
        if not look_up or session.session_key is None or user is None:
            return ""
        if not user.is_authenticated:
            return ""
        language = user_language_of(user)
        session[SESSION_KEY] = language
    return language if language in dict(settings.LANGUAGES) else ""


class UserLanguageMiddleware:
    """After AuthenticationMiddleware: the signed-in user's choice over the browser's."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language = _choice(request, look_up=True)
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = language  # type: ignore[attr-defined]
        response = self.get_response(request)
        # A sign-in during this request put the user's choice in the session: from its
        # response on, the language cookie carries it too.
        language = _choice(request, look_up=False)
        if (
            language
            and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != language
            and settings.LANGUAGE_COOKIE_NAME not in response.cookies
        ):
            _set_cookie(response, language)
        return response


@require_POST
def language_set(request: HttpRequest) -> HttpResponse:
    """The header's switcher: `language` is a code of settings.LANGUAGES, or "" for the
    browser's language. Stored on the account when signed in, and in the language cookie."""
    language = request.POST.get("language", "")
    next_url = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        next_url = "/"
    if language and language not in dict(settings.LANGUAGES):
        raise Http404(not_a_language(language))
    response = HttpResponseRedirect(next_url)
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        try:
            user_language_set(user=user, language=language)
        except UnknownLanguage as refusal:  # checked above; kept for a changed LANGUAGES
            raise Http404(str(refusal)) from None
        request.session[SESSION_KEY] = language
    if language:
        _set_cookie(response, language)
    else:
        response.delete_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
    return response


def not_a_language(language: str) -> str:
    return gettext("%(language)s is not a language of this site") % {"language": repr(language)}


class LanguageJavaScriptCatalog(JavaScriptCatalog):
    """Django's JavaScript catalog (gettext, ngettext, interpolate, formats) at a URL of its
    own per language, so the browser may keep it for an hour and a switch of language loads
    the other one. A script from our own origin: it runs under the Content-Security-Policy."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        language = kwargs.pop("language")
        if language not in dict(settings.LANGUAGES):
            raise Http404(not_a_language(language))
        with translation.override(language):
            response = super().get(request, *args, **kwargs)
        patch_cache_control(response, max_age=3600)
        return response
