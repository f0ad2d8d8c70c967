"""A corpus import is done when its chunks are stored; the search index is built after it, by a
worker for an upload. A search meanwhile finds every chunk it finds once the index is ready,
whatever the query and the chunk are written in (traditional or simplified characters,
full-width forms, English words): chunks a search must fold before matching are folded in
Python, the others matched on their own text. On PostgreSQL and SQLite."""

from __future__ import annotations

import re
import time
import unicodedata

import opencc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.models import CorpusImport, Project
from annotation.selectors.corpus import chunk_search, search_index_state
from annotation.services.corpus import corpus_import, corpus_import_create, corpus_import_run
from annotation.services.projects import project_setup, project_tokenizer_set
from annotation.services.search import search_index_build, search_index_reset
from tests.annotation.test_a_chinese_project_is_cut_into_chinese_words import CHUNKS, corpus_file

TRADITIONAL = opencc.OpenCC("s2t").convert
# The chunks as people also write them: traditional characters, full-width letters and digits.
WRITTEN = {
    **CHUNKS,
    **{f"tw-{cid}": TRADITIONAL(text) for cid, text in CHUNKS.items()},
    "wide-1": "ｉＰｈｏｎｅ１５ 的保修期为一年。",
    "mixed-1": "退貨期限為簽收後 15 天，iPhone 退款另計。",
}


def found(project: Project, text: str) -> set[str]:
    return {c.chunk_id for c in chunk_search(project=project, text=text, limit=200)}


@pytest.fixture
def twins(personas, tmp_path):
    """Two projects with the same Chinese corpus: one indexed, one whose index is not built."""
    made = []
    for name in ("indexed", "waiting"):
        project = (
            personas.project
            if name == "indexed"
            else project_setup(name="waiting", leads=["alice"]).project
        )
        project_tokenizer_set(project=project, tokenizer="zh-bigrams")
        folder = tmp_path / name
        folder.mkdir()
        record = corpus_import(project=project, path=corpus_file(folder, WRITTEN))
        assert record.status == "done", record.error
        made.append(Project.objects.get(pk=project.pk))
    indexed, waiting = made
    search_index_reset(project_id=waiting.pk)
    assert search_index_state(project=indexed)["state"] == "ready"
    assert search_index_state(project=waiting) == {
        "state": "building",
        "indexed": 0,
        "chunks": len(WRITTEN),
    }
    return indexed, waiting


def queries() -> st.SearchStrategy[str]:
    """A piece of a chunk (1 to 6 characters), as written or in traditional characters."""
    texts = sorted(WRITTEN.values())
    piece = st.tuples(st.sampled_from(texts), st.integers(0, 60), st.integers(1, 6)).map(
        lambda t: t[0][t[1] : t[1] + t[2]]
    )
    return st.one_of(piece, piece.map(TRADITIONAL)).filter(lambda q: q.strip())


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(query=queries())
def test_a_search_without_the_index_finds_what_the_index_finds(twins, query):
    """Every chunk; the same chunks for Chinese words. (PostgreSQL's index matches a word of
    letters or digits from its start, `iphone` in `iphone15`; without it a search matches it
    anywhere, so it may find more while the index is built, never less.)"""
    indexed, waiting = twins
    before, after = found(waiting, query), found(indexed, query)
    assert before >= after
    if not re.search("[A-Za-z0-9_]", unicodedata.normalize("NFKC", query)):
        assert before == after


def test_the_words_people_type_find_the_same_chunks_before_and_after_the_build(twins):
    indexed, waiting = twins
    for query in ("退款", "退貨期限", "iphone15", "ＩＰＨＯＮＥ", "忘記密碼", "保修范围", "物流"):
        before = found(waiting, query)
        assert before >= found(indexed, query), query
        assert before, query
    assert found(waiting, "退貨期限") >= {"return-1", "tw-return-1", "mixed-1"}
    search_index_build(project_id=waiting.pk)
    assert search_index_state(project=waiting)["state"] == "ready"
    assert found(waiting, "退貨期限") == found(indexed, "退貨期限")


def test_an_upload_is_done_when_stored_and_a_worker_builds_its_index(
    personas, tmp_path, celery_worker_process
):
    project = personas.project
    project_tokenizer_set(project=project, tokenizer="zh-bigrams")
    record = corpus_import_create(project=project, filename="help.jsonl")
    done = corpus_import_run(
        corpus_import_id=record.pk, path=corpus_file(tmp_path, WRITTEN), index="worker"
    )
    assert done.status == "done", done.error
    assert CorpusImport.objects.get(pk=record.pk).phase != "indexing for search"
    assert found(project, "退貨期限")  # searchable at once, index or not
    deadline = time.monotonic() + 60
    while search_index_state(project=project)["state"] != "ready":
        assert time.monotonic() < deadline, "the worker did not build the index within 60 s"
        time.sleep(0.25)
    assert search_index_state(project=project)["indexed"] == len(WRITTEN)
