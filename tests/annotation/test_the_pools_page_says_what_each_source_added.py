"""The pools page says, after a build of the built-in retrievers and after a run's import, how
many hits and new candidates each source brought, the same figures the API answers."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotation.models import Candidate, PoolBuild
from annotation.services.pooling import pool_build_run
from tests.annotation.factories import make_chunks, make_query


def said(response) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())


@pytest.mark.django_db
def test_a_build_and_a_run_import_are_each_said_with_their_figures(personas):
    project = personas.project
    chunks = make_chunks(project)
    query = make_query(project, "how do I install python")
    page = Client()
    page.force_login(personas.alice)
    url = f"/projects/{project.pk}/pools/"

    response = page.post(
        url, {"what": "build", "build-retrievers": ["bm25"], "build-k": "2"}, follow=True
    )
    assert "A worker is building the pools" in said(response)
    assert not Candidate.objects.filter(query=query).exists()  # nothing built in the request
    pool_build_run(build_id=PoolBuild.objects.get(project=project).pk)  # the worker's side
    built = Candidate.objects.filter(query=query).count()
    assert built >= 1
    text = said(page.get(url))
    assert f"bm25: {built} hits for 1 queries, {built} new candidates; 0 finished" in text, text

    run = (
        "".join(
            f"{query.pk} Q0 {chunk.chunk_id} {rank} {10 - rank} prod\n"
            for rank, chunk in enumerate(chunks[:3], start=1)
        )
        + "no-such-query Q0 doc-0#0 1 1 prod\n"
    )
    response = page.post(
        url,
        {
            "what": "run",
            "run-name": "prod",
            "run-format": "trec",
            "run-k": "10",
            "run-file": SimpleUploadedFile("prod.trec", run.encode()),
        },
        follow=True,
    )
    new = Candidate.objects.filter(query=query).count() - built
    text = said(response)
    assert f"prod: {new} new candidates, 1 rows skipped; 0 finished queries" in text, text
