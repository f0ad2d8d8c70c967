"""A project is created (by site staff, who become its first lead, with its language and its
members), renamed and archived in the pages and through the API, with no `manage.py`; an
archived project leaves the default lists, keeps every row, and a lead restores it. Each step
is tried by a lead, an annotator, a viewer, site staff who are no member, and an outsider
(issue 23, §4; docs/projects.md)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client

from annotation.models import Membership, Project, Role, Tokenizer, TokenizerOrigin
from tests.annotation.factories import make_chunks
from tests.conftest import PASSWORD


@pytest.fixture
def sam(db):
    """Site staff, a member of no project."""
    return get_user_model().objects.create_user("sam", password=PASSWORD, is_staff=True)


def everyone(personas, sam) -> dict[str, object]:
    return {**personas.by_role(), "staff": sam}


def browser_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_only_site_staff_create_projects_and_become_their_first_lead(personas, sam, api_client_for):
    body = {
        "name": "电商客服 FAQ",
        "description": "售后问题",
        "tokenizer": "zh-bigrams",
        "members": [
            {"username": "bob", "role": "annotator"},
            {"username": "victor", "role": "viewer"},
        ],
    }
    for role, user in personas.by_role().items():
        response = api_client_for(user).post("/api/v1/projects/", body, format="json")
        assert response.status_code == 403, role
        assert "site staff" in response.json()["detail"]
    assert not Project.objects.filter(name="电商客服 FAQ").exists()
    response = api_client_for(sam).post("/api/v1/projects/", body, format="json")
    assert response.status_code == 201, response.content
    made = response.json()
    assert (made["name"], made["role"], made["tokenizer"]) == ("电商客服 FAQ", "lead", "zh-bigrams")
    project = Project.objects.get(pk=made["id"])
    assert project.tokenizer_origin == TokenizerOrigin.LEAD
    roles = dict(project.memberships.values_list("user__username", "role"))
    assert roles == {"sam": Role.LEAD, "bob": Role.ANNOTATOR, "victor": Role.VIEWER}
    # bob sees it among his projects, as an annotator.
    listed = api_client_for(personas.bob).get("/api/v1/projects/").json()
    assert {p["name"]: p["role"] for p in listed}["电商客服 FAQ"] == "annotator"


def test_the_permission_to_add_projects_lets_a_non_staff_user_create_one(personas, api_client_for):
    alice = personas.alice
    alice.user_permissions.add(Permission.objects.get(codename="add_project"))
    alice = get_user_model().objects.get(pk=alice.pk)  # permissions are cached per object
    response = api_client_for(alice).post("/api/v1/projects/", {"name": "Docs"}, format="json")
    assert response.status_code == 201, response.content
    project = Project.objects.get(name="Docs")
    assert project.tokenizer == Tokenizer.DEFAULT
    assert project.tokenizer_origin == TokenizerOrigin.DEFAULT  # the first import detects it


def test_a_project_is_refused_whole_on_an_unknown_member_or_a_taken_name(sam, api_client_for):
    client = api_client_for(sam)
    bad = {"name": "New", "members": [{"username": "nobody", "role": "annotator"}]}
    response = client.post("/api/v1/projects/", bad, format="json")
    assert response.status_code == 400 and "nobody" in str(response.json())
    assert not Project.objects.filter(name="New").exists()
    assert client.post("/api/v1/projects/", {"name": "New"}, format="json").status_code == 201
    taken = client.post("/api/v1/projects/", {"name": " New "}, format="json")
    assert taken.status_code == 400 and "exists already" in str(taken.json())
    assert Project.objects.filter(name="New").count() == 1


def test_the_new_project_page_is_for_staff_and_makes_the_project(personas, sam):
    for role, user in personas.by_role().items():
        client = browser_of(user)
        assert client.get("/projects/new/").status_code == 403, role
        assert 'id="project-new"' not in client.get("/").content.decode(), role
    client = browser_of(sam)
    assert 'id="project-new"' in client.get("/").content.decode()
    response = client.post(
        "/projects/new/",
        {"name": "Docs", "description": "", "tokenizer": "zh-words",
         "leads": "alice", "annotators": "bob, carol", "viewers": "victor"},
    )  # fmt: skip
    project = Project.objects.get(name="Docs")
    assert response.status_code == 302 and response["Location"] == f"/projects/{project.pk}/"
    roles = dict(project.memberships.values_list("user__username", "role"))
    assert roles == {
        "sam": "lead", "alice": "lead", "bob": "annotator", "carol": "annotator", "victor": "viewer"
    }  # fmt: skip
    assert project.tokenizer == Tokenizer.ZH_WORDS
    again = client.post(
        "/projects/new/", {"name": "Docs2", "tokenizer": "detect", "viewers": "ghost"}
    )
    assert again.status_code == 400 and "ghost" in again.content.decode()
    assert not Project.objects.filter(name="Docs2").exists()


def test_only_a_lead_renames_a_project(personas, sam, api_client_for):
    project = personas.project
    expected = {"lead": 200, "annotator": 403, "viewer": 403, "staff": 404, "outsider": 404}
    for role, user in everyone(personas, sam).items():
        response = api_client_for(user).patch(
            f"/api/v1/projects/{project.pk}/", {"name": f"Renamed by {role}"}, format="json"
        )
        assert response.status_code == expected[role], (role, response.content)
    project.refresh_from_db()
    assert project.name == "Renamed by lead"
    Project.objects.create(name="Other")
    taken = api_client_for(personas.alice).patch(
        f"/api/v1/projects/{project.pk}/", {"name": "Other"}, format="json"
    )
    assert taken.status_code == 400
    # The page: the members page's form.
    for role, user in everyone(personas, sam).items():
        status = browser_of(user).post(f"/projects/{project.pk}/rename/", {"name": "x"}).status_code
        assert status == {"lead": 302, "annotator": 403, "viewer": 403}.get(role, 404), role
    project.refresh_from_db()
    assert project.name == "x"


def test_an_archived_project_leaves_the_lists_keeps_everything_and_comes_back(
    personas, sam, api_client_for
):
    project = personas.project
    chunks = len(make_chunks(project))
    members = Membership.objects.filter(project=project).count()
    url = f"/api/v1/projects/{project.pk}/archived/"
    expected = {"lead": 200, "annotator": 403, "viewer": 403, "staff": 404, "outsider": 404}
    for role, user in everyone(personas, sam).items():
        if role == "lead":
            continue
        response = api_client_for(user).put(url, {"archived": True}, format="json")
        assert response.status_code == expected[role], role
    assert Project.objects.get(pk=project.pk).archived_at is None
    response = api_client_for(personas.alice).put(url, {"archived": True}, format="json")
    assert response.status_code == 200 and response.json()["archived_at"]

    bob = api_client_for(personas.bob)
    assert [p["id"] for p in bob.get("/api/v1/projects/").json()] == []
    assert [p["id"] for p in bob.get("/api/v1/projects/?archived=true").json()] == [project.pk]
    page = browser_of(personas.bob).get("/").content.decode()
    assert project.name not in page and "1 archived project" in page
    # Everything is kept and still readable by its members.
    assert project.chunks.count() == chunks
    assert Membership.objects.filter(project=project).count() == members
    assert bob.get(f"/api/v1/projects/{project.pk}/").status_code == 200
    home = browser_of(personas.victor).get(f"/projects/{project.pk}/")
    assert home.status_code == 200 and 'id="archived"' in home.content.decode()

    # A lead restores it from the archived list; others cannot.
    archived_list = browser_of(personas.alice).get("/?archived=1").content.decode()
    assert f"/projects/{project.pk}/restore/" in archived_list
    for role, user in everyone(personas, sam).items():
        if role == "lead":
            continue
        status = browser_of(user).post(f"/projects/{project.pk}/restore/").status_code
        assert status == expected[role], role
    assert browser_of(personas.alice).post(f"/projects/{project.pk}/restore/").status_code == 302
    assert [p["id"] for p in bob.get("/api/v1/projects/").json()] == [project.pk]
    assert Project.objects.get(pk=project.pk).archived_at is None
    # And the page's archive button archives it again.
    assert browser_of(personas.alice).post(f"/projects/{project.pk}/archive/").status_code == 302
    assert Project.objects.get(pk=project.pk).archived_by == personas.alice
