"""Sentences the engine says to people: English, and translatable by the apps.

The engine knows no Django and no catalog, and its command line speaks English. A sentence that
a page or an API error may show is built with :func:`say` from a template with named
placeholders and its values: ``say("missing field %(name)r", name="query")``. The result is a
:class:`Text`, a ``str`` equal to the English sentence (so printing, logging and comparing it
work as for any string) that also keeps its template and values. The apps pass such a text
through ``sitewide.i18n.localize``, which looks the template up in their gettext catalog and
fills in the values, themselves localised when they are texts.

Templates are literal first arguments of ``say`` (never built at run time), so a catalog can be
extracted from the source (xgettext ``--keyword=say``, or the AST walk of
``config/python_catalogs.py``).

A report is stored as JSON, where a text is its English string. :func:`templates_of` lists
every text of a JSON-ready document by its place (a JSON pointer, RFC 6901) with its template
and values (:func:`text_json`); a stored report keeps that list under ``"templates"``, and
:func:`with_texts` puts the texts back in their places, for a page or an API to say them in
its reader's language.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any


class Text(str):
    """An English sentence that remembers its template and values (see the module's text)."""

    template: str
    values: dict[str, object]

    def __new__(cls, template: str, /, **values: object) -> Text:
        text = super().__new__(cls, template % values if values else template)
        text.template = template
        text.values = values
        return text

    def __reduce__(self) -> tuple[object, ...]:
        # Pickled (a Celery result, a cache) as what it reads: a plain str.
        return (str, (str(self),))


def say(template: str, /, **values: object) -> Text:
    """The English sentence `template % values`, translatable by the apps."""
    return Text(template, **values)


def joined(parts: Sequence[str], separator: str = ", ") -> str:
    """``parts`` one after the other, as a text when one is: "a, b, c" (``separator`` ", ")
    or "a; b; c" ("; "), a separator each language writes its own way."""
    if not parts:
        return ""
    out = parts[0]
    for part in parts[1:]:
        if separator == "; ":
            out = say("%(first)s; %(next)s", first=out, next=part)
        else:
            out = say("%(first)s, %(next)s", first=out, next=part)
    return out


def text_json(text: Text) -> dict[str, Any]:
    """``{"template", "values"}`` of a text (no ``values`` when it has none), its values' texts
    in the same shape."""
    if not text.values:
        return {"template": text.template}
    values = {k: text_json(v) if isinstance(v, Text) else v for k, v in text.values.items()}
    return {"template": text.template, "values": values}


def text_from_json(data: Mapping[str, Any]) -> Text:
    """The text :func:`text_json` wrote."""
    values = {
        k: text_from_json(v) if isinstance(v, Mapping) and "template" in v else v
        for k, v in (data.get("values") or {}).items()
    }
    return Text(data["template"], **values)


def _escaped(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def templates_of(doc: Any, at: str = "") -> dict[str, dict[str, Any]]:
    """Every text in ``doc`` (nested dicts and lists) by its JSON pointer: ``{"/verdict/summary":
    {"template": ..., "values": ...}}``."""
    if isinstance(doc, Text):
        return {at: text_json(doc)}
    out: dict[str, dict[str, Any]] = {}
    if isinstance(doc, Mapping):
        for key, value in doc.items():
            out.update(templates_of(value, f"{at}/{_escaped(str(key))}"))
    elif isinstance(doc, list | tuple):
        for i, value in enumerate(doc):
            out.update(templates_of(value, f"{at}/{i}"))
    return out


def with_texts(
    doc: Any,
    templates: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    words: Callable[[Text], Any] = lambda text: text,
) -> Any:
    """A copy of a stored ``doc`` with, in each place ``templates`` (by default the doc's own
    ``"templates"``) names and where the doc still holds the English string the template makes,
    the :class:`Text` (or what ``words`` makes of it: the apps say it in their reader's
    language). Any other string is left as stored."""
    if templates is None and isinstance(doc, Mapping):
        templates = doc.get("templates")
    if not templates:
        return doc
    # the places above a text: only those are copied, the rest (per-query figures) is shared
    above: set[str] = set()
    for place in templates:
        i = place.rfind("/")
        while i >= 0 and place[:i] not in above:
            above.add(place[:i])
            i = place.rfind("/", 0, i)

    def copy(value: Any, at: str) -> Any:
        if at not in above and at not in templates:
            return value
        if isinstance(value, str):
            found = templates.get(at)
            if found is None:
                return value
            text = text_from_json(found)
            # only over the English it was made from (an alert's own copy may say otherwise)
            return words(text) if text == value else value
        if isinstance(value, Mapping):
            return {k: copy(v, f"{at}/{_escaped(str(k))}") for k, v in value.items()}
        if isinstance(value, list):
            return [copy(v, f"{at}/{i}") for i, v in enumerate(value)]
        return value

    return copy(doc, "")


_ID_PARTS = re.compile(r"\d+|\D+")


def id_order(query_id: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key that lists ids as a reader counts them: runs of digits by value, so "q2"
    comes before "q10" and "6" before "13" (plain string order puts "13" first)."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part) for part in _ID_PARTS.findall(query_id)
    )
