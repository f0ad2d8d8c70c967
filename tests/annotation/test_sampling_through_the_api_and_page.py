"""Leads preview and draw samples through the API and the page, with before/after plots."""

import pytest

from annotation.models import Query, Sample
from annotation.services.querylogs import query_log_import


@pytest.fixture
def log(personas, tmp_path):
    path = tmp_path / "log.csv"
    rows = [
        f"question {i} about {'json' if i % 2 else 'files'},{'json' if i % 2 else 'files'},"
        f"{1 + (i % 5)},{'no_click' if i % 4 == 0 else ''}"
        for i in range(60)
    ]
    path.write_text("query,category,count,feedback\n" + "\n".join(rows) + "\n")
    return query_log_import(project=personas.project, path=path, clusters=4)


def test_a_dry_run_stores_nothing_and_a_draw_stores_the_sample(personas, log, api_client_for):
    client = api_client_for(personas.alice)
    url = f"/api/v1/projects/{personas.project.pk}/samples/"
    body = {"n": 10, "strategy": "stratified", "by": "category", "seed": 5}
    preview = client.post(url, {**body, "dry_run": True}, format="json")
    assert preview.status_code == 200
    assert preview.json()["sample"] is None and len(preview.json()["queries"]) == 10
    assert not Sample.objects.exists()
    created = client.post(url, body, format="json")
    assert created.status_code == 201
    sample = created.json()["sample"]
    assert sample["log_sha256"] == log.sha256 and sample["n_chosen"] == 10
    assert [q["text"] for q in created.json()["queries"]] == [
        q["text"] for q in preview.json()["queries"]
    ]
    detail = client.get(f"{url}{sample['id']}/").json()
    assert len(detail["queries"]) == 10 and detail["strata"][0]["name"] == "files"
    bad = client.post(url, {"n": 10, "strategy": "stratified", "seed": 1}, format="json")
    assert bad.status_code == 400 and "stratify" in str(bad.json())


def test_the_sampling_page_previews_and_draws(personas, log, client):
    client.force_login(personas.alice)
    url = f"/projects/{personas.project.pk}/sampling/"
    page = client.get(url).content.decode()
    assert "The log before sampling" in page and "By intent cluster" in page
    form = {"log": log.pk, "n": 8, "strategy": "frequency", "by": "", "allocation": "", "seed": 2}
    preview = client.post(url, {**form, "what": "preview"}).content.decode()
    assert "Preview: 8 of 60 queries" in preview and "share of sampled queries" in preview
    assert not Query.objects.exists()
    response = client.post(url, {**form, "what": "create"})
    sample = Sample.objects.get()
    assert response["Location"] == f"/projects/{personas.project.pk}/samples/{sample.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert "Before and after sampling" in page and log.sha256 in page
    assert Query.objects.filter(sample=sample).count() == 8
