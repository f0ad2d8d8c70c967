"""Reads of the corpus: figures and full-text search.

Search uses PostgreSQL full-text search (``websearch_to_tsquery``, English configuration, ranked
by ``ts_rank``; the GIN index of migration 0004 serves it). On SQLite it falls back to chunks
containing every word of the query (case-insensitive), in document order.
"""

from __future__ import annotations

import re

from django.db import connection
from django.db.models import Count, Q, QuerySet

from ..models import Chunk, CorpusImport, Project


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


def corpus_imports(*, project: Project) -> QuerySet[CorpusImport]:
    return CorpusImport.objects.filter(project=project).order_by("-created_at", "-id")


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
    if connection.vendor == "postgresql":
        from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector

        vector = SearchVector("text", config="english")
        query = SearchQuery(text, config="english", search_type="websearch")
        return list(
            base.annotate(matched=vector, rank=SearchRank(vector, query))
            .filter(matched=query)
            .order_by("-rank", "id")[:limit]
        )
    condition = Q()
    for word in words[:10]:
        condition &= Q(text__icontains=word)
    return list(base.filter(condition).order_by("document__doc_id", "position")[:limit])
