"""Tokens may expire; a token cannot issue tokens (the probe: a token minted tokens that outlived
its revocation); deactivating a user, or removing their last membership, revokes their tokens."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import ApiToken
from annotation.services.projects import api_token_create, project_setup


def with_token(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_token_cannot_issue_a_token(personas):
    key = api_token_create(user=personas.alice, name="ci").key
    response = with_token(key).post("/api/v1/tokens/", {"name": "minted"}, format="json")
    assert response.status_code == 403
    assert response.json() == {
        "detail": "A token cannot issue tokens: sign in and issue one from your session "
        "(for example on /api/docs/)."
    }
    assert list(ApiToken.objects.values_list("name", flat=True)) == ["ci"]


def test_revoking_a_token_leaves_no_token_made_with_it(personas):
    issued = api_token_create(user=personas.alice, name="ci")
    client = with_token(issued.key)
    client.post("/api/v1/tokens/", {"name": "minted"}, format="json")
    assert client.delete(f"/api/v1/tokens/{issued.token.pk}/").status_code == 204
    assert client.get("/api/v1/projects/").status_code == 401
    assert not ApiToken.objects.filter(revoked_at__isnull=True).exists()


def test_a_person_signed_in_issues_a_token_with_an_expiry(client, personas):
    client.force_login(personas.alice)
    expires = (timezone.now() + timedelta(days=30)).replace(microsecond=0)
    response = client.post(
        "/api/v1/tokens/",
        {"name": "ci", "expires_at": expires.isoformat()},
        content_type="application/json",
    )
    assert response.status_code == 201
    body = response.json()
    assert body["key"].startswith("gs_")
    assert ApiToken.objects.get(pk=body["id"]).expires_at == expires
    listed = client.get("/api/v1/tokens/").json()
    assert listed[0]["expires_at"] is not None
    assert with_token(body["key"]).get("/api/v1/projects/").status_code == 200


def test_an_expiry_in_the_past_is_refused(api_client_for, personas):
    response = api_client_for(personas.alice).post(
        "/api/v1/tokens/", {"name": "ci", "expires_at": "2020-01-01T00:00:00Z"}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"expires_at": ["The expiry must be in the future."]}


def test_an_expired_token_is_refused_with_the_reason(personas):
    issued = api_token_create(
        user=personas.alice, name="ci", expires_at=timezone.now() + timedelta(hours=1)
    )
    client = with_token(issued.key)
    assert client.get("/api/v1/projects/").status_code == 200
    ApiToken.objects.filter(pk=issued.token.pk).update(
        expires_at=datetime(2025, 3, 1, 12, 30, tzinfo=UTC)
    )
    response = client.get("/api/v1/projects/")
    assert response.status_code == 401
    assert response.json() == {
        "detail": "This token expired on 2025-03-01 12:30 UTC; sign in and issue a new one."
    }


def test_a_revoked_token_is_refused_with_the_reason(personas):
    issued = api_token_create(user=personas.alice, name="ci")
    ApiToken.objects.filter(pk=issued.token.pk).update(
        revoked_at=datetime(2026, 3, 2, 8, 0, tzinfo=UTC)
    )
    response = with_token(issued.key).get("/api/v1/projects/")
    assert response.status_code == 401
    assert response.json() == {"detail": "This token was revoked on 2026-03-02 08:00 UTC."}


def test_an_unknown_token_is_refused(db):
    response = with_token("gs_not-a-token").get("/api/v1/projects/")
    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid token."}


def test_deactivating_a_user_in_the_admin_revokes_their_tokens_for_good(client, personas):
    key = api_token_create(user=personas.bob, name="ci").key
    admin_user = get_user_model().objects.create_superuser("root", password="x-root-password")
    client.force_login(admin_user)
    response = client.post(
        "/admin/auth/user/",
        {"action": "deactivate", "_selected_action": [personas.bob.pk]},
        follow=True,
    )
    assert response.status_code == 200
    personas.bob.refresh_from_db()
    assert not personas.bob.is_active
    assert not ApiToken.objects.filter(user=personas.bob, revoked_at__isnull=True).exists()
    personas.bob.is_active = True  # reactivated: the old token stays revoked
    personas.bob.save()
    assert with_token(key).get("/api/v1/projects/").status_code == 401


def test_unticking_active_on_the_admins_user_page_revokes_their_tokens(client, personas):
    api_token_create(user=personas.bob, name="ci")
    admin_user = get_user_model().objects.create_superuser("root", password="x-root-password")
    client.force_login(admin_user)
    page = client.get(f"/admin/auth/user/{personas.bob.pk}/change/")
    form = page.context["adminform"].form
    data = {
        name: value
        for name, value in form.initial.items()
        if value is not None and name not in {"password", "groups", "user_permissions"}
    }
    data.update(
        is_active="",
        last_login_0="",
        last_login_1="",
        date_joined_0=personas.bob.date_joined.strftime("%Y-%m-%d"),
        date_joined_1=personas.bob.date_joined.strftime("%H:%M:%S"),
    )
    data.pop("is_active")
    data.pop("last_login", None)
    data.pop("date_joined", None)
    response = client.post(f"/admin/auth/user/{personas.bob.pk}/change/", data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    personas.bob.refresh_from_db()
    assert not personas.bob.is_active
    assert not ApiToken.objects.filter(user=personas.bob, revoked_at__isnull=True).exists()


def test_a_deactivated_users_token_is_refused_even_if_not_revoked(personas):
    key = api_token_create(user=personas.bob, name="ci").key
    get_user_model().objects.filter(pk=personas.bob.pk).update(is_active=False)
    response = with_token(key).get("/api/v1/projects/")
    assert response.status_code == 401
    assert response.json() == {"detail": "This token's account is deactivated."}


def test_removing_a_members_last_project_revokes_their_tokens(personas, api_client_for):
    key = api_token_create(user=personas.bob, name="ci").key
    project = personas.project
    response = api_client_for(personas.alice).delete(f"/api/v1/projects/{project.pk}/members/bob/")
    assert response.status_code == 204
    assert not project.memberships.filter(user=personas.bob).exists()
    assert with_token(key).get("/api/v1/projects/").status_code == 401


def test_a_member_of_another_project_keeps_their_token_for_it_only(personas, api_client_for):
    other = project_setup(name="Other", leads=["carol"], annotators=["bob"]).project
    key = api_token_create(user=personas.bob, name="ci").key
    project = personas.project
    api_client_for(personas.alice).delete(f"/api/v1/projects/{project.pk}/members/bob/")
    client = with_token(key)
    assert client.get(f"/api/v1/projects/{project.pk}/").status_code == 404
    assert client.get(f"/api/v1/projects/{other.pk}/").status_code == 200


def test_only_a_lead_removes_members_and_never_the_last_lead(personas, api_client_for):
    project = personas.project
    url = f"/api/v1/projects/{project.pk}/members/"
    assert api_client_for(personas.bob).delete(f"{url}carol/").status_code == 403
    assert api_client_for(personas.mallory).delete(f"{url}carol/").status_code == 404
    assert api_client_for(personas.alice).delete(f"{url}mallory/").status_code == 404
    last = api_client_for(personas.alice).delete(f"{url}alice/")
    assert last.status_code == 409
    assert last.json() == {
        "detail": "alice is the project's only lead; make someone else lead first"
    }


def test_a_lead_removes_a_member_on_the_members_page(client, personas):
    key = api_token_create(user=personas.victor, name="ci").key
    client.force_login(personas.alice)
    project = personas.project
    response = client.post(f"/projects/{project.pk}/members/victor/remove/", follow=True)
    assert "victor is no longer a member and 1 API token revoked." in response.content.decode()
    assert not project.memberships.filter(user=personas.victor).exists()
    assert with_token(key).get("/api/v1/projects/").status_code == 401


def test_removing_a_membership_in_the_admin_revokes_a_last_projects_tokens(client, personas):
    key = api_token_create(user=personas.victor, name="ci").key
    admin_user = get_user_model().objects.create_superuser("root", password="x-root-password")
    client.force_login(admin_user)
    membership = personas.project.memberships.get(user=personas.victor)
    response = client.post(f"/admin/annotation/membership/{membership.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert with_token(key).get("/api/v1/projects/").status_code == 401
