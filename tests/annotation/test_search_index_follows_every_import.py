"""The search index is built right after an import commits, by several database sessions, and
a search never misses a chunk: chunks still waiting for their vector (the project's search
backlog) are searched without the index. PostgreSQL only (SQLite has no search index)."""

import json
import logging
import threading
import time

import psycopg
import pytest
from django.db import connection

from annotation.models import Chunk, ChunkSearch, Document, SearchBacklog
from annotation.selectors.corpus import chunk_search
from annotation.services import search
from annotation.services.corpus import corpus_import

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the search index exists on PostgreSQL only"
)


def write_corpus(path, texts):
    path.write_text(
        "".join(
            json.dumps({"id": f"c{i}", "doc_id": f"d{i // 3}", "text": t}) + "\n"
            for i, t in enumerate(texts)
        )
    )
    return path


def words_of(hits):
    return [c.chunk_id for c in hits]


def test_an_import_leaves_every_chunk_indexed_and_no_backlog(
    transactional_db, personas, tmp_path, monkeypatch, caplog
):
    monkeypatch.setattr(search, "BATCH", 7)  # many small batches over two sessions
    phases = []
    texts = [f"passage {i} about topic{i % 5} and lanterns" for i in range(60)]
    with caplog.at_level(logging.INFO, logger="annotation.services.search"):
        record = corpus_import(
            project=personas.project,
            path=write_corpus(tmp_path / "c.jsonl", texts),
            on_progress=lambda phase, done, total: phases.append(phase),
        )
    assert record.status == "done" and record.chunks_created == 60
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert "search index of project" in caplog.text and "60 vectors" in caplog.text
    # The import is done when its chunks are stored; the index is built after (here, by the
    # command line's call; for an upload, by a worker): no phase of the import waits for it.
    assert "indexing for search" not in phases
    indexed = set(ChunkSearch.objects.values_list("chunk_id", flat=True))
    assert indexed == set(
        Chunk.objects.filter(project=personas.project).values_list("pk", flat=True)
    )
    assert not SearchBacklog.objects.exists()
    assert len(chunk_search(project=personas.project, text="topic3 lanterns", limit=100)) == 12


def test_chunks_waiting_for_their_vector_are_found_all_the_same(personas):
    project = personas.project
    doc = Document.objects.create(project=project, doc_id="d")
    waiting = Chunk.objects.create(
        project=project, document=doc, chunk_id="w", text="the albatross migrates", text_sha256="x"
    )
    search.search_backlog_add(project_id=project.pk)
    assert not ChunkSearch.objects.filter(chunk=waiting).exists()
    assert words_of(chunk_search(project=project, text="albatross")) == ["w"]
    assert search.search_index_build(project_id=project.pk) == 1
    assert not SearchBacklog.objects.filter(project=project).exists()
    assert words_of(chunk_search(project=project, text="albatross")) == ["w"]


def test_a_changed_chunk_is_searched_by_its_new_text(transactional_db, personas, tmp_path):
    path = tmp_path / "c.jsonl"
    corpus_import(project=personas.project, path=write_corpus(path, ["old walrus", "kept text"]))
    record = corpus_import(
        project=personas.project, path=write_corpus(path, ["new narwhal", "kept text"])
    )
    assert record.chunks_changed == 1
    assert words_of(chunk_search(project=personas.project, text="narwhal")) == ["c0"]
    assert chunk_search(project=personas.project, text="walrus") == []
    assert not SearchBacklog.objects.exists()


def other_session():
    settings_dict = connection.settings_dict
    return psycopg.connect(
        dbname=settings_dict["NAME"],
        user=settings_dict["USER"],
        host=settings_dict["HOST"] or None,
        port=settings_dict["PORT"] or None,
    )


def start_an_import(session, project, doc):
    """What an import does in its transaction: store a chunk, upsert the backlog row."""
    with session.cursor() as cursor:
        cursor.execute(
            "INSERT INTO annotation_chunk (chunk_id, text, position, metadata, text_sha256,"
            " text_changed, removed, updated_at, document_id, project_id)"
            " VALUES ('late', 'a late kingfisher', 0, '{}', 'x', false, false, now(), %s, %s)",
            [doc.pk, project.pk],
        )
        cursor.execute(
            "INSERT INTO annotation_searchbacklog (project_id, since) VALUES (%s, now())"
            " ON CONFLICT (project_id) DO UPDATE SET since = EXCLUDED.since",
            [project.pk],
        )


def build_in_a_thread(project_id, made):
    def build():
        try:
            made.append(search.search_index_build(project_id=project_id))
        finally:
            connection.close()

    builder = threading.Thread(target=build)
    builder.start()
    return builder


def test_a_build_waits_for_an_import_holding_the_backlog_then_indexes_it(
    transactional_db, personas
):
    project = personas.project
    doc = Document.objects.create(project=project, doc_id="d")
    search.search_backlog_add(project_id=project.pk)  # an earlier import's backlog
    session = other_session()
    start_an_import(session, project, doc)  # not committed: it holds the backlog row
    made: list[int] = []
    builder = build_in_a_thread(project.pk, made)
    time.sleep(0.5)
    assert builder.is_alive()  # waiting for the import's row lock
    session.commit()
    session.close()
    builder.join(timeout=30)
    assert made == [1]  # the chunk the import committed meanwhile
    assert not SearchBacklog.objects.exists()
    assert words_of(chunk_search(project=project, text="kingfisher")) == ["late"]


def test_a_build_leaves_the_backlog_of_an_import_not_committed_yet(transactional_db, personas):
    project = personas.project
    doc = Document.objects.create(project=project, doc_id="d")
    session = other_session()
    start_an_import(session, project, doc)
    made: list[int] = []
    builder = build_in_a_thread(project.pk, made)
    builder.join(timeout=30)
    assert made == [0]
    session.commit()
    session.close()
    assert SearchBacklog.objects.filter(project=project).exists()  # still to do
    assert words_of(chunk_search(project=project, text="kingfisher")) == ["late"]
    assert search.search_index_build(project_id=project.pk) == 1
    assert not SearchBacklog.objects.exists()
