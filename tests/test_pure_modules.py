"""The pure modules import no Django, so the CLI and CI jobs need no settings.

Every number, parser and policy that the web app, the workers and the `goldsmith` command share
lives in one of these; a test imports them in a fresh interpreter.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PURE = [
    "evaluation.metrics",
    "evaluation.stats",
    "evaluation.formats",
    "evaluation.cli",
    "evaluation.builtin_retrievers",
    "evaluation.ssrf",
    "evaluation.http_retriever",
    "evaluation.presets",
    "evaluation.verdicts",
    "evaluation.reporting",
    "annotation.agreement",
    "annotation.pii",
    "annotation.readers",
    "annotation.chunking",
    "annotation.normalize",
    "annotation.sampling",
    "annotation.cranfield",
    "annotation.goldset_io",
    "annotation.spreadsheets",
    "annotation.upload_limits",
]


def test_the_pure_modules_import_without_django():
    code = (
        "import sys\n"
        f"for m in {PURE!r}:\n"
        "    __import__(m)\n"
        "bad = sorted(n for n in sys.modules if n == 'django' or n.startswith('django.'))\n"
        "print(','.join(bad))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
        env={"PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_the_eval_command_does_not_import_scipy_or_django():
    code = (
        "import sys\n"
        "import evaluation.cli\n"
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
        cwd=Path(__file__).resolve().parents[1],
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
