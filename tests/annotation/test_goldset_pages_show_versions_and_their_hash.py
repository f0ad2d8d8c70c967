"""A lead freezes from the versions page; every page that shows a version shows its hash."""

from __future__ import annotations

from django.test import Client

from annotation.models import GoldenSetVersion
from tests.annotation.goldset_factories import small_project


def test_a_lead_freezes_from_the_page_and_lands_on_the_version(personas):
    project, _, _ = small_project(personas)
    client = Client()
    client.force_login(personas.alice)
    listing = client.get(f"/projects/{project.pk}/goldsets/")
    assert listing.status_code == 200
    html = listing.content.decode()
    assert "3 approved queries can be frozen now" in html
    assert "Freeze approved queries" in html and 'value="billing"' in html

    response = client.post(
        f"/projects/{project.pk}/goldsets/",
        {"note": "weekly", "categories": ["billing"], "split_seed": "11", "test_share": "0.5"},
        follow=True,
    )
    version = GoldenSetVersion.objects.get()
    assert response.redirect_chain[-1][0] == f"/projects/{project.pk}/goldsets/v1/"
    page = response.content.decode()
    assert version.content_hash in page
    assert "Froze v1: 2 queries" in page
    for fmt in ("jsonl", "trec", "topics", "beir", "csv"):
        assert f"/projects/{project.pk}/goldsets/v1/export/{fmt}/" in page
    assert version.short_hash in client.get(f"/projects/{project.pk}/goldsets/").content.decode()


def test_a_refused_freeze_says_why_on_the_form(personas):
    project, _, _ = small_project(personas)
    client = Client()
    client.force_login(personas.alice)
    client.post(f"/projects/{project.pk}/goldsets/", {"label": "release"})
    again = client.post(f"/projects/{project.pk}/goldsets/", {"label": "release"})
    assert again.status_code == 200
    assert "already exists" in again.content.decode()
    assert GoldenSetVersion.objects.count() == 1


def test_viewers_see_versions_but_no_freeze_form(personas):
    project, _, _ = small_project(personas)
    client = Client()
    client.force_login(personas.victor)
    html = client.get(f"/projects/{project.pk}/goldsets/").content.decode()
    assert "Golden sets" in html and "Freeze approved queries" not in html
    assert client.get(f"/projects/{project.pk}/goldsets/v9/").status_code == 404
