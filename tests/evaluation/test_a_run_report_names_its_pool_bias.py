"""A run's report says what share of the golden set's judged candidates its retriever put in
the pools (built-in BM25 and the project's bm25 pool; a run file and a run pooled under its
name), the run page says it in words, and the compare API and page warn when two runs differ
by more than 20 points. A golden set without pool data says nothing (not 0)."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotation.models import CandidateSource, PoolSource
from annotation.models.judging import SourceKind
from annotation.services.goldsets import golden_set_version_freeze
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from tests.annotation.goldset_factories import small_project


def _pool(project, name: str, kind: str, pairs) -> None:
    source = PoolSource.objects.create(project=project, name=name, kind=kind, k=5)
    for candidate in pairs:
        CandidateSource.objects.create(candidate=candidate, source=source, rank=1)


def _text(html: bytes) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html.decode()).split())


@pytest.mark.django_db
def test_the_report_and_the_compare_page_name_the_pool_bias(personas, api_client_for):
    project, _chunks, queries = small_project(personas)
    first, second, third = (list(q.candidates.order_by("chunk__chunk_id")) for q in queries)
    # 4 of the 6 judged candidates came from a pool (the others have no pool source: their
    # origin is unknown, and they are left out of the share).
    _pool(project, "bm25", SourceKind.BM25, [*first, second[0]])  # 3 of those 4
    _pool(project, "prod", SourceKind.RUN, [third[0]])  # 1 of the 4
    version = golden_set_version_freeze(project=project, by=personas.alice)
    bm25 = retriever_save(project=project, name="bm25 today", kind="bm25")
    lines = "".join(
        f"{q.pk} Q0 {c.chunk.chunk_id} 1 1.0 prod\n" for q in queries for c in q.candidates.all()
    )
    prod = retriever_save(
        project=project,
        name="prod",
        kind="runfile",
        run_file=SimpleUploadedFile("prod.trec", lines.encode()),
    )
    runs = []
    for retriever in (bm25, prod):
        run = evaluation_run_create(
            project=project, retriever=retriever, version=version, enqueue=False
        )
        runs.append(evaluation_run_execute_inline(run_id=run.pk))
    a, b = runs
    assert a.state == b.state == "succeeded", (a.error, b.error)
    assert a.report["pool_bias"] == {"own": 3, "judged": 4, "share": 0.75, "sources": ["bm25"]}
    assert b.report["pool_bias"]["share"] == pytest.approx(1 / 4)
    assert b.report["pool_bias"]["sources"] == ["prod"]

    page = Client()
    page.force_login(personas.victor)
    text = _text(page.get(f"/projects/{project.pk}/runs/{a.pk}/").content)
    assert "75% of the golden set's judged candidates (3 of 4) came from this retriever's own" in (
        text
    )

    client = api_client_for(personas.victor)
    body = client.get(f"/api/v1/projects/{project.pk}/runs/compare/?a={a.pk}&b={b.pk}").json()
    gap = body["pool_bias"]
    assert gap["warn"] is True and gap["threshold"] == 20
    assert gap["gap"] == pytest.approx(0.25 - 0.75)
    text = _text(page.get(f"/projects/{project.pk}/runs/compare/?a={a.pk}&b={b.pk}").content)
    assert "Pool bias: 75% of the golden set's judged candidates came from A's" in text
    # The same run against itself: no warning.
    same = client.get(f"/api/v1/projects/{project.pk}/runs/compare/?a={a.pk}&b={a.pk}").json()
    assert same["pool_bias"]["warn"] is False
