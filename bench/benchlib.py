"""What the benches share: a command timed under ``/usr/bin/time -v`` (wall, CPU, peak memory),
a running process's CPU seconds, Django set up (as in production where asked), the public data
in ``../shared/data``, seeded texts, rows written with PostgreSQL's COPY, and a signed-in session
for the benches that speak HTTP.

Imported by the scripts of this folder (``python bench/x.py`` puts bench/ on the path); importing
it puts the clone first on the path too, before any installed copy of its packages."""

from __future__ import annotations

import os
import random
import re
import secrets
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# The columns of a chunk row, in the order the COPY of a corpus writes them.
CHUNK_COLUMNS = ["project_id", "document_id", "chunk_id", "text", "position", "start", "end",
                 "metadata", "text_sha256", "text_changed", "removed", "updated_at"]  # fmt: skip
# A help desk's words: the texts of goldset_bench and kb_update_bench.
SUPPORT_WORDS = [
    "password",
    "reset",
    "invoice",
    "refund",
    "plan",
    "annual",
    "billing",
    "account",
    "login",
    "export",
    "csv",
    "report",
    "user",
    "admin",
    "team",
    "seat",
    "license",
    "upgrade",
    "downgrade",
    "cancel",
    "trial",
    "api",
    "token",
    "webhook",
    "error",
    "timeout",
    "latency",
    "region",
    "backup",
    "restore",
    "audit",
    "policy",
    "security",
    "sso",
    "saml",
    "scim",
    "email",
]
# The words of `sentence` (quickstart_bench).
VOCABULARY = (
    "install python package pip virtual environment error import module path version upgrade "
    "windows linux mac file read write open close loop list dict string format date time zone "
    "thread process async await socket http request response json parse encode decode unicode "
    "test mock fixture class method function argument return value exception raise catch log"
)
WORDS = VOCABULARY.split()


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


def wait_healthy(
    base: str, server: subprocess.Popen[Any], *, every: float = 0.5, timeout: float = 300
) -> None:
    """Ask GET ``base``/healthz (the readiness probe of a deployment) every ``every`` seconds
    until it answers 200; exit when the server ends first, or after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            said = server.stderr.read() if server.stderr else ""
            raise SystemExit(f"the server exited ({server.returncode}) before answering\n{said}")
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:  # refused, or an HTTP error status
            pass
        time.sleep(every)
    raise SystemExit("the server never answered /healthz")


def shared_data(*parts: str) -> Path:
    """$GOLDSMITH_SHARED_DATA, else `../shared/data` beside the clone (or beside the folder of
    worktrees that holds it); then ``parts`` below it."""
    if "GOLDSMITH_SHARED_DATA" in os.environ:
        return Path(os.environ["GOLDSMITH_SHARED_DATA"], *parts)
    near = [up / "shared" / "data" for up in (ROOT.parent, ROOT.parent.parent)]
    return next((p for p in near if p.exists()), near[0]).joinpath(*parts)


def production(env: MutableMapping[str, str]) -> None:
    """``env`` (``os.environ`` or a child's) measured as in production, where not set already:
    DEBUG off (no SQL recorded by every cursor), a random key (it signs only the bench's
    sessions) and the local host names."""
    env.setdefault("DEBUG", "0")
    env.setdefault("SECRET_KEY", secrets.token_urlsafe(60))
    env.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")


def django_setup() -> None:
    """Django set up in this process, on config.settings unless DJANGO_SETTINGS_MODULE names
    others."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def copy_rows(table: str, columns: list[str], rows: Iterable[tuple[Any, ...]]) -> None:
    """Write ``rows`` into ``table`` with PostgreSQL's COPY (Django's connection)."""
    from django.db import connection

    cols = ", ".join(f'"{c}"' for c in columns)
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY {table} ({cols}) FROM STDIN") as copy,
    ):
        for row in rows:
            copy.write_row(row)


def text_of(rng: random.Random, n_chars: int, words: list[str] = SUPPORT_WORDS) -> str:
    """Words drawn from ``words`` until the text holds at least ``n_chars`` characters."""
    drawn: list[str] = []
    size = 0
    while size < n_chars:
        w = rng.choice(words)
        drawn.append(w)
        size += len(w) + 1
    return " ".join(drawn)


def sentence(rng: random.Random, n: int) -> str:
    """``n`` words of :data:`VOCABULARY`, capitalised, with a full stop."""
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def sentences_corpus(
    project: Any, rng: random.Random, documents: int, chunks: int, *, batch_size: int
) -> list[int]:
    """``documents`` documents titled with a :func:`sentence` of 4 words and ``chunks`` chunks
    of four 12-word sentences, dealt to the documents in turn: the chunks' ids."""
    from annotation.models import Chunk, Document

    docs = Document.objects.bulk_create(
        [
            Document(project=project, doc_id=f"d{i}", title=sentence(rng, 4))
            for i in range(documents)
        ],
        batch_size=5000,
    )
    Chunk.objects.bulk_create(
        [
            Chunk(
                project=project,
                document=docs[i % len(docs)],
                chunk_id=f"c{i}",
                text=" ".join(sentence(rng, 12) for _ in range(4)),
                position=i // len(docs),
                text_sha256=f"{i:064x}",
            )
            for i in range(chunks)
        ],
        batch_size=batch_size,
    )
    return list(Chunk.objects.filter(project=project).values_list("id", flat=True))


def session_key(user: Any) -> str:
    """A stored session signed in as ``user`` (Django set up by the caller) through the first
    of AUTHENTICATION_BACKENDS (a session naming another backend is anonymous): the value of
    the ``sessionid`` cookie."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[0]
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    assert store.session_key is not None
    return store.session_key
