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
``tests/test_every_python_string_is_translated.py``).
"""

from __future__ import annotations

import re


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


_ID_PARTS = re.compile(r"\d+|\D+")


def id_order(query_id: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key that lists ids as a reader counts them: runs of digits by value, so "q2"
    comes before "q10" and "6" before "13" (plain string order puts "13" first)."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part) for part in _ID_PARTS.findall(query_id)
    )
