"""Shared fixtures: personas, API clients, a real Celery worker, the shared public data."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

REPO = Path(__file__).resolve().parent.parent


# CPython 3.11 can leave a thread's count of the AST constructor's recursion wrong after that
# thread caught a RecursionError (the readers refuse deeply nested JSON that way); every later
# `ast.parse` in the thread then raises SystemError "AST constructor recursion depth mismatch",
# pytest's own traceback printer included. A parse that meets it is done again in a new thread,
# which starts from zero (config/python_catalogs.py parses that way always).
_ast_parse = ast.parse


def _ast_parse_past_the_cpython_bug(*args: Any, **kwargs: Any) -> Any:
    try:
        return _ast_parse(*args, **kwargs)
    except SystemError as error:
        if "recursion depth mismatch" not in str(error):
            raise
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(_ast_parse, *args, **kwargs).result()


ast.parse = _ast_parse_past_the_cpython_bug  # type: ignore[assignment]
PASSWORD = "correct-horse-battery"


def shared_data_dir() -> Path:
    """`../shared/data` beside the clone (or $GOLDSMITH_SHARED_DATA)."""
    return Path(os.environ.get("GOLDSMITH_SHARED_DATA", REPO.parent / "shared" / "data"))


def require_shared_data(*parts: str) -> Path:
    path = shared_data_dir().joinpath(*parts)
    if not path.exists():
        pytest.skip(
            f"public test data {path} is absent (it lives in ../shared/data beside the clone)"
        )
    return path


def pytest_sessionstart(session: pytest.Session) -> None:
    """The translation catalogs' .mo files are build output (never committed): compile the
    ones missing or older than their .po before any test renders a page."""
    from config.catalogs import compile_catalogs

    if compile_catalogs():
        # A catalog read before it was compiled would stay cached for the whole session.
        from django.utils.translation import trans_real

        trans_real._translations = {}
        trans_real._default = None


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """PBKDF2's deliberate slowness is for attackers, not for test setup."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session", autouse=True)
def _flush_past_the_frozen_version_triggers() -> Iterator[None]:
    """After a transactional test Django empties the database with one TRUNCATE of every
    table, which the golden-set tables refuse on PostgreSQL (migration 0012). The suite's own
    flush runs as a replica session, where no ordinary trigger fires; only a superuser may set
    that (the test database's owner in CI; PostgreSQL 15+ can `GRANT SET ON PARAMETER
    session_replication_role` to another role). Nothing outside the tests flushes this way."""
    from django.db import connection, transaction

    if connection.vendor != "postgresql":
        yield
        return
    operations = type(connection.ops)
    flush = operations.execute_sql_flush

    def execute_sql_flush(self, sql_list):  # type: ignore[no-untyped-def]
        with transaction.atomic(using=self.connection.alias):
            with self.connection.cursor() as cursor:
                cursor.execute("SET LOCAL session_replication_role = replica")
            flush(self, sql_list)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(operations, "execute_sql_flush", execute_sql_flush)
        yield


@pytest.fixture(autouse=True)
def _a_cache_of_its_own(settings):
    """Each test counts sign-in failures and API requests in keys of its own: the shared cache
    (Redis, or a table that outlives transactional tests) would carry them into the next test."""
    settings.CACHES = {
        name: dict(config, KEY_PREFIX=f"test-{uuid.uuid4().hex[:12]}")
        for name, config in settings.CACHES.items()
    }


@dataclass
class Personas:
    """alice leads, bob and carol annotate, victor views, mallory is not a member."""

    project: object
    alice: object
    bob: object
    carol: object
    victor: object
    mallory: object

    def by_role(self) -> dict[str, object]:
        return {
            "lead": self.alice,
            "annotator": self.bob,
            "viewer": self.victor,
            "outsider": self.mallory,
        }


@pytest.fixture
def personas(db) -> Personas:
    from django.contrib.auth import get_user_model

    from annotation.services.projects import project_setup

    setup = project_setup(
        name="Acme Support",
        leads=["alice"],
        annotators=["bob", "carol"],
        viewers=["victor"],
        password=PASSWORD,
    )
    user_model = get_user_model()
    mallory = user_model.objects.create_user("mallory", password=PASSWORD)
    users = {u.username: u for u in user_model.objects.all()}
    return Personas(
        project=setup.project,
        alice=users["alice"],
        bob=users["bob"],
        carol=users["carol"],
        victor=users["victor"],
        mallory=mallory,
    )


@pytest.fixture
def api_client_for():
    """`api_client_for(user)` gives a DRF client signed in as that user (None: anonymous)."""

    def make(user) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client

    return make


def worker_environment() -> dict[str, str]:
    """The environment a worker subprocess needs to use the *test* database and our broker."""
    from django.db import connection

    env = dict(os.environ)
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        env["DATABASE_URL"] = f"sqlite:///{db['NAME']}"
    else:
        user = db.get("USER") or ""
        password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
        auth = f"{user}{password}@" if user else ""
        host = f"{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}"
        env["DATABASE_URL"] = f"postgres://{auth}{host}/{db['NAME']}"
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    env["CELERY_TASK_ALWAYS_EAGER"] = "0"
    return env


class WorkerProcess:
    """A real `celery worker` subprocess; `restart()` and `kill()` for crash tests."""

    def __init__(self, queues: str = "celery", concurrency: int = 1) -> None:
        self.queues = queues
        self.concurrency = concurrency
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = Path(settings.VAR_DIR) / f"test-worker-{uuid.uuid4().hex[:8]}.log"

    def start(self) -> None:
        env = worker_environment()
        cmd = [
            sys.executable, "-m", "celery", "-A", "config", "worker",
            "--loglevel=INFO", f"--concurrency={self.concurrency}", "-Q", self.queues,
            "--without-gossip", "--without-mingle", "--without-heartbeat",
            f"--hostname=test-{uuid.uuid4().hex[:6]}@%h",
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            cmd, cwd=REPO, env=env, stdout=self.log.open("wb"), stderr=subprocess.STDOUT
        )

    def kill(self) -> None:
        """SIGKILL the worker and its pool children, as a crashed machine would."""
        if self.proc and self.proc.poll() is None:
            subprocess.run(["pkill", "-9", "-P", str(self.proc.pid)], check=False)
            self.proc.kill()
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.2, message: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {message}")


@pytest.fixture
def celery_worker_process(transactional_db) -> Iterator[WorkerProcess]:
    """A real worker on the configured broker (Redis when REDIS_URL is set), on the test DB."""
    subprocess.run(
        [sys.executable, "-m", "celery", "-A", "config", "purge", "-f"],
        cwd=REPO, env=worker_environment(), capture_output=True, check=False,
    )  # fmt: skip
    worker = WorkerProcess()
    worker.start()
    yield worker
    worker.stop()
    worker.log.unlink(missing_ok=True)
