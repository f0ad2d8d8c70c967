"""The CSV files meant for spreadsheets (a golden set's CSV export, a run's report.csv) start
with the UTF-8 byte order mark: Excel reads a CSV without it in the system's code page (GBK on
Chinese Windows), and every Chinese cell turns to mojibake. The machine formats carry none, and
the file the command writes is the download's bytes (issue 23)."""

from __future__ import annotations

import csv
import io

from django.core.management import call_command
from django.test import Client

from annotation.services.goldsets import golden_set_version_freeze
from tests.annotation.goldset_factories import make_corpus, make_query

BOM = b"\xef\xbb\xbf"


def download(client: Client, url: str) -> bytes:
    response = client.get(url)
    assert response.status_code == 200, url
    return b"".join(response.streaming_content)


def test_the_golden_set_csv_starts_with_the_bom_and_holds_chinese_as_utf8(personas, tmp_path):
    project = personas.project
    chunks = make_corpus(project, docs=1, chunks_per_doc=2)
    make_query(project, "退款多久到账？", {chunks[0]: 2, chunks[1]: 0}, category="退款")
    version = golden_set_version_freeze(project=project, by=personas.alice)
    client = Client()
    client.force_login(personas.victor)
    base = f"/projects/{project.pk}/goldsets/{version.label}/export/"
    body = download(client, f"{base}csv/")
    assert body.startswith(BOM + b"query_id,query,")
    assert "退款多久到账？".encode() in body  # UTF-8, not GBK
    rows = list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))
    assert {r["query"] for r in rows} == {"退款多久到账？"} and {r["category"] for r in rows} == {
        "退款"
    }
    # The API serves the same bytes, and so does the command's file.
    assert (
        download(client, f"/api/v1/projects/{project.pk}/goldsets/{version.label}/export/csv/")
        == body
    )
    path = tmp_path / "v1.csv"
    call_command(
        "export_goldset", "--project", project.name, "--version", version.label,
        "--format", "csv", "-o", str(path), stdout=io.StringIO(),
    )  # fmt: skip
    assert path.read_bytes() == body
    # Files for programs, not spreadsheets, carry no mark.
    for fmt in ("jsonl", "trec", "topics"):
        assert not download(client, f"{base}{fmt}/").startswith(BOM), fmt
