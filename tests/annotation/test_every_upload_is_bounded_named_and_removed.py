"""Every page and API view that receives a file writes it once, through
`annotation.services.uploads.upload_file`: a file over the upload limit
(GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES) is refused with the name it was uploaded under before any
reader sees it, and stores nothing; the server's copy is gone once the request has read it, and
a background import's copy once the import has read it."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotation.models import CorpusImport, PoolSource, QueryLog
from annotation.services.uploads import UploadRefused, upload_file
from evaluation.models import RunFile
from evaluation.services.retrievers import retriever_save
from goldsmith.formats import FormatError

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 200
NAME = "长的名字-big.jsonl"
BIG = b'{"query_id": "q1", "id": "c1"}\n' * 20


def uploads() -> set[Path]:
    folder = Path(settings.VAR_DIR) / "uploads"
    return set(folder.iterdir()) if folder.exists() else set()


def _page_text(response: Any) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())


def _api_text(response: Any) -> str:
    assert response.status_code == 400, (response.status_code, response.content[:300])
    return str(response.json())


def _retriever(project: Any) -> int:
    return retriever_save(project=project, name="file", kind="runfile").pk


RETRIEVER_FORM = {
    "method": "POST",
    "id_field": "id",
    "timeout": 10,
    "max_concurrency": 4,
    "retries": 3,
}
Post = Callable[[Any, Client, Any, SimpleUploadedFile], str]

# (what, how a lead sends the file there): each returns the text the lead is shown.
ENTRIES: dict[str, Post] = {
    "corpus API": lambda api, page, p, f: _api_text(
        api.post(f"/api/v1/projects/{p.pk}/corpus/imports/", {"file": f}, format="multipart")
    ),
    "corpus page": lambda api, page, p, f: _page_text(
        page.post(f"/projects/{p.pk}/corpus/", {"file": f, "chunk_size": 1000, "overlap": 100})
    ),
    "query-log API": lambda api, page, p, f: _api_text(
        api.post(f"/api/v1/projects/{p.pk}/querylogs/", {"file": f}, format="multipart")
    ),
    "query-log page": lambda api, page, p, f: _page_text(
        page.post(
            f"/projects/{p.pk}/querylogs/",
            {
                "what": "upload",
                "log-file": f,
                "log-near_duplicate_threshold": "0.85",
                "log-clusters": "3",
            },
        )
    ),
    "golden-set import API": lambda api, page, p, f: _api_text(
        api.post(
            f"/api/v1/projects/{p.pk}/goldsets/import/",
            {"format": "jsonl", "file": f},
            format="multipart",
        )
    ),
    "pooled run API": lambda api, page, p, f: _api_text(
        api.post(
            f"/api/v1/projects/{p.pk}/pools/runs/", {"name": "prod", "file": f}, format="multipart"
        )
    ),
    "pooled run page": lambda api, page, p, f: _page_text(
        page.post(
            f"/projects/{p.pk}/pools/",
            {"what": "run", "run-name": "prod", "run-format": "auto", "run-k": "10", "run-file": f},
        )
    ),
    "run-file API": lambda api, page, p, f: _api_text(
        api.post(
            f"/api/v1/projects/{p.pk}/retrievers/{_retriever(p)}/run-file/",
            {"file": f},
            format="multipart",
        )
    ),
    "retriever edit page": lambda api, page, p, f: _page_text(
        page.post(
            f"/projects/{p.pk}/retrievers/{_retriever(p)}/edit/",
            {**RETRIEVER_FORM, "run_file": f},
        )
    ),
}


@pytest.mark.django_db
@pytest.mark.parametrize("entry", list(ENTRIES))
def test_a_file_over_the_limit_is_refused_by_its_name_and_stores_nothing(
    personas, api_client_for, settings, entry
):
    settings.GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES = LIMIT
    page = Client()
    page.force_login(personas.alice)
    before = uploads()
    text = ENTRIES[entry](
        api_client_for(personas.alice), page, personas.project, SimpleUploadedFile(NAME, BIG)
    )
    assert f"{NAME}: the file is larger than {LIMIT:,} bytes" in text, text[-2000:]
    assert "/tmp" not in text and str(settings.VAR_DIR) not in text
    assert uploads() == before
    assert not CorpusImport.objects.exists() and not QueryLog.objects.exists()
    assert not PoolSource.objects.exists() and not RunFile.objects.exists()


RUN = b"q1 Q0 c1 1 0.9 r\nq1 Q0 c2 2 0.8 r\n"


@pytest.mark.django_db
def test_the_copy_is_gone_once_the_request_has_read_it(personas, api_client_for):
    api = api_client_for(personas.alice)
    before = uploads()
    url = f"/api/v1/projects/{personas.project.pk}/retrievers/{_retriever(personas.project)}/"
    response = api.post(
        f"{url}run-file/", {"file": SimpleUploadedFile("prod.trec", RUN)}, format="multipart"
    )
    assert response.status_code == 201, response.content
    response = api.post(
        f"{url}run-file/",
        {"file": SimpleUploadedFile("prod.trec", RUN + b"q1 Q0 c3 three 0.7 r\n")},
        format="multipart",
    )
    assert "prod.trec:3:" in _api_text(response)
    assert uploads() == before


def test_an_upload_of_unknown_size_is_bounded_while_it_is_written(settings):
    """A file whose size is not known beforehand is counted as it is written."""
    settings.GOLDSMITH_UPLOAD_MAX_UNPACKED_BYTES = LIMIT

    class Streamed:
        name = "stream.txt"

        def chunks(self, chunk_size: int | None = None):
            yield from (b"x" * 100 for _ in range(5))

    before = uploads()
    refused = pytest.raises(UploadRefused, match=r"^stream.txt: the file is larger than 200 bytes")
    with refused, upload_file(Streamed()):
        pytest.fail("the block ran")
    assert uploads() == before


def test_a_kept_copy_stays_for_its_import_unless_the_block_fails():
    with upload_file(SimpleUploadedFile("log.txt", b"one\n"), keep=True) as kept:
        pass
    assert kept.read_bytes() == b"one\n" and kept.suffix == ".txt"
    kept.unlink()
    upload = SimpleUploadedFile("log.txt", b"one\n")
    with (
        pytest.raises(FormatError, match=r"^log.txt:2: bad"),
        upload_file(upload, keep=True) as copy,
    ):
        raise FormatError(copy, 2, "bad")
    assert not copy.exists()


def test_no_view_writes_an_upload_itself():
    """Only the upload service reads an upload's chunks or makes temporary files."""
    allowed = {ROOT / "annotation/services/uploads.py", ROOT / "annotation/demo.py"}
    found = []
    for package in ("annotation", "evaluation", "config"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path in allowed or "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                call = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                if call and node.func.attr == "chunks":  # type: ignore[attr-defined]
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} .chunks")
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    names = [node.module or ""]
                if "tempfile" in names:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} tempfile")
    assert found == []
