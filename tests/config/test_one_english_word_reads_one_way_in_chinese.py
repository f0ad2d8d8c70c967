"""A msgid (with its context) reads the same in every catalog that holds it.

Django looks a message up in the project's catalog (locale/) before the apps', so when two
catalogs translate one English word two ways, the project's wins on every page: the run table's
"Started" (开始时间, a time) was shown for a query's status "Started" (已开始) in every queue.
Two meanings of one word need a context (`pgettext`, `{% translate … context … %}`)."""

from __future__ import annotations

from collections import defaultdict

import polib

from config.python_catalogs import LANGUAGES, ROOT

CATALOGS = ["locale", "annotation/locale", "evaluation/locale"]


def test_no_word_reads_two_ways_across_the_catalogs():
    for language in LANGUAGES:
        readings: dict[tuple[str | None, str], dict[str, str]] = defaultdict(dict)
        for folder in CATALOGS:
            path = ROOT / folder / language / "LC_MESSAGES" / "django.po"
            for entry in polib.pofile(str(path)):
                if entry.obsolete or not entry.translated():
                    continue
                reading = entry.msgstr or " | ".join(
                    entry.msgstr_plural[k] for k in sorted(entry.msgstr_plural)
                )
                readings[(entry.msgctxt, entry.msgid)][folder] = reading
        clashes = {key: where for key, where in readings.items() if len(set(where.values())) > 1}
        assert not clashes, "give each meaning a context, or one reading: " + "; ".join(
            f"{msgid!r} (context {context!r}): {where}"
            for (context, msgid), where in clashes.items()
        )
