"""Pools: the union of the top k of the built-in retrievers and imported runs, with provenance."""

from __future__ import annotations

import json

import pytest

from annotation.models import Candidate, CandidateSource
from annotation.services.pooling import pool_build_builtin, pool_import_run
from tests.annotation.factories import make_chunks, make_query


@pytest.fixture
def corpus(personas):
    chunks = make_chunks(personas.project)
    queries = [
        make_query(personas.project, "install python"),
        make_query(personas.project, "pip package"),
    ]
    return personas.project, chunks, queries


def test_each_source_records_which_candidates_it_found_at_which_rank(corpus):
    project, chunks, queries = corpus
    bm25 = pool_build_builtin(project=project, kind="bm25", k=2)
    tfidf = pool_build_builtin(project=project, kind="tfidf", k=2)
    assert bm25.new_candidates >= 2
    assert tfidf.new_candidates + bm25.new_candidates == Candidate.objects.count()
    first = Candidate.objects.get(query=queries[0], chunk=chunks[0])  # "Installing Python"
    ranks = dict(first.sources.values_list("source__name", "rank"))
    assert ranks == {"bm25": 1, "tfidf": 1}
    for query in queries:
        for source in ("bm25", "tfidf"):
            found = CandidateSource.objects.filter(candidate__query=query, source__name=source)
            assert 1 <= found.count() <= 2


def test_pooling_twice_adds_nothing(corpus):
    project, _chunks, _queries = corpus
    pool_build_builtin(project=project, kind="bm25", k=3)
    before = (Candidate.objects.count(), CandidateSource.objects.count())
    again = pool_build_builtin(project=project, kind="bm25", k=3)
    assert again.new_candidates == 0
    assert (Candidate.objects.count(), CandidateSource.objects.count()) == before


def test_a_trec_run_of_the_production_retriever_joins_the_pool(corpus, tmp_path):
    project, chunks, queries = corpus
    pool_build_builtin(project=project, kind="bm25", k=1)
    run = tmp_path / "prod.run"
    run.write_text(
        f"{queries[0].pk} Q0 doc-4#0 1 3.0 prod\n"
        f"{queries[0].pk} Q0 doc-0#0 2 2.0 prod\n"
        f"{queries[0].pk} Q0 doc-3#0 3 1.0 prod\n"
        "999999 Q0 doc-1#0 1 1.0 prod\n"  # a query that was not sampled: skipped
    )
    result = pool_import_run(project=project, name="prod", path=run, k=2)
    assert result.new_candidates == 1  # doc-0 was already pooled by bm25; doc-3 is beyond k
    assert result.skipped == 1
    ranks = dict(
        CandidateSource.objects.filter(source__name="prod").values_list(
            "candidate__chunk_id", "rank"
        )
    )
    assert ranks == {chunks[4].pk: 1, chunks[0].pk: 2}


def test_a_jsonl_run_joins_the_pool(corpus, tmp_path):
    project, chunks, queries = corpus
    run = tmp_path / "prod.jsonl"
    line = {"query_id": str(queries[1].pk), "results": [{"id": "doc-2#0", "score": 1.0}]}
    run.write_text(json.dumps(line) + "\n")
    result = pool_import_run(project=project, name="prod-jsonl", path=run, k=5)
    assert result.new_candidates == 1
    assert Candidate.objects.filter(query=queries[1], chunk=chunks[2]).exists()


def test_a_malformed_run_is_refused_with_its_file_and_line(corpus, tmp_path):
    project, _chunks, queries = corpus
    run = tmp_path / "bad.run"
    run.write_text(f"{queries[0].pk} Q0 doc-0#0 1 1.0 prod\n{queries[0].pk} Q0 doc-1#0 x\n")
    with pytest.raises(ValueError, match=r"bad\.run:2:"):
        pool_import_run(project=project, name="prod", path=run, k=5)
    assert not Candidate.objects.exists()
