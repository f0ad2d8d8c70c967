"""Production settings fail loudly when they are missing or wrong; the deploy check passes."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO

PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "k" * 20 + "-production-secret-that-is-long-enough-0123456789",
    "ALLOWED_HOSTS": "goldsmith.example.com",
}


def run_django(env_overrides: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    # DJANGO_ALLOW_ASYNC_UNSAFE is set by the browser tests' harness, never in deployment.
    harness = {"DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {k: v for k, v in os.environ.items() if k not in harness}
    env.update(env_overrides)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True
    )


def test_it_refuses_to_start_in_production_without_a_secret_key():
    env = dict(PRODUCTION_ENV)
    del env["SECRET_KEY"]
    result = run_django(env, "check")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_it_refuses_a_short_secret_key():
    result = run_django(dict(PRODUCTION_ENV, SECRET_KEY="too-short"), "check")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_it_refuses_to_start_in_production_without_allowed_hosts():
    env = dict(PRODUCTION_ENV)
    del env["ALLOWED_HOSTS"]
    result = run_django(env, "check")
    assert result.returncode != 0
    assert "ALLOWED_HOSTS must be set" in result.stderr


def test_it_rejects_a_debug_value_that_is_not_a_boolean():
    result = run_django({"DEBUG": "maybe"}, "check")
    assert result.returncode != 0
    assert "DEBUG='maybe' is not a boolean" in result.stderr


def test_the_deploy_check_passes_with_a_production_environment():
    result = run_django(PRODUCTION_ENV, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_it_starts_locally_with_nothing_configured():
    result = run_django({}, "check")
    assert result.returncode == 0, result.stderr
