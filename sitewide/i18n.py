"""Saying the engine's sentences in the reader's language.

The engine (`goldsmith`) has no Django: a sentence it says to people is a `goldsmith.text.Text`,
English as a string, with its template and values kept. `localize` translates one with the
apps' gettext catalogs (the engine's templates are in annotation's catalog), and an error that
names a file and line (`ReadError`, `FormatError`) with its place said in that language too. A
plain string is returned as it is: the apps' own sentences are marked with gettext where they
are written. The `goldsmith` command never comes here, so it stays English. A stored report
keeps its sentences' templates and values beside their English; `localized` says them again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext, gettext_lazy, gettext_noop

from goldsmith.formats import FormatError
from goldsmith.intake.readers import ReadError
from goldsmith.text import Text, with_texts

# Django ends every form label with gettext(":") unless the label already ends in one of
# gettext(":?.!"), and its own Chinese catalog keeps the ASCII colon: "策略:". Marked here so
# the catalogs hold them; the Chinese is the full-width colon and marks ("策略：").
LABEL_SUFFIX = (gettext_noop(":"), gettext_noop(":?.!"))


def localize(message: object) -> str:
    """`message` (a `Text`, an engine error naming a file and line, or anything else) as a
    sentence in the active language."""
    if isinstance(message, ReadError):
        return where(message.filename, message.line, localize(message.reason))
    if isinstance(message, FormatError):
        return where(message.path, message.line, localize(message.message))
    if isinstance(message, Text):
        translated = gettext(message.template)
        if not message.values:
            return translated
        values = {
            name: localize(value) if isinstance(value, Text) else value
            for name, value in message.values.items()
        }
        return translated % values
    return str(message)


def localized(doc: Any, templates: Mapping[str, Any] | None = None) -> Any:
    """A stored document (a run's report) with each sentence the engine said in it said in the
    active language, from the template and values the document keeps (``templates``, by
    default its own ``"templates"``: `goldsmith.text.with_texts`); a sentence stored without
    its template is shown as stored."""
    return with_texts(doc, templates, words=localize)


def engine_word(word: str) -> str:
    """A word the engine keeps as data (a call setting's label and help, a preset's or a
    top-K scenario's name and description), in the reader's language when it is shown (lazy:
    a form made at import still speaks each request's language). The catalogs collect these
    words where the engine writes them (`config.python_catalogs.ENGINE_DATA`)."""
    return gettext_lazy(word) if word else word


def where(filename: str, line: int | None, reason: str) -> str:
    """``FILE:LINE: reason`` (``FILE: reason`` without a line) in the active language."""
    if line is None:
        return gettext("%(file)s: %(reason)s") % {"file": filename, "reason": reason}
    return gettext("%(file)s:%(line)s: %(reason)s") % {
        "file": filename,
        "line": line,
        "reason": reason,
    }
