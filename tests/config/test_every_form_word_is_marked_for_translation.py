"""Every word a form shows is marked for translation where it is written: a field's label (else
Django derives one in English from the field's name: "File", "Seed", "Strategy"), its help
text, and each choice's label (else the stored code reaches the page: "stratified"). The
catalog tests read what is marked; this test finds what was never marked. Hidden fields show
nothing and are not read; a choice whose label is not a word (a number, a dash, a name such as
"BM25") is allowed."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest
from django import forms
from django.utils.functional import Promise

PACKAGES = ("annotation", "evaluation", "config")
NOT_A_WORD = re.compile(r"^[\W\d_]*$|^(BM25|TF-IDF|JSONL|CSV|TREC run|[A-Z0-9@._-]+)$")


def project_forms() -> list[type[forms.BaseForm]]:
    for package in PACKAGES:
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, f"{package}."):
            if ".migrations" in info.name or ".management" in info.name:
                continue
            importlib.import_module(info.name)
    found = []
    seen: set[type] = set()
    todo: list[type] = [forms.Form, forms.ModelForm]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub in seen:
                continue
            seen.add(sub)
            todo.append(sub)
            if sub.__module__.split(".")[0] in PACKAGES:
                found.append(sub)
    return sorted(found, key=lambda f: f"{f.__module__}.{f.__qualname__}")


def is_marked(value: object) -> bool:
    return isinstance(value, Promise)


def unmarked_words(form_class: type[forms.BaseForm]) -> list[str]:
    problems = []
    try:  # a form that sets its labels when made (Django's sign-in form) is read as made
        fields = form_class().fields
    except Exception:
        fields = form_class.base_fields
    for name, field in fields.items():
        if isinstance(field.widget, forms.HiddenInput):
            continue
        where = f"{form_class.__module__}.{form_class.__qualname__}.{name}"
        if field.label is None or (field.label and not is_marked(field.label)):
            problems.append(f"{where}: label {field.label!r} (derived from the field's name)")
        if field.help_text and not is_marked(field.help_text):
            problems.append(f"{where}: help text {str(field.help_text)[:60]!r}")
        if isinstance(field, forms.ModelChoiceField):
            continue  # its choices are rows: user data
        for value, label in getattr(field, "choices", None) or ():
            if isinstance(label, list | tuple):  # a group
                continue
            if not is_marked(label) and not NOT_A_WORD.match(str(label)) and str(label):
                problems.append(f"{where}: choice {value!r} shown as {str(label)!r}")
    return problems


@pytest.mark.django_db
def test_every_label_help_text_and_choice_of_a_form_is_marked_for_translation():
    problems = [p for form in project_forms() for p in unmarked_words(form)]
    assert not problems, f"{len(problems)} words never marked for translation:\n" + "\n".join(
        problems
    )
