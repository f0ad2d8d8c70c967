"""Serve the app as in production, with a Celery worker beside it: the `make run` experience.

The web server is gunicorn, not Django's development server: `gthread` workers, one process per
core and 16 threads in each (see `web_processes`). Static files are collected into
`var/staticfiles` at start (again only when a source file changed) and served by WhiteNoise as
in production: hashed names, compressed, cached by browsers. Ctrl-C (or SIGTERM) stops the
server and the worker. The worker runs beat too, so scheduled jobs fire locally.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import gunicorn
from django.conf import settings
from django.contrib.staticfiles.finders import get_finders
from django.core.management.base import BaseCommand, CommandError

from annotation.demo import DEMO_LOGINS, DEMO_PROJECT, DEMO_PROJECT_ZH

# Threads per web process. A process runs Python on one core at a time (the GIL), so processes
# give parallelism and threads give overlap: while one thread waits for the database (SQLite's
# write lock, a PostgreSQL round trip) or a slow client, the others serve. A process renders
# one page at a time and lets the other reads wait in their threads (config/turns.py), so a
# grade save finds a free thread only if there are more threads than requests at once: 16 lets
# 16 people's requests all land on one process. A waiting thread costs little.
THREADS = 16
MAX_PROCESSES = 8  # beyond this a single machine's SQLite file or memory gives out first


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def web_processes() -> int:
    """One gunicorn process per core this process may run on (2 at least, so that a long
    request or a restarting process never leaves nobody to answer; 8 at most)."""
    return min(max(usable_cores(), 2), MAX_PROCESSES)


def static_fingerprint() -> str:
    """A hash of the name, size and modification time of every static source file."""
    digest = hashlib.sha256()
    for finder in get_finders():
        for path, storage in sorted(finder.list([]), key=lambda item: item[0]):
            stat = Path(storage.path(path)).stat()
            digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


class Command(BaseCommand):
    help = "Run the web server (gunicorn) and a Celery worker together until interrupted."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=settings.PORT)
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument(
            "--processes",
            type=int,
            default=web_processes(),
            help="gunicorn worker processes (default: one per core, 2 to 8)",
        )
        parser.add_argument(
            "--threads", type=int, default=THREADS, help="threads per web process (default: 16)"
        )

    def handle(self, *args, port: int, host: str, processes: int, threads: int, **options):
        if processes < 1 or threads < 1:
            raise CommandError("--processes and --threads are at least 1")
        python = sys.executable
        # Every child serves static files as collected (config/settings.py).
        env = {**os.environ, "GOLDSMITH_STATIC_COLLECTED": "1"}
        self.collect_static(python, env)
        worker = subprocess.Popen(
            [python, "-m", "celery", "-A", "config", "worker", "--beat", "--loglevel=WARNING",
             "--concurrency=2", "--schedule", str(settings.VAR_DIR / "celerybeat-schedule")],
            env=env,
        )  # fmt: skip
        gunicorn_cmd = [
            python, "-m", "gunicorn", "config.wsgi", "--bind", f"{host}:{port}",
            "--worker-class", "gthread", "--workers", str(processes), "--threads", str(threads),
            "--graceful-timeout", "10", "--log-level", "warning", "--chdir", str(settings.BASE_DIR),
            # A connection serves one request: kept open, a busy client's connections stay with
            # the process that accepted them (all 16 of the benchmark's once sat on one of two
            # processes, the other idle); a new connection goes to whichever process is free.
            "--keep-alive", "0",
        ]  # fmt: skip
        if gunicorn.version_info >= (25, 1):
            # Its control socket is one path per user (~/.gunicorn/gunicorn.ctl), which a second
            # server on the machine would take over; `make run` has no use for it.
            gunicorn_cmd.append("--no-control-socket")
        web = subprocess.Popen(gunicorn_cmd, env=env)
        broker = "Redis" if settings.REDIS_URL else "embedded filesystem broker (var/broker)"
        database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        self.stdout.write(
            "\n".join(
                [
                    "",
                    f"Goldsmith is running at http://{host}:{port}/",
                    f"  web server: gunicorn, {processes} processes x {threads} threads",
                    f"  database: {database}; broker: {broker}",
                    f"  demo projects: {DEMO_PROJECT!r} and {DEMO_PROJECT_ZH!r}; logins (password",
                    "  in brackets, the same role in both):",
                    *[f"    {user:<8} {role:<10} [{pw}]" for user, role, pw in DEMO_LOGINS],
                    "  Ctrl-C stops the server and the worker.",
                    "",
                ]
            )
        )
        stopping = False

        def stop(*_):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        try:
            while not stopping and worker.poll() is None and web.poll() is None:
                time.sleep(0.3)
        finally:
            for proc in (web, worker):
                if proc.poll() is None:
                    proc.terminate()
            for proc in (web, worker):
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
        if not stopping:
            which = "web server" if web.returncode is not None else "worker"
            self.stderr.write(f"The {which} stopped by itself (see its messages above).")
        self.stdout.write("Stopped the server and the worker.")

    def collect_static(self, python: str, env: dict[str, str]) -> None:
        """Collect, hash and compress the static files, unless they are as last collected
        (compressing them all takes a few seconds of CPU)."""
        stamp = Path(settings.VAR_DIR) / "staticfiles.fingerprint"
        fingerprint = static_fingerprint()
        manifest = Path(settings.STATIC_ROOT) / "staticfiles.json"
        if manifest.exists() and stamp.exists() and stamp.read_text() == fingerprint:
            return
        self.stdout.write("Collecting static files (once, and again when one changes)...")
        subprocess.run(
            [python, str(settings.BASE_DIR / "manage.py"), "collectstatic", "--noinput", "-v0"],
            env=env,
            check=True,
        )
        stamp.write_text(fingerprint)
