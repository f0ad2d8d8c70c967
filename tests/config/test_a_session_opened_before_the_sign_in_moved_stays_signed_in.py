"""The sign-in backend moved from annotation/ to config/; a session opened before the move names
the old path, which Django no longer trusts: the migration points it at the new one."""

from __future__ import annotations

import importlib

from django.apps import apps
from django.contrib.sessions.models import Session
from django.test import Client

migration = importlib.import_module("config.migrations.0001_sessions_name_the_moved_sign_in")


def a_session_signed_in_before_the_move(user) -> Client:
    client = Client()
    client.force_login(user, backend=migration.AFTER)
    session = client.session
    session["_auth_user_backend"] = migration.BEFORE
    session.save()
    return client


def signed_in(client: Client) -> bool:
    return client.get("/").status_code == 200  # the project list; signed out: to the sign-in


def test_the_migration_keeps_the_session_signed_in(personas):
    client = a_session_signed_in_before_the_move(personas.alice)
    migration.rename_backend(migration.BEFORE, migration.AFTER)(apps, None)
    assert signed_in(client)
    stored = Session.objects.get().get_decoded()
    assert stored["_auth_user_backend"] == "config.authentication.ThrottledModelBackend"


def test_without_it_the_old_path_signs_the_user_out(personas):
    assert not signed_in(a_session_signed_in_before_the_move(personas.alice))
