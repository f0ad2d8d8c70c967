"""Small builders for judging tests: a corpus, queries, pools and assignments via the ORM."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import timedelta

from django.utils import timezone

from annotation.models import (
    Candidate,
    Chunk,
    Document,
    ImportStatus,
    PoolBuild,
    PoolSource,
    Query,
)
from annotation.models.judging import SourceKind
from annotation.services.assignment import queries_assign
from annotation.services.pool_hits import pool_add_hits
from annotation.services.search import search_index_build

CORPUS = [
    ("Installing Python", "Download the installer from python.org and run it to install Python."),
    ("pip basics", "Use pip install to add a package; pip uninstall removes it."),
    ("Virtual environments", "Create a virtual environment with python -m venv and activate it."),
    ("Cats", "The cat sat on the mat and ignored every package manager."),
    ("Reading files", "Open a file with open() and read its lines in a for loop."),
]


def worker_went_silent(build, settings) -> None:
    """`build` was claimed by a worker that has not been heard of for longer than the stale
    time (set to 60 s here): the next request, read or watchdog fails it."""
    settings.GOLDSMITH_IMPORT_STALE_SECONDS = 60
    long_ago = timezone.now() - timedelta(seconds=61)
    PoolBuild.objects.filter(pk=build.pk).update(
        status=ImportStatus.RUNNING, started_at=long_ago, heartbeat_at=long_ago
    )


def make_chunks(project, texts=CORPUS) -> list[Chunk]:
    chunks = []
    for i, (title, text) in enumerate(texts):
        doc = Document.objects.create(project=project, doc_id=f"doc-{i}", title=title)
        chunks.append(
            Chunk.objects.create(
                project=project,
                document=doc,
                chunk_id=f"doc-{i}#0",
                text=text,
                text_sha256=hashlib.sha256(text.encode()).hexdigest(),
            )
        )
    search_index_build(project_id=project.pk)  # as an import does
    return chunks


def make_query(project, text: str, category: str = "") -> Query:
    return Query.objects.create(
        project=project, text=text, normalized=text.lower().strip(), category=category
    )


def pool(query: Query, chunks: list[Chunk], source: str = "fixture") -> list[Candidate]:
    src, _ = PoolSource.objects.get_or_create(
        project=query.project, name=source, defaults={"kind": SourceKind.RUN}
    )
    pool_add_hits(source=src, hits={query.pk: [c.pk for c in chunks]})
    return list(Candidate.objects.filter(query=query).order_by("shuffle_key", "id"))


@dataclass
class Judging:
    """One project with queries pooled and assigned to bob and carol."""

    project: object
    chunks: list[Chunk]
    queries: list[Query]
    candidates: dict[int, list[Candidate]] = field(default_factory=dict)

    def first(self) -> tuple[Query, list[Candidate]]:
        query = self.queries[0]
        return query, self.candidates[query.pk]


def judging_setup(personas, queries: int = 1, per_query: int = 3) -> Judging:
    project = personas.project
    chunks = make_chunks(project)
    made = [
        make_query(project, text, category="howto")
        for text in ["how to install python", "pip install a package", "read a file"][:queries]
    ]
    setup = Judging(project=project, chunks=chunks, queries=made)
    for query in made:
        setup.candidates[query.pk] = pool(query, chunks[:per_query])
    queries_assign(project=project, per_query=2)
    return setup


def grade_all(client, project, candidates, grades, note: str | None = None):
    """PUT each grade through the API as the client's user; returns the last response."""
    response = None
    for cand, grade in zip(candidates, grades, strict=True):
        body = {"grade": grade} if note is None else {"grade": grade, "note": note}
        response = client.put(
            f"/api/v1/projects/{project.pk}/candidates/{cand.pk}/judgment/", body, format="json"
        )
        assert response.status_code == 200, response.content
    return response
