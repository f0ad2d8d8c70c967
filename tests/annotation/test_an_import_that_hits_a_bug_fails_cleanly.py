"""An import that hits a bug (not bad input) fails with a short reason instead of a traceback,
stores nothing, deletes the uploaded copy of the file and logs the traceback for us."""

import json
import logging

from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Chunk, LogQuery
from annotation.services import corpus as corpus_service
from annotation.services import querylogs as querylog_service
from annotation.services.corpus import corpus_import_create, corpus_import_run
from annotation.services.querylogs import query_log_create, query_log_run
from annotation.services.uploads import upload_file


def broken(*args, **kwargs):
    raise RuntimeError("a bug")


def test_a_corpus_import_fails_whole_and_cleans_up(personas, monkeypatch, caplog):
    rows = [{"id": f"c{i}", "doc_id": "d", "text": f"passage {i}"} for i in range(10)]
    content = "".join(json.dumps(r) + "\n" for r in rows).encode()
    with upload_file(SimpleUploadedFile("c.jsonl", content), keep=True) as upload:
        record = corpus_import_create(
            project=personas.project, filename="c.jsonl", upload_path=upload
        )

    real_insert = corpus_service.bulk_insert

    def insert_then_fail(*args, **kwargs):
        real_insert(*args, **kwargs)  # the chunks are written, then the bug strikes
        raise RuntimeError("a bug")

    monkeypatch.setattr(corpus_service, "bulk_insert", insert_then_fail)
    with caplog.at_level(logging.ERROR):
        record = corpus_import_run(corpus_import_id=record.pk)
    assert (record.status, record.phase) == ("failed", "failed")
    assert record.error == "c.jsonl: internal error (RuntimeError)"
    assert not Chunk.objects.filter(project=personas.project).exists()
    assert not upload.exists() and record.upload_path == ""
    assert "a bug" in caplog.text  # the traceback is in the log, not in the user's face


def test_a_query_log_import_fails_whole_and_cleans_up(personas, monkeypatch):
    content = b"how do I parse json\nhow to read a file\n"
    with upload_file(SimpleUploadedFile("log.txt", content), keep=True) as upload:
        log = query_log_create(project=personas.project, filename="log.txt", upload_path=upload)
    monkeypatch.setattr(querylog_service, "cluster_queries", broken)
    log = query_log_run(query_log_id=log.pk)
    assert log.status == "failed"
    assert log.error == "log.txt: internal error (RuntimeError)"
    assert not LogQuery.objects.filter(log=log).exists()
    assert not upload.exists()
