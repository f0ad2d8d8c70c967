"""Requests made with an API token are limited per account and per address (429 with
Retry-After); the browser's session is not counted."""

from __future__ import annotations

from rest_framework.test import APIClient

from annotation.services.projects import api_token_create


def token_client(user, address: str = "198.51.100.20") -> APIClient:
    client = APIClient(REMOTE_ADDR=address)
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_create(user=user, name='ci').key}")
    return client


def test_an_account_gets_429_past_its_limit_per_minute(personas, settings):
    settings.GOLDSMITH_TOKEN_REQUESTS_PER_MINUTE = 5
    client = token_client(personas.alice)
    statuses = [client.get("/api/v1/projects/").status_code for _ in range(6)]
    assert statuses == [200] * 5 + [429]
    refused = client.get("/api/v1/projects/")
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert "throttled" in refused.json()["detail"]


def test_the_limit_is_per_account_across_its_tokens_and_addresses(personas, settings):
    settings.GOLDSMITH_TOKEN_REQUESTS_PER_MINUTE = 4
    first, second = (
        token_client(personas.alice, "192.0.2.1"),
        token_client(personas.alice, "192.0.2.2"),
    )
    assert [first.get("/api/v1/projects/").status_code for _ in range(4)] == [200] * 4
    assert second.get("/api/v1/projects/").status_code == 429
    assert token_client(personas.bob).get("/api/v1/projects/").status_code == 200


def test_an_address_gets_429_past_its_limit_whatever_the_accounts(personas, settings):
    settings.GOLDSMITH_TOKEN_REQUESTS_PER_MINUTE_PER_ADDRESS = 3
    clients = [token_client(user, "203.0.113.5") for user in (personas.alice, personas.bob)]
    assert [c.get("/api/v1/projects/").status_code for c in clients + clients] == [
        200,
        200,
        200,
        429,
    ]
    assert token_client(personas.carol, "203.0.113.6").get("/api/v1/projects/").status_code == 200


def test_the_session_is_not_counted(personas, settings, client):
    settings.GOLDSMITH_TOKEN_REQUESTS_PER_MINUTE = 2
    settings.GOLDSMITH_TOKEN_REQUESTS_PER_MINUTE_PER_ADDRESS = 2
    client.force_login(personas.alice)
    assert {client.get("/api/v1/projects/").status_code for _ in range(5)} == {200}
