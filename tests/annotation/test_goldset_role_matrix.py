"""Members read golden sets; only leads freeze and import; non-members get 404."""

from __future__ import annotations

import pytest
from django.test import Client

from annotation.models import GoldenSetVersion
from annotation.services.goldsets import golden_set_version_freeze
from tests.annotation.goldset_factories import make_query, small_project

ROLES = ["lead", "annotator", "viewer", "outsider"]
READ = {"lead": 200, "annotator": 200, "viewer": 200, "outsider": 404}
LEAD = {"lead": 201, "annotator": 403, "viewer": 403, "outsider": 404}


@pytest.fixture
def project(personas):
    project, chunks, _ = small_project(personas)
    golden_set_version_freeze(project=project, by=personas.alice)
    make_query(project, "approved after v1", {chunks[8]: 2})  # so a second freeze is not v1
    return project


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    "path",
    ["", "v1/", "v1/items/", "v1/export/trec/", "diff/?a=v1&b=v1"],
)
def test_reading_follows_the_role_matrix(project, personas, api_client_for, role, path):
    client = api_client_for(personas.by_role()[role])
    response = client.get(f"/api/v1/projects/{project.pk}/goldsets/{path}")
    assert response.status_code == READ[role]


@pytest.mark.parametrize("role", ROLES)
def test_only_leads_freeze_through_the_api(project, personas, api_client_for, role):
    client = api_client_for(personas.by_role()[role])
    response = client.post(
        f"/api/v1/projects/{project.pk}/goldsets/", {"note": "by api"}, format="json"
    )
    assert response.status_code == LEAD[role]
    if role == "lead":
        assert response.json()["label"] == "v2"
        assert response["X-Goldsmith-Content-Hash"] == response.json()["content_hash"]
    assert GoldenSetVersion.objects.count() == (2 if role == "lead" else 1)


@pytest.mark.parametrize("role", ROLES)
def test_only_leads_import_through_the_api(project, personas, api_client_for, role, tmp_path):
    client = api_client_for(personas.by_role()[role])
    qrels = tmp_path / "x.qrels"
    qrels.write_text("a 0 d1 2\n")
    topics = tmp_path / "x.tsv"
    topics.write_text("a\tquestion a\n")
    with qrels.open("rb") as f, topics.open("rb") as t:
        response = client.post(
            f"/api/v1/projects/{project.pk}/goldsets/import/",
            {"format": "trec", "file": f, "topics": t, "label": "team"},
            format="multipart",
        )
    assert response.status_code == LEAD[role]


def test_a_bad_import_through_the_api_says_which_line(project, personas, api_client_for, tmp_path):
    qrels = tmp_path / "x.qrels"
    qrels.write_text("a 0 d1 2\na 0 d1 1\n")
    topics = tmp_path / "x.tsv"
    topics.write_text("a\tquestion a\n")
    with qrels.open("rb") as f, topics.open("rb") as t:
        response = api_client_for(personas.alice).post(
            f"/api/v1/projects/{project.pk}/goldsets/import/",
            {"format": "trec", "file": f, "topics": t},
            format="multipart",
        )
    assert response.status_code == 400
    assert "x.qrels:2: duplicate judgment" in response.json()["file"][0]


@pytest.mark.parametrize("role", ROLES)
def test_pages_follow_the_role_matrix(project, personas, role):
    client = Client()
    client.force_login(personas.by_role()[role])
    for path in ("", "v1/", "diff/"):
        assert client.get(f"/projects/{project.pk}/goldsets/{path}").status_code == READ[role]
    response = client.post(f"/projects/{project.pk}/goldsets/", {"note": "page"})
    assert (
        response.status_code
        == {"lead": 302, "annotator": 403, "viewer": 403, "outsider": 404}[role]
    )
