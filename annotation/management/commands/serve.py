"""Serve the app with a Celery worker beside it: the `make run` experience.

Ctrl-C (or SIGTERM) stops both. The worker runs beat too, so scheduled jobs fire locally.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand

from annotation.demo import DEMO_LOGINS, DEMO_PROJECT


class Command(BaseCommand):
    help = "Run the web server and a Celery worker together until interrupted."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=settings.PORT)
        parser.add_argument("--host", default="127.0.0.1")

    def handle(self, *args, port: int, host: str, **options):
        python = sys.executable
        worker = subprocess.Popen(
            [python, "-m", "celery", "-A", "config", "worker", "--beat", "--loglevel=WARNING",
             "--concurrency=2", "--schedule", str(settings.VAR_DIR / "celerybeat-schedule")],
        )  # fmt: skip
        web = subprocess.Popen(
            [python, "manage.py", "runserver", "--noreload", f"{host}:{port}"],
        )
        broker = "Redis" if settings.REDIS_URL else "embedded filesystem broker (var/broker)"
        database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        self.stdout.write(
            "\n".join(
                [
                    "",
                    f"Goldsmith is running at http://{host}:{port}/",
                    f"  database: {database}; broker: {broker}",
                    f"  demo project: {DEMO_PROJECT!r}; logins (password in brackets):",
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
        self.stdout.write("Stopped the server and the worker.")
