"""`make run` on a fresh clone: installs, migrates, loads the demo, serves, stops cleanly."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def fetch(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_make_run_serves_a_fresh_clone_and_stops_cleanly(tmp_path: Path):
    if shutil.which("git") is None or shutil.which("make") is None:
        pytest.skip("git and make are needed to clone and run the project")
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    clone = tmp_path / "goldsmith"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    port = free_port()
    # Nothing else installed: no DATABASE_URL, no REDIS_URL (SQLite + embedded broker).
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "GOLDSMITH_VAR_DIR", "DJANGO_SETTINGS_MODULE"}
        and not k.startswith(("PYTEST", "VIRTUAL_ENV"))
    }
    env["PORT"] = str(port)
    log_path = tmp_path / "make-run.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            ["make", "run"], cwd=clone, env=env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 600
        status = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                status, body = fetch(f"http://127.0.0.1:{port}/healthz")
            except OSError:
                status = None
            if status == 200:
                break
            time.sleep(1)
        output = log_path.read_text(errors="replace")
        assert status == 200, f"/healthz never answered 200; make run printed:\n{output[-3000:]}"
        assert b'"broker": "ok"' in body
        login_status, login_body = fetch(f"http://127.0.0.1:{port}/login/")
        assert login_status == 200 and b"Sign in" in login_body
        assert f"http://127.0.0.1:{port}/" in output
        assert "goldsmith-demo" in output  # the demo logins are printed
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=60)
        finally:
            stopped = not group_alive(proc.pid) or _wait_group_gone(proc.pid)
            if not stopped:
                os.killpg(proc.pid, signal.SIGKILL)
    assert stopped, "make run left processes behind after Ctrl-C"
    assert "Stopped the server and the worker." in log_path.read_text(errors="replace")


def _wait_group_gone(pgid: int, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not group_alive(pgid):
            return True
        time.sleep(0.5)
    return False
