"""Reads of the corpus: figures, full-text search, corpus versions and their diffs.

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

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet

from annotation.models import (
    Candidate,
    Chunk,
    CorpusChange,
    CorpusImport,
    CorpusVersion,
    GoldenItem,
    GoldenJudgment,
    Judgment,
    Project,
    Resolution,
    SearchBacklog,
)
from annotation.models.goldsets import VersionOrigin
from goldsmith.corpus import corpus_hash
from goldsmith.intake.tokenizers import (
    SearchTerm,
    get_tokenizer,
    search_fold,
    search_folded_characters,
    search_terms,
)


def corpus_figures(*, project: Project) -> dict[str, object]:
    chunks = Chunk.objects.filter(project=project).aggregate(
        n_total=Count("id"),
        n_removed=Count("id", filter=Q(removed=True)),
        n_changed=Count("id", filter=Q(text_changed=True, removed=False)),
    )
    live = chunks["n_total"] - chunks["n_removed"]
    return {
        "documents": project.documents.count(),
        "chunks": live,
        "removed": chunks["n_removed"],
        "changed": chunks["n_changed"],
        "search_index": search_index_state(project=project, chunks=live),
    }


def search_index_state(*, project: Project, chunks: int | None = None) -> dict[str, object]:
    """How far the corpus's search index is: ``state`` "ready" (every live chunk indexed),
    "building" (``indexed`` of ``chunks``: an import's index is built after it is done, by a
    worker; a search meanwhile finds every chunk all the same, more slowly) or "none" (an
    English project on SQLite has no index: its searches read the chunks' text)."""
    if chunks is None:
        chunks = Chunk.objects.filter(project=project, removed=False).count()
    if project.search_kind == "english" and connection.vendor != "postgresql":
        return {"state": "none", "indexed": 0, "chunks": chunks}
    waiting = Chunk.objects.filter(project=project, removed=False, search__isnull=True).count()
    return {
        "state": "building" if waiting else "ready",
        "indexed": chunks - waiting,
        "chunks": chunks,
    }


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
        hits += _not_indexed_yet(base, terms, limit - len(hits))
    return hits


def _not_indexed_yet(base: QuerySet[Chunk], terms: list[SearchTerm], limit: int) -> list[Chunk]:
    """The chunks without a search row yet (an import's index is built after it) that hold
    every term, as the index will hold them: a chunk whose text `search_fold` leaves as it is
    (lower-cased) is matched on its text by the database; one with a character the fold
    changes (traditional, full-width, combining) is folded here first. So a search during an
    index build finds every chunk it finds after, only more slowly."""
    pending = base.filter(search__isnull=True)
    raw = Q()
    for term in terms:
        raw &= Q(text__icontains=term.text)
    found = list(pending.filter(raw).order_by("document__doc_id", "position")[:limit])
    if len(found) < limit:
        seen = {chunk.pk for chunk in found}
        to_fold = pending.filter(text__regex=search_folded_characters()).order_by(
            "document__doc_id", "position"
        )
        for chunk in to_fold.iterator(chunk_size=2000):
            if chunk.pk not in seen and all(t.text in search_fold(chunk.text) for t in terms):
                found.append(chunk)
        found.sort(key=lambda c: (c.document.doc_id, c.position))
    return found[:limit]


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


# --------------------------------------------------------------------------------------------
# Corpus versions


def corpus_version_live(*, project: Project) -> CorpusVersion | None:
    """The project's newest corpus version (the corpus as it is now), None before any."""
    return CorpusVersion.objects.filter(project=project).order_by("-number").first()


def corpus_versions(*, project: Project) -> QuerySet[CorpusVersion]:
    """Every corpus version of the project, newest first, with who made it."""
    return (
        CorpusVersion.objects.filter(project=project)
        .select_related("created_by", "corpus_import")
        .order_by("-number")
    )


def corpus_version_get(*, project: Project, number: int) -> CorpusVersion:
    """One version by its number (raises CorpusVersion.DoesNotExist)."""
    return CorpusVersion.objects.get(project=project, number=number)


def live_corpus_hash(*, project: Project) -> str:
    """`goldsmith.corpus.corpus_hash` of the project's live chunks as stored now."""
    return corpus_hash(
        Chunk.objects.filter(project=project, removed=False)
        .values_list("chunk_id", "text_sha256")
        .iterator(chunk_size=5000)
    )


_IN_BATCH = 2000


def _batches(items: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), _IN_BATCH):
        yield items[start : start + _IN_BATCH]


def frozen_query_pks(*, project: Project) -> set[int]:
    """The queries of the project that a frozen version holds (by the freeze's query id)."""
    ids = (
        GoldenItem.objects.filter(version__project=project, version__origin=VersionOrigin.FROZEN)
        .values_list("query_id", flat=True)
        .distinct()
    )
    return {int(q) for q in ids if q.isdigit()}


@dataclass(frozen=True)
class Citations:
    """Which of some chunks are cited: by a frozen version (a golden judgment of the chunk id),
    or by open work (a judgment or final grade of a query no frozen version holds yet)."""

    frozen: frozenset[str]
    open: frozenset[str]


def chunks_cited(*, project: Project, chunks: Sequence[tuple[int, str]]) -> Citations:
    """The citations of `chunks` ((primary key, chunk id) pairs) in the project."""
    if not chunks:
        return Citations(frozenset(), frozenset())
    frozen: set[str] = set()
    for ids in _batches([cid for _pk, cid in chunks]):
        frozen.update(
            GoldenJudgment.objects.filter(item__version__project=project, chunk_id__in=ids)
            .values_list("chunk_id", flat=True)
            .distinct()
        )
    done = frozen_query_pks(project=project)
    by_pk = dict(chunks)
    graded = Exists(Judgment.objects.filter(candidate=OuterRef("pk"))) | Exists(
        Resolution.objects.filter(candidate=OuterRef("pk"))
    )
    open_: set[str] = set()
    for pks in _batches([pk for pk, _cid in chunks]):
        for chunk_pk, query_pk in (
            Candidate.objects.filter(chunk_id__in=pks)
            .filter(graded)
            .values_list("chunk_id", "query_id")
        ):
            if query_pk not in done:
                open_.add(by_pk[chunk_pk])
    return Citations(frozenset(frozen), frozenset(open_))


@dataclass(frozen=True)
class CitedBy:
    """A golden query citing a chunk: its version's label and its query id."""

    label: str
    query_id: str


@dataclass(frozen=True)
class DiffChunk:
    chunk_id: str
    kind: str  # added, changed, retired
    old_sha256: str
    new_sha256: str
    cited_by: tuple[CitedBy, ...]


@dataclass(frozen=True)
class CorpusDiff:
    """What changed between two corpus versions: the net change of every chunk touched by the
    versions after `old` up to `new` (a chunk changed and changed back is not listed)."""

    old: CorpusVersion
    new: CorpusVersion
    chunks: tuple[DiffChunk, ...]

    def of(self, kind: str) -> list[DiffChunk]:
        return [c for c in self.chunks if c.kind == kind]

    @property
    def counts(self) -> dict[str, int]:
        return {kind: len(self.of(kind)) for kind in ("added", "changed", "retired")}


def corpus_version_diff(*, project: Project, old: int, new: int) -> CorpusDiff:
    """The diff of versions `old` and `new` (in either order: the lower one is the start).

    Read from the change rows of the versions in between: a chunk is live at the start unless
    its first change is an addition, and live at the end unless its last change is a
    retirement; its text at the start is the first change's old hash, at the end the last
    one's new hash. Each listed chunk comes with the frozen versions and queries citing it.
    Raises CorpusVersion.DoesNotExist for a number the project lacks."""
    low, high = sorted((old, new))
    start = corpus_version_get(project=project, number=low)
    end = corpus_version_get(project=project, number=high)
    first: dict[int, tuple[str, str]] = {}  # chunk pk -> (kind, old sha) of its first change
    last: dict[int, tuple[str, str]] = {}  # chunk pk -> (kind, new sha) of its last change
    for chunk_pk, kind, old_sha, new_sha in (
        CorpusChange.objects.filter(
            version__project=project, version__number__gt=low, version__number__lte=high
        )
        .order_by("version__number")
        .values_list("chunk_id", "kind", "old_sha256", "new_sha256")
        .iterator(chunk_size=5000)
    ):
        first.setdefault(chunk_pk, (kind, old_sha))
        last[chunk_pk] = (kind, new_sha)
    ids = dict(
        itertools.chain.from_iterable(
            Chunk.objects.filter(pk__in=pks).values_list("pk", "chunk_id")
            for pks in _batches(list(first))
        )
    )
    net: list[tuple[str, str, str, str]] = []
    for pk, (first_kind, old_sha) in first.items():
        last_kind, new_sha = last[pk]
        live_before = first_kind != "added"
        live_after = last_kind != "retired"
        if live_before and live_after:
            if old_sha == new_sha:
                continue
            kind = "changed"
        elif live_after:
            kind, old_sha = "added", ""
        elif live_before:
            kind, new_sha = "retired", ""
        else:
            continue
        net.append((ids[pk], kind, old_sha, new_sha))
    net.sort()
    citing: dict[str, list[CitedBy]] = {}
    for batch in _batches([row[0] for row in net]):
        for chunk_id, label, query_id in (
            GoldenJudgment.objects.filter(item__version__project=project, chunk_id__in=batch)
            .order_by("item__version__created_at", "item__version_id", "item__query_id")
            .values_list("chunk_id", "item__version__label", "item__query_id")
        ):
            citing.setdefault(chunk_id, []).append(CitedBy(label, query_id))
    return CorpusDiff(
        old=start,
        new=end,
        chunks=tuple(
            DiffChunk(cid, kind, o, n, tuple(citing.get(cid, ()))) for cid, kind, o, n in net
        ),
    )
