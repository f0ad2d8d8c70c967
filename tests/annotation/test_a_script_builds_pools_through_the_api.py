"""A script builds pools as the page does: `POST pools/build/` queues a build and answers 202 at
once with the build; a real worker runs it, and `GET pools/builds/{id}/` follows it to what each
retriever added. A second build while one runs is a 409 saying why; a bad retriever is a 400
naming the field; a build whose worker went silent reads as failed, not as running forever;
another project's build is a 404."""

from __future__ import annotations

import pytest

from annotation.models import Candidate, PoolBuild
from annotation.services.pooling import pool_build_queue
from annotation.services.projects import project_setup
from tests.annotation.factories import make_chunks, make_query, worker_went_silent
from tests.conftest import wait_for


def test_a_script_queues_a_build_and_follows_it_to_its_figures(
    personas, api_client_for, celery_worker_process
):
    project = personas.project
    make_chunks(project)
    query = make_query(project, "how do I install python")
    lead = api_client_for(personas.alice)
    base = f"/api/v1/projects/{project.pk}/pools/"

    response = lead.post(f"{base}build/", {"retrievers": ["bm25", "tfidf"], "k": 2}, format="json")
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["status"] in ("queued", "running", "done")
    assert (body["retrievers"], body["k"], body["created_by"]) == (["bm25", "tfidf"], 2, "alice")

    def ended() -> bool:
        return lead.get(f"{base}builds/{body['id']}/").json()["status"] == "done"

    wait_for(ended, timeout=90, message="the pool build the API queued")
    done = lead.get(f"{base}builds/{body['id']}/").json()
    assert done["progress"] == 1.0 and done["error"] == "" and done["finished_at"]
    assert [r["source"] for r in done["results"]] == ["bm25", "tfidf"]
    assert sum(r["new_candidates"] for r in done["results"]) == (
        Candidate.objects.filter(query=query).count()
    )
    assert all(r["queries"] == 1 and r["hits"] >= 1 for r in done["results"])
    listed = lead.get(f"{base}builds/").json()
    assert [b["id"] for b in listed] == [body["id"]]


@pytest.mark.django_db
def test_a_second_build_is_refused_in_words_and_a_bad_retriever_is_named(personas, api_client_for):
    project = personas.project
    make_chunks(project)
    make_query(project, "how do I install python")
    lead = api_client_for(personas.alice)
    url = f"/api/v1/projects/{project.pk}/pools/build/"
    first = lead.post(url, {"retrievers": ["bm25"], "k": 2}, format="json")
    assert first.status_code == 202

    again = lead.post(url, {"retrievers": ["tfidf"], "k": 2}, format="json")
    assert again.status_code == 409
    assert "being built already" in again.json()["detail"]
    zh = lead.post(url, {"retrievers": ["tfidf"]}, format="json", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert (zh.status_code, zh.json()["detail"]) == (409, "候选池正在构建中：请等这次构建结束")

    for bad in (["bm26"], []):
        refused = lead.post(url, {"retrievers": bad}, format="json")
        assert refused.status_code == 400 and "retrievers" in refused.json(), (bad, refused.json())
    assert PoolBuild.objects.filter(project=project).count() == 1


@pytest.mark.django_db
def test_a_build_whose_worker_went_silent_reads_as_failed(personas, api_client_for, settings):
    project = personas.project
    make_chunks(project)
    make_query(project, "how do I install python")
    build = pool_build_queue(project=project, kinds=["bm25"], k=2, created_by=personas.alice)
    worker_went_silent(build, settings)
    read = api_client_for(personas.alice).get(
        f"/api/v1/projects/{project.pk}/pools/builds/{build.pk}/"
    )
    assert read.status_code == 200
    assert read.json()["status"] == "failed"
    assert "stopped before it ended" in read.json()["error"]


@pytest.mark.django_db
def test_only_the_projects_leads_read_its_builds(personas, api_client_for):
    project = personas.project
    make_chunks(project)
    make_query(project, "how do I install python")
    build = pool_build_queue(project=project, kinds=["bm25"], k=2)
    url = f"/api/v1/projects/{project.pk}/pools/builds/{build.pk}/"
    nobody = api_client_for(personas.alice).get(url).json()  # asked for by no user (a script)
    assert (nobody["created_by"], nobody["status"], nobody["results"]) == (None, "queued", [])
    assert api_client_for(personas.bob).get(url).status_code == 403
    assert api_client_for(personas.mallory).get(url).status_code == 404
    other = project_setup(name="Mallory's", leads=["mallory"]).project
    elsewhere = f"/api/v1/projects/{other.pk}/pools/builds/{build.pk}/"
    assert api_client_for(personas.mallory).get(elsewhere).status_code == 404
    assert (
        api_client_for(personas.mallory).get(f"/api/v1/projects/{other.pk}/pools/builds/").json()
        == []
    )
