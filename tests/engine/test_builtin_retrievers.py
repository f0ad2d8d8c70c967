"""The built-in BM25 and TF-IDF retrievers: pure, ranked, top k."""

from __future__ import annotations

import subprocess
import sys

import pytest

from goldsmith.retrievers.builtin import build_retriever

CORPUS = [
    ("a", "The cat sat on the mat"),
    ("b", "Dogs chase cats in the garden"),
    ("c", "pip installs a python package"),
    ("d", "how to install python on windows"),
]


@pytest.mark.parametrize("name", ["bm25", "tfidf"])
def test_it_ranks_the_matching_documents_first(name):
    retriever = build_retriever(name, CORPUS)
    [install, cat, nothing] = retriever.search(["install python", "cat mat", "zebra"], k=3)
    assert install[0].id == "d"
    assert {h.id for h in install} == {"c", "d"} or install[1].id == "c"
    assert cat[0].id == "a"
    assert nothing == []
    scores = [h.score for h in install]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("name", ["bm25", "tfidf"])
def test_it_returns_at_most_k_hits(name):
    retriever = build_retriever(name, CORPUS)
    assert len(retriever.search(["the python cat dogs install"], k=2)[0]) == 2


def test_an_unknown_retriever_is_refused():
    with pytest.raises(ValueError, match="bm25, tfidf"):
        build_retriever("dense", CORPUS)


def test_it_imports_no_django():
    code = "import sys, goldsmith.retrievers.builtin; sys.exit('django' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
