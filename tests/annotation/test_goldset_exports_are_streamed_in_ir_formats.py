"""Exports stream from the API and the page in native JSONL, TREC qrels + topics, BEIR and CSV,
carry the content hash, and are readable by the tools of each format."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest
from django.http import StreamingHttpResponse
from django.test import Client

from annotation.services.goldsets import golden_set_version_freeze
from goldsmith.formats.goldset import read_goldset
from goldsmith.formats.trec import read_trec_qrels
from tests.annotation.goldset_factories import make_corpus, make_query, small_project


@pytest.fixture
def version(personas):
    project, _, _ = small_project(personas)
    return golden_set_version_freeze(project=project, by=personas.alice)


def download(client, url: str) -> tuple[StreamingHttpResponse, bytes]:
    response = client.get(url)
    assert response.status_code == 200, response
    assert isinstance(response, StreamingHttpResponse), "exports must stream"
    return response, b"".join(response.streaming_content)


def url(version, fmt: str) -> str:
    return f"/api/v1/projects/{version.project_id}/goldsets/{version.label}/export/{fmt}/"


def test_the_native_file_holds_the_hash_and_reads_back_verified(
    version, personas, tmp_path, api_client_for
):
    response, body = download(api_client_for(personas.victor), url(version, "jsonl"))
    assert response["X-Goldsmith-Content-Hash"] == version.content_hash
    short = version.content_hash.removeprefix("sha256:")[:12]
    assert f'filename="acme-support-v1-{short}.jsonl"' in response["Content-Disposition"]
    path = tmp_path / "v1.jsonl"
    path.write_bytes(body)
    gs = read_goldset(path)  # the native reader checks the content hash itself
    assert gs.header.content_hash == version.content_hash
    assert gs.header.query_count == 3 and gs.header.judgment_count == 6
    assert gs.header.extra["agreement_summary"]["queries_with_agreement"] == 3


def test_trec_qrels_are_read_by_pytrec_eval_and_topics_name_every_query(
    version, personas, api_client_for
):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    client = api_client_for(personas.victor)
    response, qrels_body = download(client, url(version, "trec"))
    assert response["X-Goldsmith-Content-Hash"] == version.content_hash
    assert response["Content-Disposition"].endswith('.qrels"')
    qrels: dict[str, dict[str, int]] = {}
    for line in qrels_body.decode().splitlines():
        qid, _, doc, grade = line.split()
        qrels.setdefault(qid, {})[doc] = int(grade)
    run = {qid: {doc: 1.0 / (i + 1) for i, doc in enumerate(docs)} for qid, docs in qrels.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "recall_10"})
    scores = evaluator.evaluate(run)
    assert set(scores) == set(qrels)
    # The file lists each query's chunks best grade first: ranking in file order is ideal.
    assert all(scores[q]["ndcg"] == pytest.approx(1.0) for q in qrels if max(qrels[q].values()))
    _, topics = download(client, url(version, "topics"))
    topic_ids = [line.split("\t")[0] for line in topics.decode().splitlines()]
    assert sorted(topic_ids) == sorted(version.items.values_list("query_id", flat=True))


def test_trec_qrels_read_back_with_the_goldsmith_reader(
    version, personas, tmp_path, api_client_for
):
    _, body = download(api_client_for(personas.alice), url(version, "trec"))
    (tmp_path / "q.qrels").write_bytes(body)
    cols = read_trec_qrels(tmp_path / "q.qrels")
    assert len(cols.grades) == version.judgment_count


def load_beir(folder: Path) -> tuple[dict, dict, dict]:
    """BEIR's own `GenericDataLoader(...).load(split="test")` when the `beir` package is there
    (installed with --no-deps: it imports without torch); otherwise the same steps, copied from
    beir 2.2.0's loader, so that the layout is still checked."""
    try:
        from beir.datasets.data_loader import GenericDataLoader
    except ImportError:
        pass
    else:
        return GenericDataLoader(data_folder=str(folder)).load(split="test")
    corpus, queries, qrels = {}, {}, {}
    for name in ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv"):
        assert (folder / name).exists(), f"File {name} not present"
    with (folder / "corpus.jsonl").open(encoding="utf8") as handle:
        for line in handle:
            row = json.loads(line)
            corpus[row.get("_id")] = {"text": row.get("text"), "title": row.get("title")}
    with (folder / "queries.jsonl").open(encoding="utf8") as handle:
        for line in handle:
            row = json.loads(line)
            queries[row.get("_id")] = row.get("text")
    with (folder / "qrels" / "test.tsv").open(encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_MINIMAL)
        next(reader)
        for query_id, corpus_id, score in reader:
            qrels.setdefault(query_id, {})[corpus_id] = int(score)
    return corpus, {qid: queries[qid] for qid in qrels}, qrels


def test_the_beir_zip_loads_as_beir_expects(version, personas, tmp_path, api_client_for):
    response, body = download(api_client_for(personas.victor), url(version, "beir"))
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(body))
    root = archive.namelist()[0].split("/")[0]
    assert root.endswith(version.content_hash.removeprefix("sha256:")[:12])
    assert {f"{root}/corpus.jsonl", f"{root}/queries.jsonl", f"{root}/qrels/test.tsv"} <= set(
        archive.namelist()
    )
    meta = json.loads(archive.read(f"{root}/goldsmith.json"))
    assert meta["content_hash"] == version.content_hash
    archive.extractall(tmp_path)
    corpus, queries, qrels = load_beir(tmp_path / root)
    assert sum(len(v) for v in qrels.values()) == version.judgment_count
    assert set(queries) == set(qrels)
    assert all(doc in corpus for judged in qrels.values() for doc in judged)


def test_csv_cells_that_look_like_formulas_are_neutralised(personas, api_client_for):
    project = personas.project
    chunks = make_corpus(project, docs=1, chunks_per_doc=1)
    make_query(project, '=HYPERLINK("http://evil","x")', {chunks[0]: 2}, category="+cmd")
    make_query(project, "@SUM(A1) or -2+3", {chunks[0]: 1}, category="plain")
    version = golden_set_version_freeze(project=project, by=personas.alice)
    response, body = download(api_client_for(personas.alice), url(version, "csv"))
    assert response["X-Goldsmith-Content-Hash"] == version.content_hash
    rows = list(csv.DictReader(io.StringIO(body.decode("utf-8-sig"))))
    assert {r["query"] for r in rows} == {'\'=HYPERLINK("http://evil","x")', "'@SUM(A1) or -2+3"}
    assert {r["category"] for r in rows} == {"'+cmd", "plain"}
    assert all(not r[c].startswith(("=", "+", "-", "@")) for r in rows for c in r)
    assert {r["grade"] for r in rows} == {"1", "2"}


def test_the_version_page_offers_the_same_streamed_files(version, personas):
    client = Client()
    client.force_login(personas.victor)
    base = f"/projects/{version.project_id}/goldsets/v1/export/"
    api = Client()
    api.force_login(personas.victor)
    for fmt in ("jsonl", "trec", "topics", "csv", "beir"):
        page_response, page_body = download(client, f"{base}{fmt}/")
        _, api_body = download(api, url(version, fmt))
        assert page_response["X-Goldsmith-Content-Hash"] == version.content_hash
        if fmt != "beir":  # zip entries carry timestamps
            assert page_body == api_body
    assert client.get(f"{base}xml/").status_code == 404


def test_a_chinese_project_name_stays_chinese_in_the_file_name(version, personas, api_client_for):
    from urllib.parse import quote

    project = version.project
    project.name = "电商客服 FAQ"
    project.save(update_fields=["name"])
    response, _ = download(api_client_for(personas.victor), url(version, "csv"))
    short = version.content_hash.removeprefix("sha256:")[:12]
    expected = quote(f"电商客服-faq-v1-{short}.csv")
    assert f"filename*=utf-8''{expected}" in response["Content-Disposition"]
