"""Adding hits (query, chunk, rank) of a source to the pools: the one write every way of
pooling goes through (built-in retrievers, imported runs, a refresh, a deeper pool). Apart from
annotation/services/pooling.py so that settling a query can deepen its pool without importing
the annotators' writes (annotation/services/depth.py).

A new (query, chunk) pair becomes a candidate; a pair already in the pool only records that one
more source found it. Queries that gained candidates go back into their annotators' queues and
back to the "open" review state.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation.models import Candidate, CandidateSource, Chunk, PoolSource, Project
from annotation.services.assignment import assignments_refresh


def shuffle_key(query_id: int, chunk_id: int) -> int:
    """A stable pseudo-random sort key (non-negative, fits a signed 64-bit column)."""
    digest = hashlib.sha256(f"goldsmith-pool:{query_id}:{chunk_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class PoolResult:
    source: str
    queries: int
    hits: int
    new_candidates: int
    queries_with_new_candidates: int
    reopened_queries: int  # finished queries that went back into their annotators' queues
    skipped: int = 0  # run rows naming a query or chunk the project does not hold


@transaction.atomic
def pool_add_hits(
    *,
    source: PoolSource,
    hits: Mapping[int, Sequence[int]],
    added_by: AbstractBaseUser | None = None,
    ranked: bool = True,
) -> PoolResult:
    """Add `hits` (query pk → chunk pks, best first) from `source` to the pools."""
    pairs = [(qid, cid) for qid, chunk_ids in hits.items() for cid in chunk_ids]
    query_ids = list(hits)
    existing: dict[tuple[int, int], int] = {}
    for start in range(0, len(query_ids), 1000):
        for cand_id, qid, cid in Candidate.objects.filter(
            query_id__in=query_ids[start : start + 1000]
        ).values_list("id", "query_id", "chunk_id"):
            existing[(qid, cid)] = cand_id
    new = [
        Candidate(query_id=qid, chunk_id=cid, shuffle_key=shuffle_key(qid, cid))
        for qid, cid in dict.fromkeys(pairs)
        if (qid, cid) not in existing
    ]
    Candidate.objects.bulk_create(new, batch_size=2000, ignore_conflicts=True)
    if new:
        new_query_ids = sorted({c.query_id for c in new})
        for start in range(0, len(new_query_ids), 1000):
            for cand_id, qid, cid in Candidate.objects.filter(
                query_id__in=new_query_ids[start : start + 1000]
            ).values_list("id", "query_id", "chunk_id"):
                existing[(qid, cid)] = cand_id
    links = []
    for qid, chunk_ids in hits.items():
        seen: set[int] = set()
        for rank, cid in enumerate(chunk_ids, start=1):
            if cid in seen:  # a duplicate id in a ranked list counts once (first occurrence)
                continue
            seen.add(cid)
            links.append(
                CandidateSource(
                    candidate_id=existing[(qid, cid)],
                    source=source,
                    rank=rank if ranked else None,
                    added_by=added_by,
                )
            )
    CandidateSource.objects.bulk_create(links, batch_size=2000, ignore_conflicts=True)
    grown = sorted({c.query_id for c in new})
    reopened = assignments_refresh(query_ids=grown) if grown else set()
    return PoolResult(
        source=source.name,
        queries=len(hits),
        hits=len(links),
        new_candidates=len(new),
        queries_with_new_candidates=len(grown),
        reopened_queries=len(reopened),
    )


def _corpus(project: Project) -> tuple[list[tuple[str, str]], dict[str, int]]:
    """The project's chunks as (chunk id, title and text), as the evaluation's built-in
    retrievers index them, and each chunk id's primary key. Keyed by the chunk id, not the
    primary key, so that ties in score are broken by the same ids (trec_eval's rule) and a
    pool's top k is the built-in retriever's top k in an evaluation run."""
    rows = (
        Chunk.objects.filter(project=project, removed=False)
        .order_by("id")
        .values_list("id", "chunk_id", "document__title", "text")
    )
    corpus: list[tuple[str, str]] = []
    pks: dict[str, int] = {}
    for pk, chunk_id, title, text in rows:
        corpus.append((chunk_id, f"{title}\n{text}" if title else text))
        pks[chunk_id] = pk
    return corpus, pks
