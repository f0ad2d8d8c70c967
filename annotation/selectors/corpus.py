"""Reads of the corpus: figures and full-text search.

Search uses PostgreSQL full-text search (``websearch_to_tsquery``, English configuration, ranked
by ``ts_rank``) over the chunks' search vectors (``annotation_chunksearch``, GIN-indexed; see
`annotation.services.search`). While the project has chunks without a vector yet (its search
backlog, right after an import), those are searched too, by computing their vectors on the
fly, so a search never misses a chunk. On SQLite it falls back to chunks containing every word
of the query (case-insensitive), in document order.

A Chinese project (tokenizer ``zh-words`` or ``zh-bigrams``) is searched for the words its
tokenizer finds in the query (`goldsmith.intake.tokenizers.search_terms`), every one of which
a chunk must hold: on PostgreSQL as phrases of character bigrams over its bigram vectors,
ranked by ``ts_rank``; on SQLite as substrings of its folded text (so 發票 finds 发票 and ＡＰＩ
finds API), in document order. Chunks not indexed yet are matched on their own text.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import connection
from django.db.models import Count, F, Q, QuerySet

from annotation.models import Chunk, CorpusImport, CorpusVersion, Project, SearchBacklog
from goldsmith.intake.tokenizers import SearchTerm, get_tokenizer, search_terms


def corpus_figures(*, project: Project) -> dict[str, int]:
    chunks = Chunk.objects.filter(project=project).aggregate(
        n_total=Count("id"),
        n_removed=Count("id", filter=Q(removed=True)),
        n_changed=Count("id", filter=Q(text_changed=True, removed=False)),
    )
    return {
        "documents": project.documents.count(),
        "chunks": chunks["n_total"] - chunks["n_removed"],
        "removed": chunks["n_removed"],
        "changed": chunks["n_changed"],
    }


def corpus_version_live(*, project: Project) -> CorpusVersion | None:
    """The project's newest corpus version (the live corpus), None when it has none."""
    return CorpusVersion.objects.filter(project=project).order_by("-number").first()


def corpus_imports(*, project: Project) -> QuerySet[CorpusImport]:
    return CorpusImport.objects.filter(project=project).order_by("-created_at", "-id")


_PREFIXABLE = re.compile(r"[a-z0-9]+").fullmatch  # safe inside to_tsquery's syntax


def chunk_search(
    *, project: Project, text: str, limit: int = 20, include_removed: bool = False
) -> list[Chunk]:
    """Chunks matching `text`, best first (see the module docstring)."""
    words = re.findall(r"\w+", text)
    if not words:
        return []
    base = Chunk.objects.filter(project=project).select_related("document")
    if not include_removed:
        base = base.filter(removed=False)
    if project.search_kind == "chinese":
        return _search_chinese(project, base, text, limit)
    if connection.vendor == "postgresql":
        return _search_postgresql(project, base, text, limit, include_removed)
    condition = Q()
    for word in words[:10]:
        condition &= Q(text__icontains=word)
    return list(base.filter(condition).order_by("document__doc_id", "position")[:limit])


def _tsquery(terms: list[SearchTerm]) -> Any:
    """The ``tsquery`` of a Chinese project's search (`annotation.services.search`): every
    term; a Han word as the phrase of its bigrams, a Han character or a word of letters and
    digits as a prefix (``iphone`` finds ``iphone15``), another word as PostgreSQL's parser
    cuts it (``get_user_id``: get <-> user <-> id)."""
    from django.contrib.postgres.search import SearchQuery

    query = None
    for term in terms:
        if term.han and len(term.text) > 1:
            bigrams = " ".join(term.text[i : i + 2] for i in range(len(term.text) - 1))
            part = SearchQuery(bigrams, config="simple", search_type="phrase")
        elif term.han or _PREFIXABLE(term.text):
            part = SearchQuery(f"{term.text}:*", config="simple", search_type="raw")
        else:
            part = SearchQuery(term.text, config="simple", search_type="phrase")
        query = part if query is None else query & part
    return query


def _search_chinese(project: Project, base: QuerySet[Chunk], text: str, limit: int) -> list[Chunk]:
    """A Chinese project: every search term must be in the chunk. PostgreSQL ranks the
    indexed chunks by ``ts_rank``; SQLite matches the folded text by substring, in document
    order. Chunks not indexed yet are matched on their own text, after the others."""
    terms = search_terms(get_tokenizer(project.tokenizer), text)[:10]
    if not terms:
        return []
    hits: list[Chunk]
    if connection.vendor == "postgresql":
        from django.contrib.postgres.search import SearchRank

        query = _tsquery(terms)
        hits = list(
            base.filter(search__vector=query)
            .annotate(rank=SearchRank(F("search__vector"), query))
            .order_by("-rank", "id")[:limit]
        )
    else:
        folded = Q()
        for term in terms:
            folded &= Q(search__text__contains=term.text)
        hits = list(base.filter(folded).order_by("document__doc_id", "position")[:limit])
    if len(hits) < limit:
        raw = Q()
        for term in terms:
            raw &= Q(text__icontains=term.text)
        hits += list(
            base.filter(raw, search__isnull=True).order_by("document__doc_id", "position")[
                : limit - len(hits)
            ]
        )
    return hits


_PENDING_SQL = """
WITH pending AS MATERIALIZED (
    SELECT c.id FROM annotation_chunk c
    WHERE c.project_id = %s AND NOT EXISTS (
        SELECT 1 FROM annotation_chunksearch s WHERE s.chunk_id = c.id)
)
SELECT c.id, ts_rank(to_tsvector('english'::regconfig, c.text), q.q) AS rank
FROM pending p
JOIN annotation_chunk c ON c.id = p.id
CROSS JOIN websearch_to_tsquery('english'::regconfig, %s) AS q(q)
WHERE to_tsvector('english'::regconfig, c.text) @@ q.q {removed}
ORDER BY rank DESC, c.id
LIMIT %s
"""


def _search_postgresql(
    project: Project, base: QuerySet[Chunk], text: str, limit: int, include_removed: bool
) -> list[Chunk]:
    from django.contrib.postgres.search import SearchQuery, SearchRank

    query = SearchQuery(text, config="english", search_type="websearch")
    ranks: dict[int, float] = {}
    if SearchBacklog.objects.filter(project=project).exists():
        # Chunks without a vector yet, first (a chunk indexed meanwhile is then found by the
        # indexed search below); MATERIALIZED so that only their vectors are computed.
        with connection.cursor() as cursor:
            removed = "" if include_removed else "AND NOT c.removed"
            cursor.execute(_PENDING_SQL.format(removed=removed), [project.pk, text, limit])
            ranks = dict(cursor.fetchall())
    hits = list(
        base.filter(search__vector=query)
        .annotate(rank=SearchRank(F("search__vector"), query))
        .order_by("-rank", "id")[:limit]
    )
    found = {chunk.pk for chunk in hits}
    pending = [pk for pk in ranks if pk not in found]
    if pending:
        more = list(base.filter(pk__in=pending))
        for chunk in more:
            chunk.rank = ranks[chunk.pk]
        hits = sorted(hits + more, key=lambda c: (-c.rank, c.pk))[:limit]
    return hits
