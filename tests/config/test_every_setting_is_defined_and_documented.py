"""Every setting the code reads is defined in config/settings.py (typed, with a default, read
from the environment there and nowhere else) and listed in README.md's configuration table.

The code is read, not run: a Python syntax tree of every module of the apps and of config/, so
a setting read on a path no test takes is still found."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.conf import global_settings
from django.core.exceptions import ImproperlyConfigured

from tests.conftest import REPO

APP_CODE = [
    p
    for folder in ("goldsmith", "sitewide", "annotation", "evaluation", "config")
    for p in sorted((REPO / folder).rglob("*.py"))
    if "migrations" not in p.parts
] + [REPO / "manage.py"]
SETTINGS_FILE = REPO / "config" / "settings.py"
# Set before Django reads its settings: it names the settings module, it is not a setting.
BOOTSTRAP = {"DJANGO_SETTINGS_MODULE"}
SETTING_NAME = re.compile(r"GOLDSMITH_[A-Z0-9_]*[A-Z0-9]")
ENV_HELPERS = {"env_bool", "env_int", "env_list"}


def tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def is_environ(node: ast.AST) -> bool:
    """`os.environ`"""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def environment_reads(module: ast.Module) -> list[tuple[str | None, int]]:
    """(variable name, line) of every read of the environment; the name is None when it is
    not a literal (e.g. a variable a lead names for an auth header). The bodies of the
    settings file's own helpers (env_bool, ...) are their callers' reads, not reads of theirs."""
    found: list[tuple[str | None, int]] = []
    for node in walk_outside(module, ENV_HELPERS):
        if isinstance(node, ast.Call):
            f, first = node.func, (node.args[0] if node.args else None)
            on_environ = isinstance(f, ast.Attribute) and (
                (is_environ(f.value) and f.attr in ("get", "pop")) or f.attr == "getenv"
            )
            if on_environ or (isinstance(f, ast.Name) and f.id in ENV_HELPERS):
                found.append((literal(first), node.lineno))
        elif (
            isinstance(node, ast.Subscript)
            and is_environ(node.value)
            and isinstance(node.ctx, ast.Load)
        ):
            found.append((literal(node.slice), node.lineno))
    return found


def walk_outside(node: ast.AST, functions: set[str]):
    """ast.walk, except the bodies of the functions named in `functions`."""
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef) and child.name in functions:
            continue
        yield from walk_outside(child, functions)


def imports_django_settings(module: ast.Module) -> bool:
    return any(
        isinstance(n, ast.ImportFrom)
        and n.module == "django.conf"
        and any(a.name == "settings" and a.asname is None for a in n.names)
        for n in ast.walk(module)
    )


def settings_reads(module: ast.Module) -> list[tuple[str, int]]:
    """(name, line) of `settings.NAME` and `getattr(settings, "NAME", ...)` in a module that
    imports Django's settings, and of every string that is a whole GOLDSMITH_… name (a setting
    read by name through a helper)."""
    found: list[tuple[str, int]] = []
    uses_settings = imports_django_settings(module)
    for node in ast.walk(module):
        if (
            uses_settings
            and isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "settings"
            and node.attr.isupper()
        ):
            found.append((node.attr, node.lineno))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr")
            and len(node.args) >= 2
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id == "settings"
        ):
            name = literal(node.args[1])
            assert name is not None, f"line {node.lineno}: read settings by a literal name"
            found.append((name, node.lineno))
        elif (name := literal(node)) is not None and SETTING_NAME.fullmatch(name):
            found.append((name, node.lineno))
    return found


def defined_settings() -> set[str]:
    """Upper-case names assigned in config/settings.py, at any depth (inside `if DEBUG:`)."""
    names: set[str] = set()
    for node in ast.walk(tree(SETTINGS_FILE)):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        names |= {t.id for t in targets if isinstance(t, ast.Name) and t.id.isupper()}
    return names


def readme_configuration() -> set[str]:
    """Every `NAME` in backticks in README.md's "## Configuration" section."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`([A-Z][A-Z0-9_]+)`", section))


def test_the_environment_is_read_in_config_settings_only():
    stray = [
        f"{path.relative_to(REPO)}:{line}: {name or '(a name in a variable)'}"
        for path in APP_CODE
        if path != SETTINGS_FILE
        for name, line in environment_reads(tree(path))
        if name not in BOOTSTRAP
        # A retriever's auth header from a variable an operator exposed (evaluation/credentials.py
        # checks the name against GOLDSMITH_SECRET_… and GOLDSMITH_RETRIEVER_SECRET_ENV).
        and not (name is None and path.name == "credentials.py")
        # The command line's --judge-header-env / --token-env: a variable the person running
        # `goldsmith` names on its command line (no Django settings exist there).
        and not (name is None and path.relative_to(REPO).as_posix() == "goldsmith/cli.py")
    ]
    assert stray == [], "read the environment in config/settings.py, not here: " + str(stray)


def test_every_setting_the_code_reads_is_defined_in_config_settings():
    defined = defined_settings()
    django_defaults = {n for n in dir(global_settings) if n.isupper()}
    missing = sorted(
        f"{path.relative_to(REPO)}:{line}: {name}"
        for path in APP_CODE
        if path != SETTINGS_FILE
        for name, line in settings_reads(tree(path))
        if name not in defined and name not in django_defaults
    )
    assert missing == [], f"not defined in config/settings.py: {missing}"


def test_every_variable_config_settings_reads_is_in_the_readme():
    listed = readme_configuration()
    read = {name for name, _ in environment_reads(tree(SETTINGS_FILE))}
    assert None not in read, "config/settings.py reads a variable by a computed name"
    goldsmith_settings = {n for n in defined_settings() if n.startswith("GOLDSMITH_")}
    assert sorted((read | goldsmith_settings) - listed) == []


def test_the_scan_sees_each_kind_of_read():
    code = ast.parse(
        "import os\nfrom django.conf import settings\n"
        "a = os.environ.get('A_VAR')\nb = os.environ['B_VAR']\nc = os.getenv('C_VAR')\n"
        "d = settings.D_SETTING\ne = getattr(settings, 'E_SETTING', 1)\n"
        "f = helper('GOLDSMITH_F_SETTING')\ng = os.environ.get(name)\n"
    )
    assert sorted(environment_reads(code), key=str) == sorted(
        [("A_VAR", 3), ("B_VAR", 4), ("C_VAR", 5), (None, 9)], key=str
    )
    assert {n for n, _ in settings_reads(code)} == {"D_SETTING", "E_SETTING", "GOLDSMITH_F_SETTING"}


@pytest.mark.parametrize(
    ("name", "value", "why"),
    [
        ("GOLDSMITH_EVAL_LANES", "0", "out of range"),
        ("GOLDSMITH_EVAL_LEASE_SECONDS", "soon", "is not an integer"),
        ("PORT", "70000", "out of range"),
        ("GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS", "maybe", "is not a boolean"),
        ("LOG_LEVEL", "LOUD", "is not a log level"),
    ],
)
def test_a_bad_value_stops_the_app_with_the_variables_name(monkeypatch, name, value, why):
    import importlib.util

    monkeypatch.setenv(name, value)
    spec = importlib.util.spec_from_file_location("settings_under_test", SETTINGS_FILE)
    assert spec is not None and spec.loader is not None
    with pytest.raises(ImproperlyConfigured, match=f"{name}=.*{why}"):
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
