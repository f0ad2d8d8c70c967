"""A small judged project, frozen as v1, and a corpus update: the ground of the refresh tests."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from annotation.models import Assignment, Candidate, Chunk, Document, PoolSource, Query
from annotation.models.judging import SourceKind
from annotation.services.adjudication import queries_approve
from annotation.services.assignment import queries_assign
from annotation.services.goldsets import golden_set_version_freeze
from annotation.services.judging import judgment_save
from annotation.services.pool_hits import pool_add_hits
from annotation.services.search import search_index_build

TEXTS = {
    "guide#0": "To reset a password, open Settings and choose Security.",
    "guide#1": "Refunds for annual plans are paid within 14 days.",
    "guide#2": "Invoices list every seat and its monthly price.",
    "guide#3": "Two-factor codes expire after 30 seconds.",
}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Judged:
    password: Query
    refund: Query
    invoices: Query
    version: object


def make_chunks(project) -> dict[str, Chunk]:
    doc = Document.objects.create(project=project, doc_id="guide", title="Guide")
    out, at = {}, 0
    for position, (cid, text) in enumerate(TEXTS.items()):
        out[cid] = Chunk.objects.create(
            project=project, document=doc, chunk_id=cid, text=text, position=position,
            start=at, end=at + len(text), text_sha256=sha(text),
        )  # fmt: skip
        at += len(text) + 1
    search_index_build(project_id=project.pk)
    return out


def grade_all(user, query, grades: dict[str, int]) -> None:
    assignment = Assignment.objects.get(query=query, annotator=user)
    for candidate in Candidate.objects.filter(query=query).select_related("chunk"):
        if candidate.chunk.chunk_id in grades:
            judgment_save(
                assignment=assignment, candidate=candidate, grade=grades[candidate.chunk.chunk_id]
            )


def judged_v1(personas) -> Judged:
    """Three queries graded by bob and carol alike, approved and frozen as v1."""
    project = personas.project
    chunks = make_chunks(project)
    queries = {
        name: Query.objects.create(project=project, text=text, normalized=text)
        for name, text in (
            ("password", "how to reset a password"),
            ("refund", "refunds for annual plans"),
            ("invoices", "invoice seat price"),
        )
    }
    source = PoolSource.objects.create(project=project, name="run", kind=SourceKind.RUN, k=4)
    pool_add_hits(
        source=source, hits={q.pk: [c.pk for c in chunks.values()] for q in queries.values()}
    )
    queries_assign(project=project, per_query=2)
    grades = {
        "password": {"guide#0": 2, "guide#1": 0, "guide#2": 0, "guide#3": 1},
        "refund": {"guide#0": 0, "guide#1": 2, "guide#2": 0, "guide#3": 0},
        "invoices": {"guide#0": 0, "guide#1": 0, "guide#2": 2, "guide#3": 0},
    }
    for name, query in queries.items():
        for user in (personas.bob, personas.carol):
            grade_all(user, query, grades[name])
    queries_approve(project=project, by=personas.alice)
    version = golden_set_version_freeze(project=project, by=personas.alice)
    return Judged(queries["password"], queries["refund"], queries["invoices"], version)


def update_corpus(project) -> None:
    """guide#0 loses a comma's worth (punctuation only); guide#1 is retired and replaced by
    guide#1b over the same characters, reworded; guide#3 changes its text."""
    c0 = Chunk.objects.get(project=project, chunk_id="guide#0")
    c0.text = "To reset a password open Settings, and choose Security!"
    c0.text_sha256 = sha(c0.text)
    c0.save()
    c1 = Chunk.objects.get(project=project, chunk_id="guide#1")
    c1.removed = True
    c1.save()
    text = "Annual plans are refunded within 14 days."
    Chunk.objects.create(
        project=project, document=c1.document, chunk_id="guide#1b", text=text, position=9,
        start=c1.start, end=c1.start + len(text), text_sha256=sha(text),
    )  # fmt: skip
    c3 = Chunk.objects.get(project=project, chunk_id="guide#3")
    c3.text = "Two-factor codes expire after 60 seconds."
    c3.text_sha256 = sha(c3.text)
    c3.save()
    search_index_build(project_id=project.pk)
