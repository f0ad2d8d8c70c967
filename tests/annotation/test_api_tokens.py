"""CI clients authenticate with tokens that are stored hashed and can be revoked."""

from __future__ import annotations

from rest_framework.test import APIClient

from annotation.models import ApiToken


def issue_token(api_client_for, user) -> dict:
    response = api_client_for(user).post("/api/v1/tokens/", {"name": "ci"}, format="json")
    assert response.status_code == 201
    return response.json()


def test_a_token_authenticates_a_ci_client(personas, api_client_for):
    key = issue_token(api_client_for, personas.alice)["key"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    response = client.get("/api/v1/projects/")
    assert response.status_code == 200
    assert [p["name"] for p in response.json()] == ["Acme Support"]


def test_only_the_hash_of_a_token_is_stored(personas, api_client_for):
    key = issue_token(api_client_for, personas.alice)["key"]
    token = ApiToken.objects.get()
    assert key not in (token.digest, token.prefix)
    assert token.digest != key and len(token.digest) == 64


def test_the_key_is_shown_once_and_never_listed_again(personas, api_client_for):
    key = issue_token(api_client_for, personas.alice)["key"]
    listing = api_client_for(personas.alice).get("/api/v1/tokens/")
    assert key not in listing.content.decode()
    assert "key" not in listing.json()[0]


def test_a_revoked_token_is_refused(personas, api_client_for):
    issued = issue_token(api_client_for, personas.alice)
    revoke = api_client_for(personas.alice).delete(f"/api/v1/tokens/{issued['id']}/")
    assert revoke.status_code == 204
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issued['key']}")
    assert client.get("/api/v1/projects/").status_code == 401


def test_nobody_revokes_another_users_token(personas, api_client_for):
    issued = issue_token(api_client_for, personas.alice)
    response = api_client_for(personas.mallory).delete(f"/api/v1/tokens/{issued['id']}/")
    assert response.status_code == 404
    assert ApiToken.objects.get().revoked_at is None


def test_the_openapi_schema_and_docs_are_served(client, personas):
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/v1/projects/" in schema.content
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"unpkg" not in docs.content and b"jsdelivr" not in docs.content
