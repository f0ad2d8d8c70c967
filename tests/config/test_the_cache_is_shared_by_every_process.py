"""Throttling counts in a cache that every web process and worker shares: Redis when REDIS_URL
is set, else a database table that `migrate` creates. Never per-process memory, where each
gunicorn worker would count alone."""

from __future__ import annotations

from tests.config.test_settings import run_django


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


SHOW_CACHE = "from django.conf import settings; print(settings.CACHES['default']['BACKEND'])"


def test_the_cache_is_redis_when_redis_url_is_set():
    result = run_django({"REDIS_URL": "redis://127.0.0.1:6379/8"}, "shell", "-c", SHOW_CACHE)
    assert result.returncode == 0, result.stderr
    assert last_line(result.stdout) == "django.core.cache.backends.redis.RedisCache"


def test_without_redis_migrate_makes_the_database_cache_ready(tmp_path):
    env = {"REDIS_URL": "", "DATABASE_URL": "", "GOLDSMITH_VAR_DIR": str(tmp_path)}
    result = run_django(env, "shell", "-c", SHOW_CACHE)
    assert last_line(result.stdout) == "django.core.cache.backends.db.DatabaseCache"
    migrate = run_django(env, "migrate", "--noinput")
    assert migrate.returncode == 0, migrate.stderr
    use = "from django.core.cache import cache; cache.set('k', 42); print(cache.get('k'))"
    result = run_django(env, "shell", "-c", use)
    assert result.returncode == 0, result.stderr
    assert last_line(result.stdout) == "42"


def test_gunicorn_workers_count_failed_sign_ins_together(transactional_db):
    """Two gunicorn workers that restart every 4 requests: no process sees 10 of the failed
    sign-ins, so only a shared cache locks the account (per-process memory never did)."""
    import http.cookiejar
    import re
    import socket
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.parse
    import urllib.request
    import uuid

    from django.contrib.auth import get_user_model

    from config.hashers import Argon2idPasswordHasher
    from tests.conftest import PASSWORD, REPO, wait_for, worker_environment

    username = f"gunicorn-{uuid.uuid4().hex[:8]}"
    user = get_user_model().objects.create_user(username)
    hasher = Argon2idPasswordHasher()  # one the server checks (the tests' own MD5 it does not)
    user.password = hasher.encode(PASSWORD, hasher.salt())
    user.save()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(worker_environment(), GOLDSMITH_SIGNIN_FAILURES_PER_ADDRESS="100000")
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "-w", "2", "-b", f"127.0.0.1:{port}",
         "--max-requests", "4", "--max-requests-jitter", "0", "--log-level", "warning"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"

    no_redirect = type(
        "NoRedirect", (urllib.request.HTTPRedirectHandler,), {"redirect_request": lambda *a: None}
    )
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), no_redirect()
    )

    def post(password: str) -> int:
        data = urllib.parse.urlencode(
            {"username": username, "password": password, "csrfmiddlewaretoken": csrf}
        ).encode()
        try:
            return opener.open(f"{base}/login/", data=data, timeout=30).status
        except urllib.error.HTTPError as error:
            return error.code

    def up() -> bool:
        try:
            return urllib.request.urlopen(f"{base}/healthz", timeout=5).status in {200, 503}
        except urllib.error.HTTPError:
            return True
        except OSError:
            return False

    try:
        wait_for(up, timeout=60, message="gunicorn")
        page = opener.open(f"{base}/login/", timeout=30).read().decode()
        csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        assert post(PASSWORD) == 302
        page = opener.open(f"{base}/login/", timeout=30).read().decode()  # signed in: a new token
        csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        assert [post(f"guess-{i}") for i in range(10)] == [200] * 10
        time.sleep(0.1)
        assert post(PASSWORD) == 429
    finally:
        server.terminate()
        server.wait(timeout=20)
