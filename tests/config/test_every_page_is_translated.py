"""Every word a page shows can be read in Simplified Chinese, and stays so.

- every template marks its words ({% translate %}, {% blocktranslate %});
- every script in static/js shows its messages through the JavaScript catalog;
- every message of every zh_Hans catalog (the project's and each app's) is translated, not
  fuzzy, and the catalogs hold exactly the messages the sources mark (makemessages, run in a
  copy of the sources, finds nothing new and nothing gone).

Each check is also shown to fail on a planted mistake, so that a check that can never fail
does not pass for one that works.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest

from config.catalogs import catalogs
from tests.config.script_text import scripts, unmarked
from tests.config.template_text import templates, untranslated
from tests.conftest import REPO

LANGUAGE = "zh_Hans"


def test_every_template_marks_its_words():
    found = [str(item) for path in templates(REPO) for item in untranslated(path, REPO)]
    assert found == [], "words a Chinese page would show in English:\n" + "\n".join(found)


def test_the_template_check_finds_words_left_unmarked(tmp_path):
    page = tmp_path / "templates" / "page.html"
    page.parent.mkdir()
    page.write_text(
        "{% load i18n %}<h1>{% translate 'Golden sets' %}</h1>\n"
        "<p>{{ n }} queries left</p>\n"
        '<input type="text" placeholder="Search the corpus">\n'
        "{% blocktranslate %}Fine {{ n }}{% endblocktranslate %} <code>manage.py freeze</code>\n"
        '{{ name|default:"untitled" }} κ {{ kappa }}\n',
        encoding="utf-8",
    )
    found = [(item.line, item.where, item.text) for item in untranslated(page, tmp_path)]
    assert found == [
        (5, "literal", "untitled"),
        (2, "text", "\ue000 queries left"),
        (3, "placeholder attribute", "Search the corpus"),
    ]


def test_every_script_shows_its_words_through_the_catalog():
    found = [str(item) for path in scripts(REPO) for item in unmarked(path, REPO)]
    assert found == [], "messages a Chinese page would show in English:\n" + "\n".join(found)


def test_the_script_check_finds_messages_left_unmarked(tmp_path):
    script = tmp_path / "static" / "js" / "page.js"
    script.parent.mkdir(parents=True)
    script.write_text(
        'label.textContent = gettext("saved");\n'
        'label.textContent = "saved";\n'
        'status.textContent = n + (n === 1 ? " change" : " changes");\n'
        'status.textContent = interpolate(ngettext("%s change", "%s changes", n), [n]);\n'
        'box.className = "sync sync-ok";\n'
        'eta.textContent = state === "running" ? left : "";\n'
        'showSync("Signed out: sign in again; changes are kept.");\n'
        "figures.textContent = `${done} of ${total} queries`;\n",
        encoding="utf-8",
    )
    found = [(item.line, item.text) for item in unmarked(script, tmp_path)]
    assert found == [
        (2, '"saved"'),
        (3, '" change"'),
        (3, '" changes"'),
        (7, '"Signed out: sign in again; changes are kept."'),
        (8, "`${done} of ${total} queries`"),
    ]


def untranslated_messages(po_path: Path) -> list[str]:
    """Messages of a catalog that a reader would see in English: no translation, an empty
    plural form, or a translation still marked fuzzy."""
    catalog = polib.pofile(str(po_path))
    missing = []
    for entry in catalog:
        if entry.obsolete:
            continue
        empty = (
            any(not text for text in entry.msgstr_plural.values()) or not entry.msgstr_plural
            if entry.msgid_plural
            else not entry.msgstr
        )
        if empty or "fuzzy" in entry.flags:
            missing.append(f"{po_path.name}:{entry.linenum}: {entry.msgid!r}")
    return missing


def zh_catalogs() -> list[Path]:
    return [path for path in catalogs() if path.parts[-3] == LANGUAGE]


def test_there_are_chinese_catalogs_for_the_templates_and_the_scripts():
    names = {str(path.relative_to(REPO)) for path in zh_catalogs()}
    assert {
        "locale/zh_Hans/LC_MESSAGES/django.po",
        "locale/zh_Hans/LC_MESSAGES/djangojs.po",
    } <= names


@pytest.mark.parametrize("po_path", zh_catalogs(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_message_of_the_catalog_is_translated(po_path):
    assert untranslated_messages(po_path) == []


def test_the_catalog_check_finds_missing_and_fuzzy_translations(tmp_path):
    po = tmp_path / "django.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
        '"Plural-Forms: nplurals=1; plural=0;\\n"\n\n'
        'msgid "Golden sets"\nmsgstr "标准集"\n\n'
        'msgid "Freeze"\nmsgstr ""\n\n'
        '#, fuzzy\nmsgid "Pools"\nmsgstr "候选池"\n\n'
        'msgid "%(n)s query"\nmsgid_plural "%(n)s queries"\nmsgstr[0] ""\n',
        encoding="utf-8",
    )
    assert [line.split(": ", 1)[1] for line in untranslated_messages(po)] == [
        "'Freeze'",
        "'Pools'",
        "'%(n)s query'",
    ]


def messages(po_path: Path) -> set[tuple[str | None, str, str]]:
    return {
        (entry.msgctxt, entry.msgid, entry.msgid_plural)
        for entry in polib.pofile(str(po_path))
        if not entry.obsolete
    }


# What the copy needs to run manage.py, and what makemessages reads of it: the templates and our
# scripts. The Python code's words are in the apps' catalogs, which their own extractor keeps
# (config/python_catalogs.py, checked by test_every_python_string_is_translated.py).
SOURCES = (
    "manage.py", "config", "sitewide", "annotation", "evaluation", "goldsmith", "templates",
    "static",
)  # fmt: skip
IGNORED = (
    ".venv", "var", "tests", "bench", "docs", "node_modules", "staticfiles", "*.py",
)  # fmt: skip


def extract_into_a_copy(copy: Path) -> None:
    for name in SOURCES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(
                source, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.mo")
            )
        else:
            shutil.copy2(source, copy / name)
    shutil.copytree(REPO / "locale", copy / "locale", ignore=shutil.ignore_patterns("*.mo"))
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(GOLDSMITH_VAR_DIR=str(copy / "var"), PYTHONPATH=str(copy))
    ignore = [arg for name in IGNORED for arg in ("-i", name)]
    for domain in ("django", "djangojs"):
        subprocess.run(
            [sys.executable, "manage.py", "makemessages", "-l", LANGUAGE, "-d", domain,
             "--no-obsolete", *ignore],
            cwd=copy, env=env, check=True, capture_output=True, timeout=300,
        )  # fmt: skip


def test_the_catalogs_hold_exactly_the_messages_of_the_sources(tmp_path):
    if shutil.which("xgettext") is None:
        pytest.skip("GNU gettext's xgettext is not installed (apt-get install gettext)")
    extract_into_a_copy(tmp_path)
    differences = []
    for po_path in zh_catalogs():
        if not po_path.is_relative_to(REPO / "locale"):
            continue  # an app's catalog: test_every_python_string_is_translated.py
        fresh = tmp_path / po_path.relative_to(REPO)
        committed, extracted = messages(po_path), messages(fresh)
        name = po_path.relative_to(REPO)
        differences += [f"{name}: not in the catalog: {m[1]!r}" for m in extracted - committed]
        differences += [
            f"{name}: no longer in the sources: {m[1]!r}" for m in committed - extracted
        ]
    assert differences == [], (
        "run `make messages`, translate what is new, then `manage.py compile_catalogs`:\n"
        + "\n".join(sorted(differences))
    )
