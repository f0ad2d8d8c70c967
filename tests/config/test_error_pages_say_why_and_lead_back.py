"""403, 404 and 500 come in the site's layout, say why in plain words and offer a way back
(DEBUG off, as in production; Django's bare "403 Forbidden" before)."""

from __future__ import annotations

import pytest
from django.test import Client

LAYOUT = 'class="topbar"'


@pytest.fixture(autouse=True)
def _production(settings):
    settings.DEBUG = False


def test_a_member_refused_by_role_sees_why_in_the_layout(client, personas):
    client.force_login(personas.bob)
    response = client.get(f"/projects/{personas.project.pk}/members/")
    assert response.status_code == 403
    page = response.content.decode()
    assert LAYOUT in page and "<title>Not allowed" in page
    assert "An annotator of this project may not do this: only a lead can." in page
    assert f'href="/projects/{personas.project.pk}/"' in page  # back to the project
    assert 'href="/"' in page
    assert "bob" in page  # signed in: the layout shows who


def test_a_missing_page_says_so_and_leads_back_to_the_projects(client, personas):
    client.force_login(personas.mallory)
    response = client.get(f"/projects/{personas.project.pk}/")
    assert response.status_code == 404
    page = response.content.decode()
    assert LAYOUT in page and "<title>Not found" in page
    assert "not a member" in page
    assert f"/projects/{personas.project.pk}/" in page  # the address asked for
    assert 'href="/"' in page


def test_a_missing_page_escapes_the_address_it_shows(client, db):
    response = client.get("/nowhere/<script>alert(1)</script>")
    assert response.status_code == 404
    assert "<script>alert(1)" not in response.content.decode()


def test_an_anonymous_visitor_is_offered_to_sign_in_on_a_404(client, db):
    response = client.get("/nowhere/")
    assert response.status_code == 404
    assert 'href="/login/' in response.content.decode()


@pytest.mark.urls("tests.config.urls_with_a_crash")
def test_a_server_error_renders_in_the_layout_without_a_request_context(db):
    client = Client(raise_request_exception=False)
    response = client.get("/crash/")
    assert response.status_code == 500
    page = response.content.decode()
    assert LAYOUT in page and "<title>Server error" in page
    assert "went wrong on our side" in page
    assert 'href="/"' in page
    assert "a bug" not in page and "RuntimeError" not in page


def test_a_form_sent_without_its_csrf_token_says_what_to_do(db):
    client = Client(enforce_csrf_checks=True)
    response = client.post("/login/", {"username": "alice", "password": "x"})
    assert response.status_code == 403
    page = response.content.decode()
    assert LAYOUT in page
    assert "reload the page" in page


def test_the_api_still_answers_refusals_in_json(personas, api_client_for):
    response = api_client_for(personas.bob).post(
        f"/api/v1/projects/{personas.project.pk}/members/",
        {"username": "mallory", "role": "viewer"},
        format="json",
    )
    assert response.status_code == 403
    assert response["Content-Type"] == "application/json"
