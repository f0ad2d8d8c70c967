"""kill -9 the worker in the middle of an import: nothing of the file is stored (its transaction
dies with the worker's connection) and the watchdog fails the import with a clear reason
instead of leaving it "running" for ever; it deletes the uploaded copy of the file."""

import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from annotation.models import Chunk, CorpusImport, QueryLog
from annotation.services.imports import imports_watchdog
from annotation.services.progress import uploads_dir
from tests.conftest import wait_for


def test_only_imports_without_progress_for_long_are_failed(personas):
    project = personas.project
    upload = uploads_dir() / "stale-upload.jsonl"
    upload.write_text("{}\n")
    old = timezone.now() - timedelta(minutes=30)
    stale = CorpusImport.objects.create(
        project=project,
        filename="big.jsonl",
        status="running",
        heartbeat_at=old,
        upload_path=str(upload),
    )
    alive = QueryLog.objects.create(
        project=project, filename="log.jsonl", status="running", heartbeat_at=timezone.now()
    )
    done = CorpusImport.objects.create(
        project=project, filename="old.jsonl", status="done", heartbeat_at=old
    )
    assert imports_watchdog(stale_after=600) == [f"corpusimport #{stale.pk}"]
    stale.refresh_from_db()
    assert (stale.status, stale.phase, stale.upload_path) == ("failed", "failed", "")
    assert stale.error.startswith("big.jsonl: the worker stopped during the import")
    assert "nothing of this file was stored" in stale.error
    assert not upload.exists()
    alive.refresh_from_db()
    done.refresh_from_db()
    assert (alive.status, done.status) == ("running", "done")
    assert imports_watchdog(stale_after=600) == []  # safe to run twice


@pytest.mark.slow
def test_a_worker_killed_mid_import_leaves_a_failed_import_and_nothing_stored(
    personas, api_client_for, celery_worker_process, tmp_path
):
    rows = (
        json.dumps({"id": f"c{i}", "doc_id": f"d{i // 20}", "text": f"passage {i} " * 12})
        for i in range(150_000)
    )
    body = ("\n".join(rows) + "\n").encode()
    response = api_client_for(personas.alice).post(
        f"/api/v1/projects/{personas.project.pk}/corpus/imports/",
        {"file": SimpleUploadedFile("big.jsonl", body)},
        format="multipart",
    )
    assert response.status_code == 202, response.content
    record_id = response.json()["id"]
    wait_for(
        lambda: CorpusImport.objects.filter(pk=record_id, status="running").exists(),
        timeout=60,
        message=f"the import to start ({celery_worker_process.output()[-2000:]})",
    )
    upload = Path(CorpusImport.objects.get(pk=record_id).upload_path)
    celery_worker_process.kill()
    record = CorpusImport.objects.get(pk=record_id)
    assert record.status == "running", "killed too late to test anything"
    assert upload.exists()

    assert imports_watchdog(stale_after=0) == [f"corpusimport #{record_id}"]
    record.refresh_from_db()
    assert record.status == "failed"
    assert "the worker stopped during the import" in record.error
    assert not Chunk.objects.filter(project=personas.project).exists()
    assert not upload.exists()


def test_the_reason_is_written_in_the_uploaders_language(personas):
    """The watchdog has no request: it writes in the language the uploader chose for the
    interface (English when they chose none)."""
    from annotation.services.languages import user_language_set

    user_language_set(user=personas.alice, language="zh-hans")
    old = timezone.now() - timedelta(minutes=30)
    theirs = CorpusImport.objects.create(
        project=personas.project,
        filename="大.jsonl",
        status="running",
        heartbeat_at=old,
        created_by=personas.alice,
    )
    nobodys = QueryLog.objects.create(
        project=personas.project, filename="log.jsonl", status="running", heartbeat_at=old
    )
    imports_watchdog(stale_after=600)
    theirs.refresh_from_db()
    nobodys.refresh_from_db()
    assert theirs.error.startswith("大.jsonl：导入过程中工作进程停止了（自 ")
    assert theirs.error.endswith("此文件的内容均未保存：请重新导入")
    assert nobodys.error.startswith("log.jsonl: the worker stopped during the import")
