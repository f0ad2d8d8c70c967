"""What the benches share: a command timed under ``/usr/bin/time -v`` (wall, CPU, peak memory),
a running process's CPU seconds, and a signed-in session for the benches that speak HTTP.

Imported by the scripts of this folder (``python bench/x.py`` puts bench/ on the path)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Timed:
    """One command's cost as /usr/bin/time -v saw it; ``stdout`` is empty when it went to a
    file. CPU seconds (user + system) are the fairer figure on a loaded machine."""

    wall_s: float
    user_s: float
    system_s: float
    peak_rss_mib: float
    stdout: str
    stderr: str

    @property
    def cpu_s(self) -> float:
        return self.user_s + self.system_s


def _field(stderr: str, name: str) -> str:
    found = re.search(rf"{re.escape(name)}.*?: (\S+)\n", stderr)
    if found is None:
        raise SystemExit(f"/usr/bin/time -v printed no {name!r}:\n{stderr[-3000:]}")
    return found[1]


def run_timed(
    cmd: list[str],
    *,
    stdout: Path | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> Timed:
    """Run ``cmd`` under /usr/bin/time -v (its output into ``stdout`` when given); exit with
    its output when it fails."""
    out: Any = open(stdout, "w") if stdout else subprocess.PIPE  # noqa: SIM115
    try:
        done = subprocess.run(
            ["/usr/bin/time", "-v", *cmd], stdout=out, stderr=subprocess.PIPE, text=True,
            cwd=cwd, env=env,
        )  # fmt: skip
    finally:
        if stdout:
            out.close()
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(cmd)}\n{done.stdout or ''}\n"
                 f"{done.stderr[-3000:]}")  # fmt: skip
    clock = _field(done.stderr, "Elapsed (wall clock) time").split(":")
    wall = sum(float(part) * 60**i for i, part in enumerate(reversed(clock)))
    return Timed(
        wall_s=wall,
        user_s=float(_field(done.stderr, "User time (seconds)")),
        system_s=float(_field(done.stderr, "System time (seconds)")),
        peak_rss_mib=int(_field(done.stderr, "Maximum resident set size (kbytes)")) / 1024,
        stdout=done.stdout or "",
        stderr=done.stderr,
    )


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process and of its children (Linux /proc); 0 if gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return own + sum(cpu_seconds(int(child)) for child in children)


def session_key(user: Any) -> str:
    """A stored session signed in as ``user`` (Django set up by the caller): the value of the
    ``sessionid`` cookie."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    assert store.session_key is not None
    return store.session_key
