"""The pools page never builds pools in the lead's request: it queues a build that a real Celery
worker runs, retriever after retriever, and the page follows it to what each retriever added.
One build at a time per project; a build whose worker stopped, or that no worker took, is failed
(by the next request or the watchdog), never waited for; a build claimed twice runs once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from django.utils.html import escape

from annotation.models import Candidate, ImportStatus, PoolBuild, PoolSource
from annotation.models.judging import SourceKind
from annotation.services.pooling import PoolBuildBusy, pool_build_queue, pool_build_run
from tests.annotation.factories import make_chunks, make_query, worker_went_silent
from tests.conftest import wait_for


def _lead_page(personas) -> Client:
    page = Client()
    page.force_login(personas.alice)
    return page


def test_a_real_worker_builds_the_pools_the_page_asked_for(personas, celery_worker_process):
    project = personas.project
    make_chunks(project)
    query = make_query(project, "how do I install python")
    page = _lead_page(personas)
    url = f"/projects/{project.pk}/pools/"
    response = page.post(
        url, {"what": "build", "build-retrievers": ["bm25", "tfidf"], "build-k": "2"}
    )
    assert response.status_code == 302
    build = PoolBuild.objects.get(project=project)
    assert build.retrievers == ["bm25", "tfidf"] and build.created_by == personas.alice
    wait_for(
        lambda: PoolBuild.objects.get(pk=build.pk).status == ImportStatus.DONE,
        timeout=90,
        message="the pool build",
    )
    build.refresh_from_db()
    assert [r["source"] for r in build.results] == ["bm25", "tfidf"]
    assert (
        Candidate.objects.filter(query=query).count()
        == build.results[0]["new_candidates"] + (build.results[1]["new_candidates"])
    )
    html = page.get(url).content.decode()
    assert 'data-running="false"' in html and "pool-build.js" not in html
    assert f"bm25: {build.results[0]['hits']} hits for 1 queries" in html


@pytest.mark.django_db
def test_one_build_at_a_time_and_a_stopped_worker_does_not_block_the_next(personas, settings):
    project = personas.project
    make_chunks(project)
    make_query(project, "how do I install python")
    first = pool_build_queue(project=project, kinds=["bm25"], k=2)
    with pytest.raises(PoolBuildBusy):
        pool_build_queue(project=project, kinds=["tfidf"], k=2)
    response = _lead_page(personas).post(
        f"/projects/{project.pk}/pools/",
        {"what": "build", "build-retrievers": ["tfidf"], "build-k": "2"},
        follow=True,
    )
    assert "being built already" in response.content.decode()
    assert PoolBuild.objects.filter(project=project).count() == 1

    # Its worker claimed it, then died: after the stale time the next build is taken.
    worker_went_silent(first, settings)
    second = pool_build_queue(project=project, kinds=["tfidf"], k=2)
    first.refresh_from_db()
    assert first.status == ImportStatus.FAILED and "stopped" in first.error
    assert second.status == ImportStatus.QUEUED


@pytest.mark.django_db
def test_a_build_runs_once_however_often_it_is_delivered(personas):
    project = personas.project
    make_chunks(project)
    query = make_query(project, "how do I install python")
    build = pool_build_queue(project=project, kinds=["bm25"], k=3)
    assert pool_build_run(build_id=build.pk) is not None
    pooled = Candidate.objects.filter(query=query).count()
    assert pool_build_run(build_id=build.pk) is None  # delivered again: left alone
    assert Candidate.objects.filter(query=query).count() == pooled
    build.refresh_from_db()
    assert build.status == ImportStatus.DONE and len(build.results) == 1
    assert build.progress == 1.0


@pytest.mark.django_db
def test_a_refused_build_fails_with_its_reason_on_the_page(personas):
    project = personas.project
    make_chunks(project)
    make_query(project, "how do I install python")
    PoolSource.objects.create(project=project, name="bm25", kind=SourceKind.RUN, k=10)
    build = pool_build_queue(project=project, kinds=["bm25"], k=3)
    assert pool_build_run(build_id=build.pk) is not None
    build.refresh_from_db()
    assert build.status == ImportStatus.FAILED and build.finished_at is not None
    assert "already exists" in build.error
    page = _lead_page(personas).get(f"/projects/{project.pk}/pools/").content.decode()
    assert 'data-running="false"' in page
    assert escape(build.error) in page


@pytest.mark.django_db
def test_a_build_no_worker_took_is_failed_by_the_watchdog_in_the_leads_language(personas, settings):
    from annotation.services.languages import user_language_set
    from annotation.tasks import imports_watchdog

    project = personas.project
    make_chunks(project)
    make_query(project, "how do I install python")
    user_language_set(user=personas.alice, language="zh-hans")
    build = pool_build_queue(project=project, kinds=["bm25"], k=2, created_by=personas.alice)
    settings.GOLDSMITH_IMPORT_STALE_SECONDS = 60
    assert imports_watchdog() == []  # just asked for: left queued
    PoolBuild.objects.filter(pk=build.pk).update(created_at=timezone.now() - timedelta(seconds=61))
    assert imports_watchdog() == [f"poolbuild #{build.pk}"]
    build.refresh_from_db()
    assert build.status == ImportStatus.FAILED
    assert build.error == "没有后台任务接手这次构建：请重新发起"
    assert pool_build_run(build_id=build.pk) is None  # a late delivery runs nothing
    assert not Candidate.objects.filter(query__project=project).exists()
