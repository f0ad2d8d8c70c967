"""An error in an uploaded file names the file by the name it was uploaded under (and the member
inside a zip: ``beir.zip:qrels/test.tsv:3: …``) with the line, never a server-side temporary
path; invalid UTF-8 anywhere, a BEIR zip's members included, says which file and which line.
Golden-set imports (API and command) and run-file uploads (the retriever pages and API, the
pools page and API)."""

from __future__ import annotations

import io
import re
import zipfile

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from evaluation.services.retrievers import retriever_save
from goldsmith.formats.goldset import GoldenQuery, GoldJudgment
from tests.goldset_files import goldset_text

BAD_UTF8 = b"\xff\xfe broken"


def _no_server_path(message: str) -> None:
    assert "/tmp" not in message and str(settings.VAR_DIR) not in message, message
    assert not re.search(r"(^|[\s'\"(])/[\w.-]+/", message), message
    assert "goldset-import-" not in message, message


def _goldset_upload(client, project, fmt: str, **files: tuple[str, bytes]):
    data = {"format": fmt}
    for field, (name, content) in files.items():
        data[field] = SimpleUploadedFile(name, content)
    return client.post(f"/api/v1/projects/{project.pk}/goldsets/import/", data, format="multipart")


def _error(response) -> str:
    assert response.status_code == 400, (response.status_code, response.content[:500])
    body = response.json()
    text = " ".join(str(v) for v in body.values()) if isinstance(body, dict) else str(body)
    _no_server_path(text)
    return text


def _native_with_a_bad_line() -> bytes:
    text = goldset_text("Acme Support", "v9", [])
    header = text.splitlines()[0]
    return (header + "\n" + '{"query_id": "q1", "query": "x", "judgments": [}\n').encode()


def _beir_zip(*, corpus: bytes | None = None, qrels: bytes | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(
            "beir/queries.jsonl", '{"_id": "q1", "text": "one"}\n{"_id": "q2", "text": "two"}\n'
        )
        zf.writestr(
            "beir/corpus.jsonl",
            corpus
            if corpus is not None
            else b'{"_id": "c1", "text": "a"}\n{"_id": "c2", "text": "b"}\n',
        )
        zf.writestr(
            "beir/qrels/test.tsv",
            qrels if qrels is not None else b"query-id\tcorpus-id\tscore\nq1\tc1\t2\nq2\tc2\t1\n",
        )
    return buffer.getvalue()


CORPUS_BAD_UTF8 = b'{"_id": "c1", "text": "a"}\n{"_id": "c2", "text": "' + BAD_UTF8 + b'"}\n'
QRELS_BAD_UTF8 = b"query-id\tcorpus-id\tscore\nq1\tc1\t2\nq2\tc2" + BAD_UTF8 + b"\t1\n"


@pytest.mark.django_db
def test_golden_set_api_errors_name_the_upload_and_its_line(personas, api_client_for):
    client = api_client_for(personas.alice)
    project = personas.project
    jsonl = _error(
        _goldset_upload(client, project, "jsonl", file=("gold.jsonl", _native_with_a_bad_line()))
    )
    assert "gold.jsonl:2: invalid JSON" in jsonl
    trec = _error(
        _goldset_upload(
            client,
            project,
            "trec",
            file=("qrels.txt", b"q1 0 c1 2\nq1 0 c2\n"),
            topics=("topics.tsv", b"q1\tone\n"),
        )
    )
    assert "qrels.txt:2:" in trec
    topics = _error(
        _goldset_upload(
            client,
            project,
            "trec",
            file=("qrels.txt", b"q1 0 c1 2\n"),
            topics=("topics.tsv", b"q1\tone\nq2\t" + BAD_UTF8 + b"\n"),
        )
    )
    assert "topics.tsv:2: invalid UTF-8" in topics
    no_topic = _error(
        _goldset_upload(
            client,
            project,
            "trec",
            file=("qrels.txt", b"q1 0 c1 2\nq9 0 c1 2\n"),
            topics=("topics.tsv", b"q1\tone\n"),
        )
    )
    assert "topics.tsv:1: query 'q9' of qrels.txt has no topic" in no_topic
    corpus = _error(
        _goldset_upload(
            client,
            project,
            "trec",
            file=("qrels.txt", b"q1 0 c1 2\n"),
            topics=("topics.tsv", b"q1\tone\n"),
            corpus=("chunks.jsonl", b'{"_id": "c1", "text": "a"}\n{"_id": \n'),
        )
    )
    assert "chunks.jsonl:2: invalid JSON" in corpus


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("contents", "expected"),
    [
        ({"corpus": CORPUS_BAD_UTF8}, "beir.zip:corpus.jsonl:2: invalid UTF-8"),
        ({"qrels": QRELS_BAD_UTF8}, "beir.zip:qrels/test.tsv:3: invalid UTF-8"),
        (
            {"qrels": b"query-id\tcorpus-id\tscore\nq1\tc1\t2\nq2 c2 1\n"},
            "beir.zip:qrels/test.tsv:3: expected",
        ),
    ],
)
def test_a_beir_zip_error_names_the_zip_its_member_and_the_line(
    personas, api_client_for, contents, expected
):
    client = api_client_for(personas.alice)
    text = _error(
        _goldset_upload(client, personas.project, "beir", file=("beir.zip", _beir_zip(**contents)))
    )
    assert expected in text


@pytest.mark.django_db
def test_the_import_command_names_the_zip_member_and_line_of_bad_utf8(personas, tmp_path):
    path = tmp_path / "beir.zip"
    path.write_bytes(_beir_zip(corpus=CORPUS_BAD_UTF8))
    with pytest.raises(CommandError) as failed:
        call_command(
            "import_goldset", "--project", personas.project.name, "--format", "beir", str(path)
        )
    assert f"{path}:corpus.jsonl:2: invalid UTF-8" in str(failed.value)
    path.write_bytes(_beir_zip(qrels=QRELS_BAD_UTF8))
    with pytest.raises(CommandError) as failed:
        call_command(
            "import_goldset", "--project", personas.project.name, "--format", "beir", str(path)
        )
    assert f"{path}:qrels/test.tsv:3: invalid UTF-8" in str(failed.value)


BAD_RUN = b"q1 Q0 c1 1 0.9 r\nq1 Q0 c2 2 0.8 r\nq1 Q0 c3 three 0.7 r\n"


@pytest.mark.django_db
def test_run_file_errors_name_the_upload_from_the_api_and_the_pages(personas, api_client_for):
    project = personas.project
    retriever = retriever_save(project=project, name="file", kind="runfile")
    api = api_client_for(personas.alice)
    url = f"/api/v1/projects/{project.pk}/retrievers/{retriever.pk}/run-file/"
    for content, expected in (
        (BAD_RUN, "prod.trec:3:"),
        (b"q1 Q0 c1 1 0.9 r\nq1 Q0 " + BAD_UTF8 + b" 2 0.8 r\n", "prod.trec:2: invalid UTF-8"),
    ):
        response = api.post(
            url, {"file": SimpleUploadedFile("prod.trec", content)}, format="multipart"
        )
        assert expected in _error(response)

    page = Client()
    page.force_login(personas.alice)
    form = {
        "method": "POST",
        "id_field": "id",
        "timeout": "10",
        "max_concurrency": "4",
        "retries": "3",
        "run_file": SimpleUploadedFile("prod.trec", BAD_RUN),
    }
    response = page.post(f"/projects/{project.pk}/retrievers/{retriever.pk}/edit/", form)
    text = " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())
    assert "prod.trec:3:" in text, text[-3000:]
    _no_server_path(text)
    form["run_file"] = SimpleUploadedFile("other.trec", BAD_RUN)
    response = page.post(
        f"/projects/{project.pk}/retrievers/", {**form, "name": "second", "kind": "runfile"}
    )
    text = " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())
    assert "other.trec:3:" in text, text[-3000:]
    _no_server_path(text)


@pytest.mark.django_db
def test_pooled_run_errors_name_the_upload_from_the_api_and_the_page(personas, api_client_for):
    project = personas.project
    api = api_client_for(personas.alice)
    response = api.post(
        f"/api/v1/projects/{project.pk}/pools/runs/",
        {"name": "prod", "file": SimpleUploadedFile("prod.trec", BAD_RUN)},
        format="multipart",
    )
    assert "prod.trec:3:" in _error(response)
    page = Client()
    page.force_login(personas.alice)
    response = page.post(
        f"/projects/{project.pk}/pools/",
        {
            "what": "run",
            "run-name": "prod",
            "run-format": "auto",
            "run-k": "10",
            "run-file": SimpleUploadedFile("prod.trec", BAD_RUN),
        },
    )
    text = " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())
    assert "prod.trec:3:" in text, text[-3000:]
    _no_server_path(text)


@pytest.mark.django_db
def test_an_imported_version_records_the_uploads_own_name_however_long(personas, api_client_for):
    """The server's copy is not named after the upload (a long name in Chinese is over the file
    system's 255 bytes), yet the version records the name it was uploaded under."""
    name = "评测集" * 30 + ".jsonl"
    content = goldset_text(
        "Acme Support",
        "v1",
        [GoldenQuery(query_id="q1", query="one", judgments=(GoldJudgment("c1", 2),))],
    ).encode()
    client = api_client_for(personas.alice)
    response = _goldset_upload(client, personas.project, "jsonl", file=(name, content))
    assert response.status_code == 201, response.content[:500]
    assert response.json()["source_name"] == name
