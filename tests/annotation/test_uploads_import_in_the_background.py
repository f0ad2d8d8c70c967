"""Leads upload a corpus or a query log through the API or the page; the import runs as a
Celery task with progress in the database, and the uploaded file is deleted afterwards."""

from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Chunk, CorpusImport, LogQuery, QueryLog

LOG = b"query,category,feedback\nmail me at jo@example.com,mail,thumbs_down\nhow to zip,files,\n"


def uploads() -> list[Path]:
    folder = Path(settings.VAR_DIR) / "uploads"
    return sorted(folder.iterdir()) if folder.exists() else []


@pytest.fixture
def clean_uploads():
    before = set(uploads())
    yield
    assert set(uploads()) == before, "an uploaded file was kept"


def test_a_lead_uploads_a_query_log_through_the_api(
    personas, api_client_for, eager_celery, clean_uploads, django_capture_on_commit_callbacks
):
    client = api_client_for(personas.alice)
    url = f"/api/v1/projects/{personas.project.pk}/querylogs/"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url, {"file": SimpleUploadedFile("log.csv", LOG)}, format="multipart"
        )
    assert response.status_code == 202, response.content
    log = QueryLog.objects.get(pk=response.json()["id"])
    assert (log.status, log.upload_path) == ("done", "")
    detail = client.get(f"{url}{log.pk}/").json()
    assert detail["progress"] == 1.0
    assert detail["scrubbed"] == {"EMAIL": 1}
    queries = client.get(f"{url}{log.pk}/queries/").json()["results"]
    assert {q["text"] for q in queries} == {"mail me at <EMAIL>", "how to zip"}


def test_a_bad_upload_fails_with_its_line_and_stores_nothing(
    personas, api_client_for, eager_celery, clean_uploads, django_capture_on_commit_callbacks
):
    client = api_client_for(personas.alice)
    url = f"/api/v1/projects/{personas.project.pk}/corpus/imports/"
    bad = b'{"id": "a", "doc_id": "d", "text": "x"}\n{"id": "a", "doc_id": "d", "text": "y"}\n'
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url, {"file": SimpleUploadedFile("c.jsonl", bad)}, format="multipart"
        )
    record = CorpusImport.objects.get(pk=response.json()["id"])
    assert record.status == "failed"
    assert record.error == "c.jsonl:2: duplicate chunk id 'a'"
    assert not Chunk.objects.exists()
    assert client.get(f"{url}{record.pk}/").json()["error"] == record.error


def test_the_pages_upload_and_show_progress(
    personas, client, eager_celery, clean_uploads, django_capture_on_commit_callbacks
):
    client.force_login(personas.alice)
    base = f"/projects/{personas.project.pk}"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"{base}/querylogs/",
            {
                "what": "upload",
                "log-file": SimpleUploadedFile("log.csv", LOG),
                "log-near_duplicate_threshold": "0.85",
                "log-clusters": "3",
            },
        )
    log = QueryLog.objects.get()
    assert response.status_code == 302 and response["Location"] == f"{base}/querylogs/{log.pk}/"
    page = client.get(response["Location"]).content.decode()
    assert "&lt;EMAIL&gt;" in page and "Head / torso / tail" in page
    assert "jo@example.com" not in page
    assert LogQuery.objects.filter(log=log).count() == 2
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"{base}/corpus/",
            {
                "file": SimpleUploadedFile("c.csv", b"doc_id,title,text\nd1,Zip,Zip files.\n"),
                "chunk_size": "500",
                "overlap": "50",
            },
        )
    record = CorpusImport.objects.get()
    assert record.status == "done" and record.mode == "documents"
    page = client.get(response["Location"]).content.decode()
    assert "import-progress" in page and "New chunks" in page


@pytest.mark.parametrize(
    "who, status", [("alice", 200), ("bob", 403), ("victor", 403), ("mallory", 404)]
)
def test_only_leads_open_the_log_and_sampling_pages(personas, client, who, status):
    client.force_login(getattr(personas, who))
    base = f"/projects/{personas.project.pk}"
    for url in (f"{base}/querylogs/", f"{base}/sampling/"):
        assert client.get(url).status_code == status, url
    corpus_status = 404 if who == "mallory" else 200
    assert client.get(f"{base}/corpus/").status_code == corpus_status


@pytest.mark.parametrize(
    "who, status", [("alice", 200), ("bob", 403), ("victor", 403), ("mallory", 404)]
)
def test_only_leads_use_the_import_and_sampling_api(personas, api_client_for, who, status):
    client = api_client_for(getattr(personas, who))
    base = f"/api/v1/projects/{personas.project.pk}"
    for url in ("/querylogs/", "/corpus/imports/", "/samples/"):
        assert client.get(base + url).status_code == status, url
    upload = {"file": SimpleUploadedFile("log.txt", b"hello\n")}
    expected = 202 if who == "alice" else status
    if who != "alice":
        assert client.post(base + "/querylogs/", upload, format="multipart").status_code == expected
