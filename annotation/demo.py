"""The demo project that `make run` loads: idempotent, built with the real services."""

from __future__ import annotations

from .services.projects import project_setup

DEMO_PROJECT = "Python docs demo"
DEMO_PASSWORD = "goldsmith-demo"
DEMO_LOGINS: list[tuple[str, str, str]] = [
    ("lead", "lead", DEMO_PASSWORD),
    ("alice", "annotator", DEMO_PASSWORD),
    ("bob", "annotator", DEMO_PASSWORD),
    ("viewer", "viewer", DEMO_PASSWORD),
]


def demo_load() -> list[str]:
    """Create (or leave as is) the demo project; returns what it did, line by line."""
    setup = project_setup(
        name=DEMO_PROJECT,
        leads=[u for u, role, _ in DEMO_LOGINS if role == "lead"],
        annotators=[u for u, role, _ in DEMO_LOGINS if role == "annotator"],
        viewers=[u for u, role, _ in DEMO_LOGINS if role == "viewer"],
        password=DEMO_PASSWORD,
    )
    done = [
        f"demo project {setup.project.name!r} {'created' if setup.changed else 'already there'}"
    ]
    return done
