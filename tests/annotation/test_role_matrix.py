"""What each role — and a non-member — may do with a project's pages and API."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.conftest import PASSWORD

# (method, path template, role -> expected status)
PAGE_MATRIX = [
    ("get", "/projects/{p}/", {"lead": 200, "annotator": 200, "viewer": 200, "outsider": 404}),
    (
        "get",
        "/projects/{p}/members/",
        {"lead": 200, "annotator": 403, "viewer": 403, "outsider": 404},
    ),
    (
        "post",
        "/projects/{p}/members/",
        {"lead": 302, "annotator": 403, "viewer": 403, "outsider": 404},
    ),
]

API_MATRIX = [
    (
        "get",
        "/api/v1/projects/{p}/",
        {"lead": 200, "annotator": 200, "viewer": 200, "outsider": 404},
    ),
    (
        "get",
        "/api/v1/projects/{p}/members/",
        {"lead": 200, "annotator": 200, "viewer": 200, "outsider": 404},
    ),
    (
        "post",
        "/api/v1/projects/{p}/members/",
        {"lead": 201, "annotator": 403, "viewer": 403, "outsider": 404},
    ),
]

ROLES = ["lead", "annotator", "viewer", "outsider"]


def signed_in(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("method", "path", "expected"), PAGE_MATRIX)
def test_project_pages_follow_the_role_matrix(personas, role, method, path, expected):
    client = signed_in(personas.by_role()[role])
    url = path.format(p=personas.project.pk)
    data = {"username": "carol", "role": "viewer"} if method == "post" else None
    response = getattr(client, method)(url, data)
    assert response.status_code == expected[role]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("method", "path", "expected"), API_MATRIX)
def test_project_api_follows_the_role_matrix(
    personas, api_client_for, role, method, path, expected
):
    client = api_client_for(personas.by_role()[role])
    url = path.format(p=personas.project.pk)
    data = {"username": "carol", "role": "viewer"} if method == "post" else None
    response = getattr(client, method)(url, data, format="json")
    assert response.status_code == expected[role]


def test_a_non_member_cannot_tell_a_project_exists(personas, api_client_for):
    client = api_client_for(personas.mallory)
    existing = client.get(f"/api/v1/projects/{personas.project.pk}/")
    missing = client.get("/api/v1/projects/999999/")
    assert existing.status_code == missing.status_code == 404
    assert existing.json() == missing.json()


def test_the_project_list_shows_only_the_callers_projects(personas, api_client_for):
    from annotation.services.projects import project_setup

    project_setup(name="Other", leads=["zoe"])
    names = [p["name"] for p in api_client_for(personas.bob).get("/api/v1/projects/").json()]
    assert names == ["Acme Support"]
    assert api_client_for(personas.mallory).get("/api/v1/projects/").json() == []


def test_anonymous_callers_are_refused(personas, api_client_for, client):
    assert api_client_for(None).get("/api/v1/projects/").status_code in {401, 403}
    response = client.get(f"/projects/{personas.project.pk}/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_the_navigation_shows_lead_links_only_to_leads(personas):
    members_link = f'href="/projects/{personas.project.pk}/members/"'
    lead_page = signed_in(personas.alice).get(f"/projects/{personas.project.pk}/")
    annotator_page = signed_in(personas.bob).get(f"/projects/{personas.project.pk}/")
    assert members_link in lead_page.content.decode()
    assert members_link not in annotator_page.content.decode()


def test_a_lead_changes_a_role_through_the_members_page(personas):
    response = signed_in(personas.alice).post(
        f"/projects/{personas.project.pk}/members/", {"username": "bob", "role": "viewer"}
    )
    assert response.status_code == 302
    assert personas.project.memberships.get(user=personas.bob).role == "viewer"


def test_the_members_page_names_an_unknown_user(personas):
    response = signed_in(personas.alice).post(
        f"/projects/{personas.project.pk}/members/", {"username": "nobody", "role": "viewer"}
    )
    assert response.status_code == 200
    assert "no user named" in response.content.decode()
