"""Fixtures of the corpus / query-log / sampling tests."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.core.management import call_command


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """`write("name.jsonl", text_or_bytes)` puts a file in a temporary directory."""

    def make(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    return make


@pytest.fixture
def run_command() -> Callable[..., str]:
    """`run_command("import_corpus", "--project", name, path)` returns what it printed."""

    def run(*args: object) -> str:
        out = io.StringIO()
        call_command(*[str(a) for a in args], stdout=out, stderr=io.StringIO())
        return out.getvalue()

    return run


@pytest.fixture
def eager_celery() -> Iterator[None]:
    """Run Celery tasks in-process (the upload views queue them on commit)."""
    from config.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before
