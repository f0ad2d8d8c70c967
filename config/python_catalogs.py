"""The Python side of the translation catalogs: which strings the code marks, and in which
app's catalog each belongs.

Marked strings are the literal first arguments of Django's gettext family (``gettext``,
``gettext_lazy``, ``ngettext`` with its plural, ``pgettext`` with its context, …) in the apps,
and of ``goldsmith.text.say`` in the engine (its sentences are translated by the apps, so they
belong to annotation's catalog, the lowest app: evaluation's pages find them there too).
Read with Python's own parser, so nothing depends on GNU xgettext being installed.

``python -m config.python_catalogs`` adds the strings the code marks to the apps' catalogs
(``<app>/locale/zh_Hans/LC_MESSAGES/django.po``) as untranslated entries, and marks entries
the code no longer uses obsolete; a translator then fills them in. The catalogs are checked by
``tests/config/test_every_python_string_is_translated.py``; ``manage.py compile_catalogs``
(config/catalogs.py) writes their ``.mo`` files.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = ("zh_Hans",)
# source folder → the app whose catalog holds its strings. The site's own code (sitewide/,
# config/) and the engine's sentences go to annotation's, the lowest app: both apps' pages
# read it, and Django merges every app's catalog into one per language.
CATALOG_OF = {
    "annotation": "annotation",
    "evaluation": "evaluation",
    "goldsmith": "annotation",
    "sitewide": "annotation",
    "config": "annotation",
}
SINGULAR = {"gettext", "gettext_lazy", "gettext_noop", "say"}
# Words the engine keeps as data and the pages show (`sitewide.i18n.engine_word`): the
# literal arguments at these places of these calls are messages too.
ENGINE_DATA = {"how": (0, 1), "_preset": (1, 2), "TopKScenario": (1, 3)}
PLURAL = {"ngettext", "ngettext_lazy"}
CONTEXT = {"pgettext", "pgettext_lazy"}
CONTEXT_PLURAL = {"npgettext", "npgettext_lazy"}
SKIPPED = ("migrations", "tests")


@dataclass(frozen=True, order=True)
class Message:
    msgid: str
    plural: str = ""
    context: str = ""


@dataclass(frozen=True)
class Occurrence:
    message: Message
    path: Path
    line: int


def _literal(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _parse(source: str, filename: str) -> ast.Module:
    """`ast.parse` in a thread of its own. CPython 3.11 can leave a thread's count of the AST
    constructor's recursion wrong after that thread caught a RecursionError (the readers refuse
    deeply nested JSON that way, and the test suite feeds them some); `ast.parse` then raises
    SystemError "AST constructor recursion depth mismatch". A new thread starts from zero."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(ast.parse, source, filename).result()


def messages_in(path: Path) -> Iterator[Occurrence]:
    """The marked strings of one Python file. A marker whose string is not a literal is
    reported as a message with an empty msgid (the test refuses it)."""
    tree = _parse(path.read_text(encoding="utf-8"), str(path))
    engine = path.resolve().is_relative_to(ROOT / "goldsmith")
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = _name(node)
        args = [_literal(a) for a in node.args]
        if engine and name in ENGINE_DATA:
            for at in ENGINE_DATA[name]:
                if at < len(args) and args[at]:
                    yield Occurrence(Message(args[at] or ""), path, node.lineno)
            continue
        if name != "say" and engine:
            continue
        if name in SINGULAR:
            yield Occurrence(Message(args[0] or ""), path, node.lineno)
        elif name in PLURAL and len(args) >= 2:
            yield Occurrence(Message(args[0] or "", args[1] or ""), path, node.lineno)
        elif name in CONTEXT and len(args) >= 2:
            yield Occurrence(Message(args[1] or "", context=args[0] or ""), path, node.lineno)
        elif name in CONTEXT_PLURAL and len(args) >= 3:
            message = Message(args[1] or "", args[2] or "", args[0] or "")
            yield Occurrence(message, path, node.lineno)


def python_files(folder: str) -> list[Path]:
    return sorted(
        p for p in (ROOT / folder).rglob("*.py") if not set(p.relative_to(ROOT).parts) & {*SKIPPED}
    )


def marked_messages() -> dict[str, dict[Message, list[Occurrence]]]:
    """app → its messages, each with where the code uses it."""
    out: dict[str, dict[Message, list[Occurrence]]] = {app: {} for app in set(CATALOG_OF.values())}
    for folder, app in CATALOG_OF.items():
        for path in python_files(folder):
            for occurrence in messages_in(path):
                if not occurrence.message.msgid:
                    continue  # a marker around a variable (sitewide.i18n): not a message
                out[app].setdefault(occurrence.message, []).append(occurrence)
    return out


def catalog_path(app: str, language: str) -> Path:
    return ROOT / app / "locale" / language / "LC_MESSAGES" / "django.po"


def update_catalogs() -> None:
    """Add the marked strings the catalogs lack; mark the entries no string uses obsolete. A
    string that moves from one app's catalog to another's (an app's sentence the engine now
    says) keeps its translation."""
    import polib

    for app, messages in marked_messages().items():
        for language in LANGUAGES:
            elsewhere = _translations(language, apart_from=app)
            path = catalog_path(app, language)
            if path.exists():
                catalog = polib.pofile(str(path), wrapwidth=0)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                catalog = polib.POFile(wrapwidth=0)
                catalog.metadata = {
                    "Project-Id-Version": "goldsmith",
                    "PO-Revision-Date": "2026-12-01 00:00+0000",
                    "Last-Translator": "Goldsmith <goldsmith@localhost>",
                    "Language-Team": "Chinese (Simplified)",
                    "Language": language.replace("_", "-").lower(),
                    "MIME-Version": "1.0",
                    "Content-Type": "text/plain; charset=UTF-8",
                    "Content-Transfer-Encoding": "8bit",
                    "Plural-Forms": "nplurals=1; plural=0;",
                }
            present = {(e.msgctxt or "", e.msgid): e for e in catalog}
            for message, occurrences in sorted(messages.items()):
                entry = present.pop((message.context, message.msgid), None)
                if entry is None:
                    known = elsewhere.get((message.context, message.msgid), "")
                    entry = polib.POEntry(
                        msgid=message.msgid, msgstr="" if message.plural else known
                    )
                    if message.context:
                        entry.msgctxt = message.context
                    if message.plural:
                        entry.msgid_plural = message.plural
                        entry.msgstr_plural = {0: ""}
                        entry.msgstr = ""
                    catalog.append(entry)
                entry.obsolete = False
                entry.occurrences = [
                    (o.path.relative_to(ROOT).as_posix(), str(o.line)) for o in occurrences
                ]
                if "%(" in message.msgid and "python-format" not in entry.flags:
                    entry.flags.append("python-format")
            for entry in present.values():
                entry.obsolete = True
            catalog.save(str(path))


def _translations(language: str, *, apart_from: str) -> dict[tuple[str, str], str]:
    """(context, msgid) → translation in the other apps' catalogs of ``language``."""
    import polib

    out: dict[tuple[str, str], str] = {}
    for app in sorted(set(CATALOG_OF.values()) - {apart_from}):
        path = catalog_path(app, language)
        if path.exists():
            for e in polib.pofile(str(path)):
                if e.msgstr and not e.msgid_plural and "fuzzy" not in e.flags:
                    out[(e.msgctxt or "", e.msgid)] = e.msgstr
    return out


if __name__ == "__main__":
    update_catalogs()
