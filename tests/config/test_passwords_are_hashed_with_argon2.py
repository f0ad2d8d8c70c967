"""Passwords are hashed with Argon2; a PBKDF2 hash is upgraded the next time its user signs in.

PBKDF2 (Django's default) took 0.8-1.8 s per sign-in on two cores; Argon2id (19 MiB, 2 passes,
1 lane) is slow for an attacker through memory, not through time on our CPUs
(bench/signin_time.py).
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password

PASSWORD = "a-long-enough-passphrase-42"


@pytest.fixture(autouse=True)
def _fast_password_hashing():
    """Overrides the suite's MD5 shortcut: these tests are about the configured hashers."""


def test_a_new_password_is_hashed_with_argon2(db):
    user = get_user_model().objects.create_user("dora", password=PASSWORD)
    assert user.password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")


def test_an_argon2_hash_with_other_parameters_is_upgraded_too(client, db):
    from django.contrib.auth.hashers import Argon2PasswordHasher

    user = get_user_model().objects.create_user("gus")
    user.password = Argon2PasswordHasher().encode(PASSWORD, Argon2PasswordHasher().salt())
    user.save()
    assert "m=102400" in user.password
    assert client.post("/login/", {"username": "gus", "password": PASSWORD}).status_code == 302
    user.refresh_from_db()
    assert user.password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")


def test_a_pbkdf2_user_signs_in_and_is_rehashed_with_argon2(client, db):
    user = get_user_model().objects.create_user("erin")
    user.password = make_password(PASSWORD, hasher="pbkdf2_sha256")
    user.save()
    response = client.post("/login/", {"username": "erin", "password": PASSWORD})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.password.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")
    assert user.check_password(PASSWORD)
    # And the new hash signs in too.
    client.logout()
    assert client.post("/login/", {"username": "erin", "password": PASSWORD}).status_code == 302


def test_a_wrong_password_does_not_rehash(client, db):
    user = get_user_model().objects.create_user("fay")
    user.password = make_password(PASSWORD, hasher="pbkdf2_sha256")
    user.save()
    response = client.post("/login/", {"username": "fay", "password": "not-it"})
    assert response.status_code == 200
    user.refresh_from_db()
    assert user.password.startswith("pbkdf2_sha256$")
