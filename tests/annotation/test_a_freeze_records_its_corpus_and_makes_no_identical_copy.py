"""A freeze records the live corpus version and its hash (and its JSONL export says them in the
header, outside the content hash, which covers the queries only); an imported file that names
its corpus keeps that hash. A freeze identical to the latest version stores nothing and says
"identical to v1": on the page, through the API (409) and with `freeze` (exit 3)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from annotation.models import Chunk, GoldenItem, GoldenSetVersion
from annotation.selectors.corpus import corpus_version_live
from annotation.services.goldsets import (
    FreezeIdentical,
    golden_set_version_freeze,
    golden_set_version_import,
    goldset_load,
)
from goldsmith.formats.goldset import goldset_content_hash, read_goldset
from tests.annotation.corpus_files import V1, import_corpus, write_corpus
from tests.annotation.goldset_factories import make_query


@pytest.fixture
def judged(personas, tmp_path):
    project = personas.project
    import_corpus(project, write_corpus(tmp_path, "v1.jsonl", V1))
    import_corpus(project, write_corpus(tmp_path, "v2.jsonl", {"kb-5": "Plans renew."}))
    chunk = {c.chunk_id: c for c in Chunk.objects.filter(project=project)}
    make_query(project, "refund time", {chunk["kb-2"]: 2, chunk["kb-5"]: 0})
    return project


def test_the_freeze_records_the_live_corpus_and_the_export_says_it(judged, personas, tmp_path):
    live = corpus_version_live(project=judged)
    v1 = golden_set_version_freeze(project=judged, by=personas.alice)
    assert (v1.corpus_version, v1.corpus_hash) == (live, live.content_hash)
    response = Client()
    response.force_login(personas.alice)
    body = b"".join(
        response.get(f"/api/v1/projects/{judged.pk}/goldsets/v1/export/jsonl/").streaming_content
    )
    header = json.loads(body.splitlines()[0])
    assert (header["corpus_version"], header["corpus_hash"]) == (2, live.content_hash)
    path = tmp_path / "v1.goldset.jsonl"
    path.write_bytes(body)
    read = read_goldset(path)  # the reader checks the content hash against the queries
    assert (read.header.corpus_version, read.header.corpus_hash) == (2, live.content_hash)
    assert goldset_content_hash(read.queries) == v1.content_hash == header["content_hash"]


def test_an_imported_file_keeps_the_corpus_it_names(judged, personas, tmp_path):
    v1 = golden_set_version_freeze(project=judged, by=personas.alice)
    client = Client()
    client.force_login(personas.alice)
    path = tmp_path / "v1.goldset.jsonl"
    path.write_bytes(
        b"".join(
            client.get(f"/api/v1/projects/{judged.pk}/goldsets/v1/export/jsonl/").streaming_content
        )
    )
    loaded = goldset_load(fmt="jsonl", path=path)
    copy = golden_set_version_import(
        project=judged, by=personas.alice, loaded=loaded, fmt="jsonl", label="copy"
    )
    assert copy.corpus_hash == v1.corpus_hash
    assert copy.corpus_version == v1.corpus_version  # the project has a version of that hash


def test_a_freeze_identical_to_the_latest_version_stores_nothing(judged, personas):
    golden_set_version_freeze(project=judged, by=personas.alice)
    rows = (GoldenSetVersion.objects.count(), GoldenItem.objects.count())
    with pytest.raises(FreezeIdentical, match="identical to v1"):
        golden_set_version_freeze(project=judged, by=personas.alice, note="again")
    with pytest.raises(CommandError) as refused:
        call_command("freeze", "--project", judged.name, stdout=io.StringIO())
    assert refused.value.returncode == 3 and "identical to v1" in str(refused.value)

    api = Client()
    api.force_login(personas.alice)
    response = api.post(
        f"/api/v1/projects/{judged.pk}/goldsets/", {"note": "x"}, content_type="application/json"
    )
    assert response.status_code == 409
    assert response.json()["code"] == "identical" and "identical to v1" in response.json()["detail"]

    page = api.post(f"/projects/{judged.pk}/goldsets/", {"note": "x"}, follow=True)
    assert "identical to v1" in page.content.decode()
    assert (GoldenSetVersion.objects.count(), GoldenItem.objects.count()) == rows

    chunk = Chunk.objects.get(chunk_id="kb-3")
    make_query(judged, "contact", {chunk: 2})  # something new: the next freeze is v2
    assert golden_set_version_freeze(project=judged, by=personas.alice).label == "v2"
