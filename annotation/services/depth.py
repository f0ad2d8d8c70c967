"""Adaptive pool depth (issue 22 §2): where a source still yields relevant chunks at the depth
its pool stops for a query, that query's pool is deepened, from the source's top k to its top
2k, and the new candidates go to the same annotators.

Blind: the rule reads final grades (Resolution) of the query just resolved, never one
annotator's grades of an unresolved query, so deepening tells no annotator what another graded.
Only built-in sources (BM25, TF-IDF) can be asked for more; an imported run holds only the
ranks it was pooled with. On where the lead allows stopping (`Project.stopping_allowed`): the
two go together, judging less where the estimate allows it and deeper where sources still yield.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max

from annotation.models import CandidateSource, PoolSource, Query, Resolution
from annotation.models.judging import SourceKind
from annotation.models.stopping import PoolDeepening
from annotation.services.pool_hits import _corpus, pool_add_hits

MAX_DEPTH = 200  # never deeper than this, however relevant the last ranks stay
RELEVANT_FROM = 1  # partly relevant counts: the source still yields gain there


@dataclass(frozen=True)
class Deepened:
    source: str
    from_k: int
    to_k: int
    relevant_at: int
    new_candidates: int


def last_ranks(depth: int) -> int:
    """The first rank of the last quarter of a depth (at least the deepest rank itself): a
    relevant chunk at or below it means the source may hold more past the depth."""
    return depth - -(-depth // 4) + 1  # the last ⌈depth / 4⌉ ranks


@transaction.atomic
def pool_deepen_where_yielding(*, query_id: int) -> list[Deepened]:
    """In a project that allows stopping, deepen the query's pool for every built-in source
    whose last ranks (the last quarter of its depth on this query) hold a chunk whose final
    grade is ≥ 1, doubling that depth (at most :data:`MAX_DEPTH`), once per depth. Returns
    what was deepened (empty: nothing)."""
    query = Query.objects.select_related("project").get(pk=query_id)
    done: list[Deepened] = []
    if not query.project.stopping_allowed:
        # Off with stopping (the lead's one switch for judging less): a project that grades
        # every candidate keeps the pools it built, and its figures do not move.
        return done
    graded = dict(
        Resolution.objects.filter(candidate__query_id=query_id).values_list("candidate_id", "grade")
    )
    if not any(g >= RELEVANT_FROM for g in graded.values()):
        return done
    corpus = None
    for source in PoolSource.objects.filter(
        project=query.project, kind__in=[SourceKind.BM25, SourceKind.TFIDF]
    ).order_by("name"):
        hits = list(
            CandidateSource.objects.filter(
                candidate__query_id=query_id, source=source, rank__isnull=False
            ).values_list("candidate_id", "rank")
        )
        if not hits:
            continue
        depth = max(
            source.k,
            PoolDeepening.objects.filter(query_id=query_id, source=source).aggregate(d=Max("to_k"))[
                "d"
            ]
            or 0,
        )
        if len(hits) < depth or depth >= MAX_DEPTH:
            continue  # the source returned fewer than its depth: nothing lies deeper
        relevant = [r for c, r in hits if graded.get(c, -1) >= RELEVANT_FROM]
        if not relevant or max(relevant) < last_ranks(depth):
            continue
        to_k = min(2 * depth, MAX_DEPTH)
        if corpus is None:
            from goldsmith.retrievers.builtin import build_retriever

            corpus, pks = _corpus(query.project)
        retriever = build_retriever(source.kind, corpus, tokenizer=query.project.tokenizer)
        ranked = retriever.search([query.text], to_k)[0]
        result = pool_add_hits(source=source, hits={query_id: [pks[h.id] for h in ranked]})
        PoolDeepening.objects.create(
            query=query,
            source=source,
            from_k=depth,
            to_k=to_k,
            relevant_at=max(relevant),
            new_candidates=result.new_candidates,
        )
        done.append(Deepened(source.name, depth, to_k, max(relevant), result.new_candidates))
    return done
