"""Built-in lexical retrievers over an in-memory corpus: BM25 (bm25s) and TF-IDF (scikit-learn).

Pure: no Django import. Pooling uses them to find candidates; evaluation reuses them as
baselines. Both take a list of (id, text) and answer ``search(queries, k)`` with, per query,
the ids of the best k documents and their scores, best first. Documents that share no term
with the query (score 0) are left out, so a list can be shorter than k.

Ties in score are broken as trec_eval breaks them (``comp_sim_docno``: score descending, then
document id descending, compared bytewise on UTF-8 like ``strcmp``), both inside the list and
at the cut: when the k-th and the (k+1)-th scores are equal, the larger ids make the cut. A
saved run therefore ranks the same in Goldsmith (which keeps the returned order) and in
trec_eval (which re-sorts by score). Scores are the float32 values the index computes.

Both take the project's tokenizer by name (`goldsmith.intake.tokenizers`). ``default`` is the
behaviour they always had: words of two or more word characters, lower-cased, English stop words
(scikit-learn's list for TF-IDF, bm25s' for BM25). ``zh-words`` and ``zh-bigrams`` index the
tokenizer's terms (Chinese words or bigrams, other words whole, stop words of both languages
out), so that Chinese queries find Chinese chunks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from goldsmith.intake.tokenizers import DEFAULT, get_tokenizer

IntArray = NDArray[np.int64]
TOKEN_PATTERN = r"(?u)\b\w\w+\b"


@dataclass(frozen=True)
class Hit:
    id: str
    score: float


class Retriever(Protocol):
    name: str

    def search(self, queries: Sequence[str], k: int) -> list[list[Hit]]: ...


def descending_id_order(ids: Sequence[str]) -> IntArray:
    """``rank[i]``: the place of ``ids[i]`` when all ids are sorted descending bytewise on UTF-8
    (0 for the largest), i.e. trec_eval's order among equal scores."""
    keys = [doc_id.encode("utf-8") for doc_id in ids]
    rank = np.empty(len(keys), dtype=np.int64)
    rank[sorted(range(len(keys)), key=keys.__getitem__, reverse=True)] = np.arange(len(keys))
    return rank


def _top_k(scores: np.ndarray, ids: Sequence[str], id_rank: IntArray, k: int) -> list[Hit]:
    """The k best positive scores of one row, best first; ties by id, descending (trec_eval),
    also when the tie straddles the cut at k. ``id_rank`` is :func:`descending_id_order`."""
    if k <= 0 or scores.size == 0:
        return []
    rows = np.flatnonzero(scores > 0)
    if rows.size > k:
        values = scores[rows]
        kth = np.partition(values, rows.size - k)[rows.size - k]  # the k-th largest score
        above = rows[values > kth]
        tied = rows[values == kth]
        # Of the documents tied at the cut, those trec_eval ranks first (larger ids) make it.
        tied = tied[np.argsort(id_rank[tied], kind="stable")[: k - above.size]]
        rows = np.concatenate([above, tied])
    order = np.lexsort((id_rank[rows], -scores[rows]))
    return [Hit(id=ids[i], score=float(scores[i])) for i in rows[order]]


class TfidfRetriever:
    """Cosine similarity of sublinear TF-IDF vectors (l2-normalised, stop words out)."""

    name = "tfidf"

    def __init__(self, corpus: Sequence[tuple[str, str]], *, tokenizer: str = DEFAULT) -> None:
        self.ids = [doc_id for doc_id, _ in corpus]
        self.id_rank = descending_id_order(self.ids)
        # Imported on use: scikit-learn costs over a second at every Django start otherwise.
        from sklearn.feature_extraction.text import TfidfVectorizer

        if tokenizer == DEFAULT:
            self.vectorizer = TfidfVectorizer(
                lowercase=True,
                token_pattern=TOKEN_PATTERN,
                stop_words="english",
                sublinear_tf=True,
                dtype=np.float32,
            )
        else:
            self.vectorizer = TfidfVectorizer(
                analyzer=get_tokenizer(tokenizer).terms, sublinear_tf=True, dtype=np.float32
            )
        texts = [text for _, text in corpus]
        try:
            self.matrix = self.vectorizer.fit_transform(texts).tocsr()
        except ValueError:  # empty vocabulary: nothing can match
            self.matrix = None

    def search(self, queries: Sequence[str], k: int) -> list[list[Hit]]:
        if self.matrix is None or not self.ids:
            return [[] for _ in queries]
        results: list[list[Hit]] = []
        batch = 512
        for start in range(0, len(queries), batch):
            q = self.vectorizer.transform(list(queries[start : start + batch]))
            scores = (q @ self.matrix.T).toarray()
            results.extend(_top_k(row, self.ids, self.id_rank, k) for row in scores)
        return results


class Bm25Retriever:
    """Okapi BM25 (k1=1.5, b=0.75, Lucene idf) via bm25s, stop words out, no stemming."""

    name = "bm25"

    def __init__(self, corpus: Sequence[tuple[str, str]], *, tokenizer: str = DEFAULT) -> None:
        import bm25s

        self._bm25s = bm25s
        self.ids = [doc_id for doc_id, _ in corpus]
        self.id_rank = descending_id_order(self.ids)
        texts = [text for _, text in corpus]
        self.model = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
        if tokenizer == DEFAULT:
            self._terms = None
            tokens = bm25s.tokenize(
                texts, token_pattern=TOKEN_PATTERN, stopwords="en", show_progress=False
            )
        else:
            self._terms = get_tokenizer(tokenizer).terms
            tokens = _bm25s_tokens(bm25s, [self._terms(text) for text in texts])
        self.vocab = tokens.vocab
        if self.vocab:  # else (stop words only) nothing can match, and bm25s cannot index it
            self.model.index(tokens, show_progress=False)

    def search(self, queries: Sequence[str], k: int) -> list[list[Hit]]:
        if not self.vocab or k <= 0:
            return [[] for _ in queries]
        results: list[list[Hit]] = []
        for text in queries:
            if self._terms is None:
                tokens = self._bm25s.tokenize(
                    [text],
                    token_pattern=TOKEN_PATTERN,
                    stopwords="en",
                    show_progress=False,
                    return_ids=False,
                )[0]
            else:
                tokens = self._terms(text)
            known = [t for t in tokens if t in self.vocab]
            if not known:
                results.append([])
                continue
            scores = self.model.get_scores(known)
            results.append(_top_k(np.asarray(scores), self.ids, self.id_rank, k))
        return results


def _bm25s_tokens(bm25s: Any, documents: list[list[str]]) -> Any:
    """Term lists as bm25s' own tokenizer returns them: ids per document, and the vocabulary."""
    vocab: dict[str, int] = {}
    number = vocab.setdefault
    ids = [[number(term, len(vocab)) for term in doc] for doc in documents]
    return bm25s.tokenization.Tokenized(ids=ids, vocab=vocab)


BUILTIN_RETRIEVERS: dict[str, type[TfidfRetriever] | type[Bm25Retriever]] = {
    "bm25": Bm25Retriever,
    "tfidf": TfidfRetriever,
}


def build_retriever(
    name: str, corpus: Sequence[tuple[str, str]], *, tokenizer: str = DEFAULT
) -> Retriever:
    """A built-in retriever by name ("bm25" or "tfidf") indexed over `corpus`, cutting text
    with the tokenizer called `tokenizer` (`goldsmith.intake.tokenizers`)."""
    try:
        cls = BUILTIN_RETRIEVERS[name]
    except KeyError:
        known = ", ".join(sorted(BUILTIN_RETRIEVERS))
        raise ValueError(f"unknown built-in retriever {name!r}; use one of {known}") from None
    get_tokenizer(tokenizer)  # an unknown tokenizer is refused before any indexing
    return cls(corpus, tokenizer=tokenizer)
