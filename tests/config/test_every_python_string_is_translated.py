"""Every sentence the Python code shows a person is marked for translation, and the apps'
catalogs translate every marked string.

Where a person reads a sentence the code wrote: page messages, form labels, help texts and
errors, API refusals (`ValidationError`, `PermissionDenied`, `NotFound`, `detail=`), model
choices and names, and the engine's sentences (`goldsmith.text.say`, translated by the apps).
Machine-readable codes, logs and the command line stay English and are not looked at.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import polib
import pytest

from config.python_catalogs import (
    CATALOG_OF,
    LANGUAGES,
    ROOT,
    catalog_path,
    marked_messages,
    messages_in,
    python_files,
)

MARKERS = {
    "gettext",
    "gettext_lazy",
    "ngettext",
    "ngettext_lazy",
    "pgettext",
    "pgettext_lazy",
    "npgettext",
    "say",
}
# Calls whose first argument a person reads.
REFUSALS = {
    "ValidationError",
    "PermissionDenied",
    "NotFound",
    "Http404",
    "ParseError",
    "AuthenticationFailed",
    "NotAuthenticated",
    "APIException",
    "RetrieverInvalid",
    "EndpointInvalid",
    "SettingsInvalid",
    "RunInvalid",
    "SamplingError",
    "JudgingClosed",
    "UploadRefused",
    "SecretUnavailable",
    "send_mail",
    "mail_admins",
}
# Keyword arguments a person reads (a form's or serializer's label, help and name).
READ_KEYWORDS = {"detail", "help_text", "verbose_name", "verbose_name_plural", "label", "subject"}
MESSAGE_LEVELS = {"success", "error", "info", "warning", "debug"}
# Where the user-facing code lives (the apps and the site's own: sign-in, throttling, the text
# check); management commands speak English on the command line.
APP_FOLDERS = ("annotation", "evaluation", "sitewide", "config")


def _is_sentence(node: ast.expr) -> bool:
    """A literal (or f-string, or literal joined with +) holding letters."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and bool(re.search(r"[A-Za-z]{2}", node.value))
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _is_sentence(node.left) or _is_sentence(node.right)
    return False


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def unmarked_sentences(source: str, filename: str = "<source>") -> Iterator[tuple[int, str]]:
    """(line, text) of each sentence a person reads that no gettext call wraps."""
    tree = ast.parse(source, filename=filename)
    for node in ast.walk(tree):
        read: list[ast.expr] = []
        if isinstance(node, ast.Call):
            name = _call_name(node)
            if name in MARKERS:
                continue
            func = node.func
            if (
                name in MESSAGE_LEVELS
                and isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == "messages"
            ):
                read += node.args[1:2]
            elif name == "add_message":
                read += node.args[2:3]
            elif name in REFUSALS:
                read += node.args[:1]
            read += [k.value for k in node.keywords if k.arg in READ_KEYWORDS]
            if name == "Response" and node.args and isinstance(node.args[0], ast.Dict):
                read += [
                    v
                    for k, v in zip(node.args[0].keys, node.args[0].values, strict=True)
                    if isinstance(k, ast.Constant) and k.value == "detail"
                ]
        elif isinstance(node, ast.ClassDef) and any(
            (b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", ""))
            in {"TextChoices", "IntegerChoices"}
            for b in node.bases
        ):
            for statement in node.body:  # NAME = value, "Label"
                if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Tuple):
                    read += statement.value.elts[-1:]
        elif isinstance(node, ast.ClassDef) and node.name == "Meta":
            read += [
                s.value
                for s in node.body
                if isinstance(s, ast.Assign)
                and isinstance(s.targets[0], ast.Name)
                and s.targets[0].id in {"verbose_name", "verbose_name_plural"}
            ]
        for value in read:
            if _is_sentence(value):
                yield value.lineno, ast.unparse(value)[:90]


def app_sources() -> list[Path]:
    return [
        path
        for folder in APP_FOLDERS
        for path in python_files(folder)
        if "management" not in path.relative_to(ROOT).parts
    ]


def test_every_sentence_the_apps_show_is_marked_for_translation():
    unmarked = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for path in app_sources()
        for line, text in unmarked_sentences(path.read_text(encoding="utf-8"), str(path))
    ]
    assert not unmarked, "wrap these in gettext/gettext_lazy/ngettext:\n" + "\n".join(unmarked)


@pytest.mark.parametrize(
    "source",
    [
        'messages.success(request, "Saved.")',
        'messages.error(request, f"{name} is gone.")',
        'raise serializers.ValidationError({"file": ["bad"]}) or ValidationError("Bad value")',
        'raise PermissionDenied("Only leads may.")',
        'raise Http404("No such project")',
        'x = forms.CharField(help_text="Leave empty for all.")',
        'x = forms.CharField(label="Top " + "k")',
        'Response({"detail": "No such token."}, status=404)',
        'class State(models.TextChoices):\n    OPEN = "open", "Being annotated"',
        'class Meta:\n    verbose_name = "golden item"',
        'send_mail("Drift on your retriever", body, None, [to])',
    ],
)
def test_the_scan_finds_an_unmarked_sentence(source):
    """The check above can fail: each of these is a sentence a person would read in English."""
    assert list(unmarked_sentences(source))


@pytest.mark.parametrize(
    "source",
    [
        'messages.success(request, gettext("Saved."))',
        'raise Http404(gettext("No such project"))',
        'x = forms.CharField(help_text=gettext_lazy("Leave empty for all."))',
        'messages.error(request, ngettext("%(n)s query", "%(n)s queries", n) % {"n": n})',
        'raise ValidationError({"limit": [gettext("must be an integer")]}, code="invalid")',
        'logger.error("import %s failed", pk)',
    ],
)
def test_the_scan_accepts_marked_sentences_and_logs(source):
    assert not list(unmarked_sentences(source))


def test_the_engine_refuses_an_input_file_in_sentences_the_apps_can_translate():
    """A reader's reason is a `goldsmith.text.Text` (from `say`), never a bare string."""
    bare = []
    for name in ("readers.py", "limits.py"):
        path = ROOT / "goldsmith" / "intake" / name
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _call_name(node) in {"ReadError", "fail"}:
                reason = node.args[-1] if node.args else None
                if reason is not None and _is_sentence(reason):
                    bare.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Return) and node.value is not None:
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                bare += [
                    f"{path.relative_to(ROOT)}:{node.lineno}" for v in values if _is_sentence(v)
                ]
    assert not bare, "say(...) these reasons: " + ", ".join(bare)


def test_markers_hold_literal_strings():
    """gettext(variable) cannot be extracted: only `sitewide.i18n` translates run-time
    templates (the engine's, which are extracted from `say` calls)."""
    dynamic = [
        f"{o.path.relative_to(ROOT)}:{o.line}"
        for folder in CATALOG_OF
        for path in python_files(folder)
        if path != ROOT / "sitewide" / "i18n.py"
        for o in messages_in(path)
        if not o.message.msgid
    ]
    assert not dynamic


PLACEHOLDER = re.compile(r"%\((\w+)\)[-#0 +]*\d*(?:\.\d+)?[srdifgx]|%%")


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("app", sorted(set(CATALOG_OF.values())))
def test_the_catalog_translates_every_marked_string(app, language):
    path = catalog_path(app, language)
    assert path.exists(), f"no catalog {path.relative_to(ROOT)}: run `make messages`"
    catalog = polib.pofile(str(path))
    entries = {(e.msgctxt or "", e.msgid): e for e in catalog if not e.obsolete}
    problems = []
    for message, occurrences in sorted(marked_messages()[app].items()):
        where = f"{occurrences[0].path.relative_to(ROOT)}:{occurrences[0].line}"
        entry = entries.pop((message.context, message.msgid), None)
        if entry is None:
            problems.append(f"missing {message.msgid!r} ({where}): run `make messages`")
            continue
        translations = list(entry.msgstr_plural.values()) if message.plural else [entry.msgstr]
        if "fuzzy" in entry.flags or not all(t.strip() for t in translations):
            problems.append(f"untranslated {message.msgid!r} ({where})")
            continue
        wanted = sorted(PLACEHOLDER.findall(message.msgid))
        for text in translations:
            if sorted(PLACEHOLDER.findall(text)) != wanted:
                problems.append(f"placeholders differ in {message.msgid!r}: {text!r}")
    problems += [f"no longer used: {msgid!r}" for _, msgid in entries]
    assert not problems, "\n".join(problems)
