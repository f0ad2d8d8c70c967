"""Guidelines are versioned Markdown; each judgment records the version in force."""

from __future__ import annotations

from django.test import Client

from annotation.models import Guideline, Judgment
from tests.annotation.factories import judging_setup
from tests.conftest import PASSWORD


def test_each_judgment_records_the_guideline_version_in_force(personas, api_client_for):
    setup = judging_setup(personas)
    _query, candidates = setup.first()
    p = personas.project.pk
    lead = api_client_for(personas.alice)
    bob = api_client_for(personas.bob)
    url = f"/api/v1/projects/{p}/candidates/{{}}/judgment/"
    r = bob.put(url.format(candidates[0].pk), {"grade": 1}, format="json")
    assert r.json()["guideline_version"] is None
    assert (
        lead.post(f"/api/v1/projects/{p}/guidelines/", {"markdown": "# v1"}, format="json").json()[
            "version"
        ]
        == 1
    )
    bob.put(url.format(candidates[1].pk), {"grade": 1}, format="json")
    lead.post(f"/api/v1/projects/{p}/guidelines/", {"markdown": "# v2"}, format="json")
    bob.put(url.format(candidates[2].pk), {"grade": 0}, format="json")
    versions = dict(
        Judgment.objects.filter(annotator=personas.bob).values_list(
            "candidate_id", "guideline_version"
        )
    )
    assert versions == {candidates[0].pk: None, candidates[1].pk: 1, candidates[2].pk: 2}
    listed = bob.get(f"/api/v1/projects/{p}/guidelines/").json()
    assert [g["version"] for g in listed] == [2, 1]


def test_guidelines_markdown_is_rendered_and_sanitised(personas):
    Guideline.objects.create(
        project=personas.project,
        version=1,
        markdown="# Grading\n\n**2** means relevant.\n\n<script>alert(1)</script>",
        created_by=personas.alice,
    )
    client = Client()
    assert client.login(username="victor", password=PASSWORD)
    html = client.get(f"/projects/{personas.project.pk}/guidelines/").content.decode()
    assert "<h1>Grading</h1>" in html
    assert "<strong>2</strong>" in html
    assert "<script>alert(1)</script>" not in html
    assert "Publish a new version" not in html  # viewers read, leads publish
