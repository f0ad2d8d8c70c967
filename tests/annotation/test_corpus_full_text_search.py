"""Annotators search the corpus for a chunk the pool missed (PostgreSQL full-text search,
a simple fallback on SQLite), through the API and the page."""

import json

from annotation.services.corpus import corpus_import

DOCS = [
    {"id": "j1", "doc_id": "json", "text": "The json module encodes and decodes JSON documents."},
    {"id": "p1", "doc_id": "pathlib", "text": "Path objects represent filesystem paths."},
    {"id": "a1", "doc_id": "asyncio", "text": "asyncio runs coroutines; gather waits for many."},
]


def load(project, tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    corpus_import(project=project, path=path)


def test_members_find_chunks_by_words(personas, tmp_path, api_client_for):
    load(personas.project, tmp_path)
    url = f"/api/v1/projects/{personas.project.pk}/corpus/search/"
    response = api_client_for(personas.bob).get(url, {"q": "filesystem paths"})
    assert response.status_code == 200
    assert [hit["chunk_id"] for hit in response.json()] == ["p1"]
    assert response.json()[0]["doc_id"] == "pathlib"
    assert (
        api_client_for(personas.victor).get(url, {"q": "coroutines"}).json()[0]["chunk_id"] == "a1"
    )
    assert api_client_for(personas.bob).get(url, {"q": "nothing-like-this"}).json() == []


def test_outsiders_cannot_search(personas, tmp_path, api_client_for):
    load(personas.project, tmp_path)
    url = f"/api/v1/projects/{personas.project.pk}/corpus/search/"
    assert api_client_for(personas.mallory).get(url, {"q": "json"}).status_code == 404
    assert api_client_for(None).get(url, {"q": "json"}).status_code in (401, 403)


def test_the_corpus_page_shows_hits(personas, tmp_path, client):
    load(personas.project, tmp_path)
    client.force_login(personas.bob)
    page = client.get(f"/projects/{personas.project.pk}/corpus/", {"q": "json"})
    assert page.status_code == 200
    assert "encodes and decodes" in page.content.decode()
    assert "Import a corpus file" not in page.content.decode()  # leads only
