"""How a batch asks each kind of retriever for its ranked lists.

Every executor turns (query id, query text) pairs into :class:`Outcome` lists, yielded in
small groups so that the batch can save them, renew its lease and notice a cancellation.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from annotation.models import Chunk, Project
from evaluation import credentials
from evaluation.models import Answerer, EvaluationRun, Retriever, RetrieverKind, RunFileRow
from evaluation.selectors.corpus import chunk_texts
from evaluation.services.endpoints import auth_header, ssrf_policy
from evaluation.services.settings import run_settings
from goldsmith.answers.extractive import extractive_answer
from goldsmith.answers.model import Context
from goldsmith.retrievers.builtin import Retriever as BuiltinRetriever
from goldsmith.retrievers.builtin import build_retriever
from goldsmith.retrievers.http import Hit, HttpRetrieverClient, HttpRetrieverConfig, Outcome, Stages

Items = Sequence[tuple[str, str]]
_INDEXES: dict[tuple[int, str, str, str], tuple[BuiltinRetriever, dict[str, str]]] = {}
_INDEX_LOCK = threading.Lock()
_GROUP = 25


def http_config(retriever: Retriever) -> HttpRetrieverConfig:
    known = set(HttpRetrieverConfig.__dataclass_fields__)
    return HttpRetrieverConfig(**{k: v for k, v in retriever.config.items() if k in known})


def lane_concurrency(run: EvaluationRun, retriever: Retriever) -> int:
    """Each of the run's lanes gets an equal share of the retriever's maximum concurrency, so
    that the retriever never sees more than that many requests from one run at a time."""
    total = int(retriever.config.get("max_concurrency", 4))
    return max(1, total // max(1, run.lanes))


def stream_outcomes(
    *, run: EvaluationRun, retriever: Retriever, items: Items, tick: float = 1.0
) -> Iterator[list[Outcome]]:
    if retriever.kind == RetrieverKind.HTTP:
        stream = _stream_http(run, retriever, items, tick)
    elif retriever.kind == RetrieverKind.RUNFILE:
        stream = _stream_runfile(run, items)
    else:
        stream = _stream_builtin(run, retriever, items)
    answerer = (run.retriever_snapshot or {}).get("answerer", retriever.answerer)
    if answerer != Answerer.EXTRACTIVE:
        yield from stream
        return
    texts = dict(items)
    try:
        for outcomes in stream:
            yield _answer_extractively(run, texts, outcomes)
    finally:
        stream.close()


def _answer_extractively(
    run: EvaluationRun, texts: dict[str, str], outcomes: list[Outcome]
) -> list[Outcome]:
    """Each answered outcome without a response gets the extractive baseline's answer over its
    contexts: the given ones, else the top K of its list (K: the run's headline K) with their
    texts (the retriever's, else the corpus's). Those top K are stored as its contexts."""
    k = run_settings(run).headline_k
    wanted = {
        h.id
        for o in outcomes
        if not o.error and o.stages.response is None and o.stages.contexts is None
        for h in o.hits[:k]
        if h.text is None
    }
    corpus = chunk_texts(project=run.project, chunk_ids=sorted(wanted)) if wanted else {}
    out: list[Outcome] = []
    for o in outcomes:
        if o.error or o.stages.response is not None or o.query_id not in texts:
            out.append(o)
            continue
        contexts = o.stages.contexts
        if contexts is None:
            contexts = tuple((h.id, h.text or corpus.get(h.id, "")) for h in o.hits[:k])
        answer = extractive_answer(texts[o.query_id], [Context(i, t) for i, t in contexts], top=3)
        stages = Stages(o.stages.candidates, contexts, answer)
        out.append(Outcome(o.query_id, o.hits, o.latency_ms, o.attempts, o.error, stages))
    return out


def _stream_http(
    run: EvaluationRun, retriever: Retriever, items: Items, tick: float
) -> Iterator[list[Outcome]]:
    try:
        header = auth_header(retriever)
    except credentials.SecretUnavailable as error:
        yield [Outcome(qid, error=str(error)) for qid, _ in items]
        return
    client = HttpRetrieverClient(
        http_config(retriever),
        policy=ssrf_policy(),
        auth_header=header,
        concurrency=lane_concurrency(run, retriever),
    )
    with client:
        stream = client.stream(items, run.depth, tick=tick)
        try:
            yield from stream
        finally:
            stream.close()


def _stream_runfile(run: EvaluationRun, items: Items) -> Iterator[list[Outcome]]:
    run_file_id = run.retriever_snapshot.get("run_file_id")
    wanted = [qid for qid, _ in items]
    rows: dict[str, tuple[Any, ...]] = {}
    fields = ("query_id", "ids", "scores", "candidates", "candidate_scores", "contexts", "response")
    for start in range(0, len(wanted), 900):
        for qid, *row in RunFileRow.objects.filter(
            run_file_id=run_file_id, query_id__in=wanted[start : start + 900]
        ).values_list(*fields):
            rows[qid] = tuple(row)
    out: list[Outcome] = []
    for qid in wanted:
        if qid not in rows:
            out.append(Outcome(qid, attempts=1, error="not in the run file"))
            continue
        ids, scores, cand_ids, cand_scores, contexts, response = rows[qid]
        hits = tuple(
            Hit(id=str(i), score=s)
            for i, s in zip(ids[: run.depth], scores[: run.depth], strict=False)
        )
        stages = Stages(
            candidates=None
            if cand_ids is None
            else tuple(
                Hit(id=str(i), score=s)
                for i, s in zip(cand_ids, cand_scores or [None] * len(cand_ids), strict=False)
            ),
            contexts=None if contexts is None else tuple((c["id"], c["text"]) for c in contexts),
            response=response,
        )
        out.append(Outcome(qid, hits, None, 1, stages=stages))
    yield out


def _builtin_index(run: EvaluationRun, kind: str) -> tuple[BuiltinRetriever, dict[str, str]]:
    """The built-in index of the project's corpus, its texts cut by the run's tokenizer (the
    project's when the run was made), built once per worker process, corpus and tokenizer."""
    tokenizer = run.tokenizer or Project.objects.values_list("tokenizer", flat=True).get(
        pk=run.project_id
    )
    key = (run.project_id, kind, run.corpus_hash, tokenizer)
    with _INDEX_LOCK:
        cached = _INDEXES.get(key)
        if cached is None:
            rows = (
                Chunk.objects.filter(project_id=run.project_id, removed=False)
                .order_by("id")
                .values_list("chunk_id", "document__title", "text", "document__doc_id")
            )
            corpus: list[tuple[str, str]] = []
            docs: dict[str, str] = {}
            for chunk_id, title, text, doc_id in rows.iterator(chunk_size=5000):
                corpus.append((chunk_id, f"{title}\n{text}" if title else text))
                docs[chunk_id] = doc_id
            cached = (build_retriever(kind, corpus, tokenizer=tokenizer), docs)
            _INDEXES.clear()  # one corpus at a time: indexes are large
            _INDEXES[key] = cached
    return cached


def _stream_builtin(
    run: EvaluationRun, retriever: Retriever, items: Items
) -> Iterator[list[Outcome]]:
    index, docs = _builtin_index(run, retriever.kind)
    for start in range(0, len(items), _GROUP):
        group = items[start : start + _GROUP]
        began = time.perf_counter()
        results = index.search([text for _, text in group], run.depth)
        per_query = (time.perf_counter() - began) * 1000.0 / max(len(group), 1)
        yield [
            Outcome(
                qid,
                tuple(Hit(id=h.id, score=h.score, doc_id=docs.get(h.id)) for h in hits),
                per_query,
                1,
            )
            for (qid, _), hits in zip(group, results, strict=True)
        ]
