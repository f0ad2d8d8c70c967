"""Sign-in is throttled per account and per address: the probe's 50 wrong passwords followed by
the right one signed in; now the account is refused, right password included, with the reason
and a 429, until the lockout ends. Behind a proxy only the configured header gives the address.
"""

from __future__ import annotations

import time

import pytest
from django.test import Client

from tests.conftest import PASSWORD


def sign_in(client: Client, username: str, password: str, address: str = "198.51.100.7", **extra):
    return client.post(
        "/login/", {"username": username, "password": password}, REMOTE_ADDR=address, **extra
    )


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_fifty_wrong_passwords_then_the_right_one_is_refused(personas):
    client = Client()
    statuses = [sign_in(client, "alice", f"guess-{i}").status_code for i in range(50)]
    assert statuses[:10] == [200] * 10  # the form again: wrong username or password
    assert set(statuses[10:]) == {429}
    response = sign_in(client, "alice", PASSWORD)
    assert response.status_code == 429
    assert not signed_in(client)
    page = response.content.decode()
    assert "Too many failed sign-ins for this account. Try again in 15 minutes" in page
    assert int(response["Retry-After"]) > 800


def test_a_locked_account_is_locked_from_every_address(personas):
    client = Client()
    for i in range(10):
        sign_in(client, "alice", f"guess-{i}", address=f"203.0.113.{i}")
    response = sign_in(Client(), "alice", PASSWORD, address="192.0.2.44")
    assert response.status_code == 429
    assert "for this account" in response.content.decode()


def test_other_accounts_still_sign_in_while_one_is_locked(personas):
    client = Client()
    for i in range(12):
        sign_in(client, "alice", f"guess-{i}")
    other = Client()
    assert sign_in(other, "bob", PASSWORD, address="192.0.2.9").status_code == 302
    assert signed_in(other)


def test_an_address_is_refused_after_failures_across_accounts(personas, settings):
    settings.GOLDSMITH_SIGNIN_FAILURES_PER_ADDRESS = 6
    client = Client()
    for name in ["alice", "bob", "carol", "victor", "nobody", "root"]:
        assert sign_in(client, name, "wrong", address="203.0.113.66").status_code == 200
    response = sign_in(Client(), "bob", PASSWORD, address="203.0.113.66")
    assert response.status_code == 429
    assert "Too many failed sign-ins from your address" in response.content.decode()
    assert sign_in(Client(), "bob", PASSWORD, address="203.0.113.67").status_code == 302


def test_a_success_clears_the_accounts_count_but_not_the_addresss(personas, settings):
    settings.GOLDSMITH_SIGNIN_FAILURES_PER_ADDRESS = 15
    for i in range(9):
        sign_in(Client(), "alice", f"guess-{i}")
    assert sign_in(Client(), "alice", PASSWORD).status_code == 302
    for i in range(5):
        assert sign_in(Client(), "alice", f"again-{i}").status_code == 200
    assert sign_in(Client(), "alice", PASSWORD).status_code == 302
    # The address has 14 failures: one more and it is refused, whoever signs in from it.
    sign_in(Client(), "carol", "wrong")
    assert sign_in(Client(), "bob", PASSWORD).status_code == 429


def test_the_lock_lifts_when_the_lockout_ends(personas, settings):
    settings.GOLDSMITH_SIGNIN_LOCKOUT_SECONDS = 2
    for i in range(10):
        sign_in(Client(), "alice", f"guess-{i}")
    assert sign_in(Client(), "alice", PASSWORD).status_code == 429
    time.sleep(3.1)
    assert sign_in(Client(), "alice", PASSWORD).status_code == 302


def test_a_header_a_client_sends_does_not_change_its_address(personas, settings):
    settings.GOLDSMITH_SIGNIN_FAILURES_PER_ADDRESS = 5
    for i in range(5):
        sign_in(Client(), f"user-{i}", "wrong", HTTP_X_FORWARDED_FOR=f"192.0.2.{i}")
    response = sign_in(Client(), "bob", PASSWORD, HTTP_X_FORWARDED_FOR="192.0.2.200")
    assert response.status_code == 429


def test_behind_a_proxy_the_configured_header_gives_the_address(personas, settings):
    settings.GOLDSMITH_CLIENT_ADDRESS_HEADER = "X-Forwarded-For"
    settings.GOLDSMITH_SIGNIN_FAILURES_PER_ADDRESS = 5
    proxy = "10.0.0.2"
    for i in range(5):
        # What the client wrote comes first; the proxy appends the address it saw.
        sign_in(
            Client(),
            f"user-{i}",
            "wrong",
            address=proxy,
            HTTP_X_FORWARDED_FOR=f"1.2.3.{i}, 203.0.113.9",
        )
    locked = sign_in(Client(), "bob", PASSWORD, address=proxy, HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert locked.status_code == 429
    other = sign_in(Client(), "bob", PASSWORD, address=proxy, HTTP_X_FORWARDED_FOR="203.0.113.10")
    assert other.status_code == 302


def test_the_admin_sign_in_is_throttled_too(personas):
    personas.alice.is_staff = True
    personas.alice.save()
    for i in range(10):
        sign_in(Client(), "alice", f"guess-{i}")
    response = Client().post(
        "/admin/login/?next=/admin/",
        {"username": "alice", "password": PASSWORD},
        REMOTE_ADDR="192.0.2.77",
    )
    assert response.status_code == 200
    assert "Too many failed sign-ins for this account" in response.content.decode()
    assert "_auth_user_id" not in response.client.session


@pytest.mark.parametrize("username", ["", "x" * 5000, "名前"])
def test_any_username_is_counted_safely(personas, username):
    for _ in range(11):
        assert sign_in(Client(), username or " ", "wrong").status_code in {200, 429}
