"""Rows for golden-set tests: a small corpus and queries whose final grades are settled.

Queries are built directly as Candidate/Resolution/QueryReview rows (what the judging area's
services produce), so that freeze tests do not depend on the whole annotation flow; one test
(`test_goldset_freeze_after_real_judging.py`) goes through the real services instead.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from annotation.models import (
    Candidate,
    Chunk,
    Document,
    Project,
    Query,
    QueryAgreement,
    QueryReview,
    Resolution,
)
from annotation.models.judging import Provenance, ReviewState
from annotation.services.search import search_index_build


def make_corpus(project: Project, docs: int = 3, chunks_per_doc: int = 3) -> list[Chunk]:
    chunks = []
    for d in range(docs):
        doc = Document.objects.create(project=project, doc_id=f"doc-{d}", title=f"Doc {d}")
        for c in range(chunks_per_doc):
            text = f"Passage {c} of document {d} about topic {d * chunks_per_doc + c}."
            chunks.append(
                Chunk.objects.create(
                    project=project,
                    document=doc,
                    chunk_id=f"doc-{d}#{c}",
                    text=text,
                    position=c,
                    start=c * 100,
                    end=c * 100 + len(text),
                    text_sha256=hashlib.sha256(text.encode()).hexdigest(),
                )
            )
    search_index_build(project_id=project.pk)  # as an import does
    return chunks


def make_query(
    project: Project,
    text: str,
    grades: Mapping[Chunk, int] | Sequence[tuple[Chunk, int, str]] = (),
    *,
    state: str = ReviewState.APPROVED,
    category: str = "",
    stratum: str = "",
    weight: float = 1.0,
    kappa: float | None = 0.8,
) -> Query:
    """A query with candidates for the given chunks, each resolved to its grade (provenance
    majority unless given), and a review in `state`."""
    query = Query.objects.create(
        project=project,
        text=text,
        normalized=text.lower(),
        category=category,
        stratum=stratum,
        weight=weight,
    )
    items = (
        [(c, g, Provenance.MAJORITY) for c, g in grades.items()]
        if isinstance(grades, Mapping)
        else list(grades)
    )
    for chunk, grade, provenance in items:
        candidate = Candidate.objects.create(query=query, chunk=chunk, shuffle_key=chunk.pk)
        Resolution.objects.create(candidate=candidate, grade=grade, provenance=provenance)
    QueryReview.objects.create(query=query, state=state)
    QueryAgreement.objects.create(
        query=query, n_annotators=2, n_items=len(items), kappa=kappa, raw_agreement=0.9, ac1=0.85
    )
    return query


def regrade(query: Query, chunk: Chunk, grade: int) -> None:
    """Change a settled grade (as a later adjudication would)."""
    Resolution.objects.filter(candidate__query=query, candidate__chunk=chunk).update(
        grade=grade, provenance=Provenance.ADJUDICATED
    )


def small_project(personas) -> tuple[Project, list[Chunk], list[Query]]:
    """Three approved queries, one resolved (not approved) and one flagged."""
    project = personas.project
    chunks = make_corpus(project)
    queries = [
        make_query(project, "how do I reset my password", {chunks[0]: 2, chunks[1]: 0}),
        make_query(
            project,
            "refund policy for annual plans",
            [
                (chunks[3], 2, Provenance.UNANIMOUS),
                (chunks[4], 1, Provenance.ADJUDICATED),
                (chunks[5], 0, Provenance.UNANIMOUS),
            ],
            category="billing",
            stratum="head",
            weight=2.5,
        ),
        make_query(project, "export invoices as csv", {chunks[6]: 1}, category="billing"),
    ]
    make_query(project, "not yet approved", {chunks[2]: 2}, state=ReviewState.RESOLVED)
    make_query(project, "still disputed", {chunks[2]: 1}, state=ReviewState.FLAGGED, kappa=0.1)
    return project, chunks, queries
