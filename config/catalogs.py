"""Compiling the translation catalogs (.po → .mo) with polib, so no GNU gettext is needed.

The .mo files are build output: generated from the committed .po files by
`manage.py compile_catalogs` (make install, make run, make test and the test session run it)
and ignored by git. Every catalog of the project is compiled: the project's own
(locale/, for templates and static/js) and each app's (<app>/locale/, for Python strings).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parent.parent
# Where catalogs live: the project's LOCALE_PATHS and the apps' own locale folders.
CATALOG_HOMES = ("locale", "annotation/locale", "evaluation/locale")


@dataclass(frozen=True)
class Compiled:
    po: Path
    mo: Path
    messages: int


def catalogs(root: Path = ROOT) -> list[Path]:
    """Every .po file of the project, in a stable order."""
    found: list[Path] = []
    for home in CATALOG_HOMES:
        found += sorted((root / home).glob("*/LC_MESSAGES/*.po"))
    return found


def is_stale(po: Path) -> bool:
    mo = po.with_suffix(".mo")
    return not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime


def compile_catalogs(pos: Iterable[Path] | None = None, *, force: bool = False) -> list[Compiled]:
    """Compile each .po whose .mo is missing or older (all of them with `force`). Fuzzy and
    untranslated entries are left out of the .mo, as msgfmt does: they show in English."""
    done = []
    for po in catalogs() if pos is None else pos:
        if not force and not is_stale(po):
            continue
        catalog = polib.pofile(str(po), wrapwidth=0)
        mo = po.with_suffix(".mo")
        tmp = mo.with_suffix(".mo.tmp")
        catalog.save_as_mofile(str(tmp))
        tmp.replace(mo)  # a process reading the catalog never sees half a file
        done.append(Compiled(po=po, mo=mo, messages=len(catalog.translated_entries())))
    return done
