"""Text that cannot be stored is refused where requests are decoded, with a 400 saying why.

PostgreSQL refuses a NUL character in text, and a lone surrogate (U+D800–U+DFFF, which a JSON
body may spell ``"\\ud800"``) is not Unicode and cannot be encoded as UTF-8: either one
reaching a query or a row answered 500 (a search for ``X%1C%00``). Other control characters,
tabs and newlines are ordinary text here; names are one line (:func:`single_line`).

Two places decode every text input, so the check lives in those two places only:
- :class:`RefuseUnstorableText`, a middleware, checks what Django decodes: the URL's path, the
  query string (names and values), the cookies (a session id is looked up in the database),
  and the fields and file names of a form or upload sent by POST;
- the API's parsers (:class:`JSONParser`, :class:`FormParser`, :class:`MultiPartParser`, the
  REST framework's defaults in settings) check what they decode: JSON bodies, every key and
  value at any depth, and forms sent with PUT or PATCH.
"""

from __future__ import annotations

import re
import unicodedata
from collections import deque
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.utils import translation
from django.utils.datastructures import MultiValueDict
from django.utils.translation import gettext
from rest_framework import parsers
from rest_framework.exceptions import ParseError

UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def single_line(value: str, what: str) -> str:
    """`value` without surrounding spaces, if it is one line of text: names (of projects,
    retrievers, pool sources, tokens) end up in single-line places such as a download's file
    name or a header, where a line break or another control character breaks the response.
    Raises ValueError naming `what` and the character."""
    value = value.strip()
    for char in value:
        if unicodedata.category(char) in ("Cc", "Zl", "Zp"):
            shown = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}.get(char, f"\\u{ord(char):04x}")
            raise ValueError(
                gettext(
                    "%(what)s is one line of text, without line breaks, tabs or other control"
                    " characters (it holds %(shown)s)"
                )
                % {"what": what, "shown": shown}
            )
    return value


def _shown(name: str) -> str:
    """A field name fit for a message (its own bad characters written as escapes)."""
    return UNSTORABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", name)


def _reason(where: str, char: str) -> str:
    if char == "\x00":
        return gettext(
            "%(where)s contains a NUL character (\\x00), which cannot be stored: remove it"
        ) % {"where": where}
    return gettext(
        "%(where)s contains a lone surrogate (%(code)s), which is not Unicode text: send the "
        "text as UTF-8"
    ) % {"where": where, "code": f"\\u{ord(char):04x}"}


def _name_of(what: str, name: str) -> str:
    return gettext("the name of %(what)s field %(name)s") % {"what": what, "name": repr(name)}


def _field(what: str, name: str) -> str:
    return gettext("%(what)s field %(name)s") % {"what": what, "name": repr(name)}


def unstorable_text(value: Any, where: str) -> str | None:
    """Why `value` (a string, or dicts and lists of them at any depth, keys included) cannot be
    stored, naming where the first bad character is; None when it can."""
    todo: deque[tuple[str, Any]] = deque([(where, value)])
    while todo:
        place, item = todo.popleft()
        if isinstance(item, str):
            found = UNSTORABLE.search(item)
            if found:
                return _reason(place, found.group())
        elif isinstance(item, dict):
            for key, inner in item.items():
                name = _shown(str(key))
                if isinstance(key, str) and (found := UNSTORABLE.search(key)):
                    return _reason(_name_of(place, name), found.group())
                todo.append((_field(place, name), inner))
        elif isinstance(item, (list, tuple)):
            todo.extend(
                (gettext("%(where)s item %(n)s") % {"where": place, "n": i + 1}, inner)
                for i, inner in enumerate(item)
            )
    return None


def _fields(data: MultiValueDict, what: str) -> str | None:
    """The first problem in a query string or form: its field names and values."""
    for key, values in data.lists():
        if found := UNSTORABLE.search(key):
            return _reason(_name_of(what, _shown(key)), found.group())
        for value in values:
            if isinstance(value, str) and (found := UNSTORABLE.search(value)):
                return _reason(_field(what, key), found.group())
    return None


def _file_names(files: MultiValueDict) -> str | None:
    for key, uploads in files.lists():
        for upload in uploads:
            if (found := UNSTORABLE.search(upload.name or "")) is not None:
                return _reason(
                    gettext("the name of the file sent as %(name)s") % {"name": repr(key)},
                    found.group(),
                )
    return None


def request_problem(request: HttpRequest) -> str | None:
    """Why this request's path, query string, cookies or POSTed form cannot be stored, or
    None."""
    if found := UNSTORABLE.search(request.path_info):
        return _reason(gettext("the address"), found.group())
    if problem := _fields(request.GET, gettext("the query string")):
        return problem
    for name, value in request.COOKIES.items():  # a session id is looked up in the database
        if found := UNSTORABLE.search(name + value):
            return _reason(
                gettext("the cookie %(name)s") % {"name": repr(_shown(name))}, found.group()
            )
    if request.method == "POST" and request.content_type in _FORM_TYPES:
        try:
            post, files = request.POST, request.FILES
        except MultiPartParserError as error:
            return gettext("the form could not be read: %(error)s") % {"error": error}
        return _fields(post, gettext("the form")) or _file_names(files)
    return None


class RefuseUnstorableText:
    """400 for a request whose text cannot be stored (JSON for the API, plain text for pages);
    the API's JSON bodies are checked by its parsers, below."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        found = request_problem(request)
        if found is None:  # the hot path: nothing to say, so no language to choose
            return self.get_response(request)
        # It runs before the language is chosen (LocaleMiddleware needs the session, whose
        # cookie it checks first), so it reads the request's language itself, the language
        # cookie else Accept-Language, and words the refusal again in it.
        with translation.override(translation.get_language_from_request(request)):
            # A form that failed to parse reads as empty the second time: keep the first words.
            problem = request_problem(request) or found
            if request.path_info.startswith("/api/"):
                refusal: HttpResponse = JsonResponse({"detail": problem}, status=400)
            else:
                refusal = HttpResponseBadRequest(
                    gettext("Bad request: %(problem)s.") % {"problem": problem} + "\n",
                    content_type="text/plain; charset=utf-8",
                )
        return refusal


# --------------------------------------------------------------------------------------------
# The API's parsers: the REST framework's, refusing what cannot be stored


def _refuse(problem: str | None) -> None:
    if problem is not None:
        raise ParseError(problem)


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        data = super().parse(stream, media_type, parser_context)
        _refuse(unstorable_text(data, gettext("the body")))
        return data


class FormParser(parsers.FormParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        data = super().parse(stream, media_type, parser_context)
        _refuse(_fields(data, gettext("the form")))
        return data


class MultiPartParser(parsers.MultiPartParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        parsed = super().parse(stream, media_type, parser_context)
        _refuse(_fields(parsed.data, gettext("the form")) or _file_names(parsed.files))
        return parsed
