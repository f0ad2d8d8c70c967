"""`make messages` keeps the translation of a sentence that moves from one app's catalog to
another's: a page's sentence the engine now says (`say`, collected into annotation's catalog)
arrives there translated, as evaluation's catalog had it, instead of untranslated."""

from __future__ import annotations

from pathlib import Path

import polib

from config import python_catalogs as C


def _catalog(path: Path, entries: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    po = polib.POFile(wrapwidth=0)
    po.metadata = {"Content-Type": "text/plain; charset=UTF-8"}
    for msgid, msgstr in entries.items():
        po.append(polib.POEntry(msgid=msgid, msgstr=msgstr))
    po.save(str(path))


def test_a_sentence_the_engine_now_says_keeps_the_translation_a_page_had(tmp_path, monkeypatch):
    where = {app: tmp_path / app / "django.po" for app in ("annotation", "evaluation")}
    _catalog(where["annotation"], {"kept": "保留"})
    _catalog(where["evaluation"], {"within noise": "在噪声范围内", "page word": "页面词"})
    source = tmp_path / "engine.py"
    source.write_text('say("within noise")\nsay("kept")\nsay("brand new")\ngettext("x")\n')
    page = tmp_path / "page.py"
    page.write_text('gettext("page word")\n')
    monkeypatch.setattr(C, "ROOT", tmp_path)
    monkeypatch.setattr(C, "catalog_path", lambda app, language: where[app])
    monkeypatch.setattr(
        C,
        "marked_messages",
        lambda: {
            "annotation": {o.message: [o] for o in C.messages_in(source) if o.message.msgid},
            "evaluation": {o.message: [o] for o in C.messages_in(page)},
        },
    )

    C.update_catalogs()

    annotation = {e.msgid: e for e in polib.pofile(str(where["annotation"]))}
    assert annotation["within noise"].msgstr == "在噪声范围内"  # moved, still translated
    assert annotation["kept"].msgstr == "保留"
    assert annotation["brand new"].msgstr == ""  # new: for a translator
    evaluation = {e.msgid: e for e in polib.pofile(str(where["evaluation"]))}
    assert evaluation["within noise"].obsolete and not evaluation["page word"].obsolete
