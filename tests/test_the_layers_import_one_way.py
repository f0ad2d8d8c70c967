"""The house has floors and imports run one way:
config → evaluation → annotation → sitewide → goldsmith.

- ``goldsmith`` is the engine: numbers, parsers, formats, retrievers and the ``goldsmith``
  command. It imports no Django, no Celery and neither app, so it installs and runs on its own
  (a CI job scores a run file with no settings and no database).
- ``sitewide`` is what both apps share with the site (the refusal of unstorable text, the
  engine's sentences in the reader's language, download names). It imports neither app and
  not ``config``, so both apps may use it.
- ``annotation`` is the human process (projects, queues, grades, review, golden sets). It uses
  the engine and never the evaluation app: where its pages show evaluation's runs and drift
  alerts, the evaluation app puts them there (annotation/views/panels.py), and the demo that
  ends with evaluation runs is loaded from the evaluation app (evaluation/demo.py). An import
  that must stay goes on the list below, with its reason.
- ``evaluation`` (runs, reports, drift) may use both.
- ``config`` is the site that wires them together and may use all of them; neither app imports
  it. The site's pieces that need an app's models live there: API-token authentication and
  its throttling (annotation's ``ApiToken``), the navigation (the user's memberships).
- Inside annotation and inside evaluation, services (writes) may read through selectors,
  never the other way: a selector that needs a rule takes it from the engine.
- No floor imports itself in a circle: not annotation's services and selectors, not any module
  of evaluation, not the engine. A rule two modules need lives below both (evaluation's
  settings in services/settings.py, not in whichever module first needed them). The one
  exception is a Celery task trampoline: a service queues work through its app's `tasks`
  module, which calls the service back.

Every import statement counts, including those inside functions. See docs/design.md.
"""

from __future__ import annotations

import ast
import graphlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE_MAY_NOT_IMPORT = (
    "django",
    "rest_framework",
    "celery",
    "kombu",
    "annotation",
    "evaluation",
    "config",
    "sitewide",
)
APPS = ("annotation", "evaluation")

# (importing module, imported module) -> why annotation needs the evaluation app there.
ANNOTATION_USES_EVALUATION: dict[tuple[str, str], str] = {}

# (importing module, imported module) -> why this edge of a circle stays, for now.
KNOWN_CYCLE_EDGES: dict[tuple[str, str], str] = {}  # none left: name one here with its reason
TASK_TRAMPOLINES = ("annotation.tasks", "evaluation.tasks")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(package: str) -> list[tuple[str, int, str]]:
    """(module, line, imported module) for every import in `package`, tests excluded."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        module = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [(module, node.lineno, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = module.split(".")
                    if path.name != "__init__.py":
                        base = base[:-1]
                    base = base[: len(base) - node.level + 1]
                    target = ".".join([*base, node.module] if node.module else base)
                else:
                    target = node.module or ""
                names = [f"{target}.{a.name}" for a in node.names]
                found += [(module, node.lineno, target)]
                found += [(module, node.lineno, n) for n in names if _is_module(n)]
    return found


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _top(dotted: str) -> str:
    return dotted.split(".")[0]


def test_the_engine_imports_no_django_and_neither_app():
    wrong = [
        f"{module}:{line} imports {target}"
        for module, line, target in imports_of("goldsmith")
        if _top(target) in ENGINE_MAY_NOT_IMPORT
    ]
    assert wrong == []


def test_sitewide_imports_neither_app_nor_the_site():
    wrong = [
        f"{module}:{line} imports {target}"
        for module, line, target in imports_of("sitewide")
        if _top(target) in {*APPS, "config"}
    ]
    assert wrong == []


@pytest.mark.parametrize("app", APPS)
def test_the_apps_do_not_import_the_site(app):
    """`config` wires the apps together (settings, URLs, sign-in, tokens, `serve`): an app that
    imported it would close a circle through the settings."""
    wrong = [
        f"{module}:{line} imports {target}"
        for module, line, target in imports_of(app)
        if _top(target) == "config"
    ]
    assert wrong == []


def test_annotation_does_not_import_evaluation():
    seen = {
        (module, target): line
        for module, line, target in imports_of("annotation")
        if _top(target) == "evaluation"
    }
    unlisted = [
        f"{m}:{line} imports {t}"
        for (m, t), line in seen.items()
        if (m, t) not in ANNOTATION_USES_EVALUATION
    ]
    assert unlisted == []
    stale = [pair for pair in ANNOTATION_USES_EVALUATION if pair not in seen]
    assert stale == [], "listed but no longer imported: take them off the list"


def test_annotation_selectors_import_no_services():
    wrong = [
        f"{module}:{line} imports {target}"
        for module, line, target in imports_of("annotation")
        if module.startswith("annotation.selectors") and target.startswith("annotation.services")
    ]
    assert wrong == []


def test_annotation_services_and_selectors_import_one_another_without_a_cycle():
    """A cycle is what lazy imports inside functions once hid (a selector, the agreement
    service and the adjudication service each importing the next)."""
    layer = ("annotation.services.", "annotation.selectors.")
    graph: dict[str, set[str]] = {}
    for module, _, target in imports_of("annotation"):
        if module.startswith(layer) and target.startswith(layer) and _is_module(target):
            graph.setdefault(module, set()).add(target)
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as cycle:
        raise AssertionError(f"import cycle: {' -> '.join(cycle.args[1])}") from None


def test_evaluation_selectors_import_no_services():
    wrong = [
        f"{module}:{line} imports {target}"
        for module, line, target in imports_of("evaluation")
        if module.startswith("evaluation.selectors") and target.startswith("evaluation.services")
    ]
    assert wrong == []


def _cycle(package: str) -> list[str] | None:
    """A circle of imports between the modules of `package` (those inside functions too), or
    None. Task trampolines and the known edges are left out."""
    graph: dict[str, set[str]] = {}
    for module, _, target in imports_of(package):
        if not target.startswith(f"{package}.") or not _is_module(target) or module == target:
            continue
        if target in TASK_TRAMPOLINES or (module, target) in KNOWN_CYCLE_EDGES:
            continue
        graph.setdefault(module, set()).add(target)
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as cycle:
        return list(cycle.args[1])
    return None


def test_evaluation_imports_itself_without_a_cycle():
    """A cycle is what lazy imports once hid in evaluation's services: answers, reports,
    retrievers, executors and answer judges importing one another for the settings and the
    headline K, which now live in services/settings.py."""
    cycle = _cycle("evaluation")
    assert cycle is None, f"import cycle: {' -> '.join(cycle or [])}"


def test_the_engine_imports_itself_without_a_cycle():
    cycle = _cycle("goldsmith")
    assert cycle is None, f"import cycle: {' -> '.join(cycle or [])}"


def test_every_known_cycle_edge_is_still_there():
    seen = {(m, t) for pkg in ("annotation", "evaluation") for m, _, t in imports_of(pkg)}
    stale = [pair for pair in KNOWN_CYCLE_EDGES if pair not in seen]
    assert stale == [], "listed but no longer imported: take them off the list"


def test_the_cycle_rule_sees_a_circle_through_a_lazy_import(tmp_path, monkeypatch):
    package = tmp_path / "goldsmith"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from goldsmith import b\n")
    (package / "b.py").write_text("def f():\n    from goldsmith.a import x\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert set(_cycle("goldsmith") or []) == {"goldsmith.a", "goldsmith.b"}


def test_the_rule_sees_an_import_inside_a_function(tmp_path, monkeypatch):
    """The check reads nested, relative and `from x import module` imports alike."""
    package = tmp_path / "goldsmith"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "leaf.py").write_text(
        "def f():\n    from .. import other\n    import django.conf\n"
    )
    (package / "other.py").write_text("")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    targets = {t for _, _, t in imports_of("goldsmith")}
    assert {"goldsmith", "goldsmith.other", "django.conf"} <= targets


def test_the_whole_engine_imports_without_django_in_a_fresh_interpreter():
    modules = sorted(_module_name(p) for p in (ROOT / "goldsmith").rglob("*.py"))
    code = (
        "import sys\n"
        f"for m in {modules!r}:\n"
        "    __import__(m)\n"
        f"bad = sorted(n for n in sys.modules if n.split('.')[0] in {ENGINE_MAY_NOT_IMPORT!r})\n"
        "print(','.join(bad))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_the_eval_command_does_not_import_scipy_or_django():
    code = (
        "import sys\n"
        "import goldsmith.cli\n"
        "print(any(n.split('.')[0] in ('django', 'scipy') for n in sys.modules))\n"
    )
    proc = run_python(code)
    assert proc.stdout.strip() == "False", proc.stderr


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    """`code` in a fresh interpreter, from the repository's root."""
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


def test_the_annotation_page_does_not_load_scikit_learn():
    """scikit-learn takes over a second to import: a server process must not pay it on its
    first annotation page (query-term highlighting once did, for a stop-word list)."""
    code = (
        "import os, sys, django\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'config.settings')\n"
        "django.setup()\n"
        "from annotation.selectors.judging import highlight_segments, query_terms\n"
        "from annotation.views import annotate\n"
        "highlight_segments('Install the pip package', query_terms('how do I install pip'))\n"
        "print('sklearn' in sys.modules)\n"
    )
    proc = run_python(code)
    assert proc.stdout.strip() == "False", proc.stderr
