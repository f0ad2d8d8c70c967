"""Every read of chunks by id (`evaluation.selectors.corpus`: their places, the live ones and
their texts; pooling a run's unjudged chunks reads their ids the same way) goes through
`chunk_values`, which asks LOOKUP_BATCH ids at a time (SQLite takes 999 parameters per
statement): ids beyond the first batch are found by each, a removed chunk is not live, and an
unknown id is left out."""

from __future__ import annotations

import hashlib

import pytest

from annotation.models import Chunk, Document
from evaluation.selectors import corpus
from evaluation.selectors.corpus import chunk_places, chunk_texts, chunk_values, live_chunks


@pytest.fixture
def chunks(personas, monkeypatch):
    monkeypatch.setattr(corpus, "LOOKUP_BATCH", 3)  # seven ids: three batches
    doc = Document.objects.create(project=personas.project, doc_id="d", title="d")
    made = [
        Chunk.objects.create(
            project=personas.project,
            document=doc,
            chunk_id=f"c{i}",
            text=f"text {i}",
            text_sha256=hashlib.sha256(f"text {i}".encode()).hexdigest(),
            start=10 * i,
            end=10 * i + 5,
            removed=i == 6,
        )
        for i in range(7)
    ]
    return personas.project, made


@pytest.mark.django_db
def test_each_read_finds_every_id_across_the_batches(chunks):
    project, made = chunks
    ids = [c.chunk_id for c in made] + ["unknown"]
    assert dict(chunk_values(project=project, chunk_ids=ids, fields=["id"])) == {
        c.chunk_id: c.pk for c in made
    }
    assert set(chunk_texts(project=project, chunk_ids=ids)) == {c.chunk_id for c in made}
    places = chunk_places(project=project, chunk_ids=ids)
    assert [(places[c.chunk_id].start, places[c.chunk_id].end) for c in made] == [
        (10 * i, 10 * i + 5) for i in range(7)
    ]
    graded = {c.chunk_id: "another sha" for c in made[:5]}
    live = live_chunks(project=project, chunk_ids=ids, graded=graded)
    assert sorted(live) == [f"c{i}" for i in range(6)]  # c6 is removed
    assert [live[f"c{i}"].text for i in range(6)] == [*(f"text {i}" for i in range(5)), None]
