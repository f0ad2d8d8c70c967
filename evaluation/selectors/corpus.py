"""Reads of the corpus a run scores against: chunk places, live chunks, texts, its state."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from annotation.models import Chunk, Project
from goldsmith.corpus import LiveChunk, corpus_hash
from goldsmith.reporting import ChunkPlace

LOOKUP_BATCH = 900  # SQLite allows 999 parameters per statement


def chunk_values(
    *, project: Project, chunk_ids: Iterable[str], fields: Sequence[str], **where: Any
) -> Iterator[tuple[Any, ...]]:
    """``(chunk_id, *fields)`` of the project's chunks among `chunk_ids` (and `where`), read
    LOOKUP_BATCH ids at a time."""
    wanted = sorted(set(chunk_ids))
    for start in range(0, len(wanted), LOOKUP_BATCH):
        part = wanted[start : start + LOOKUP_BATCH]
        yield from Chunk.objects.filter(project=project, chunk_id__in=part, **where).values_list(
            "chunk_id", *fields
        )


def chunk_places(*, project: Project, chunk_ids: Iterable[str]) -> dict[str, ChunkPlace]:
    fields = ("document__doc_id", "start", "end")
    rows = chunk_values(project=project, chunk_ids=chunk_ids, fields=fields)
    return {cid: ChunkPlace(doc, s, e) for cid, doc, s, e in rows}


def live_chunks(
    *, project: Project, chunk_ids: Iterable[str], graded: Mapping[str, str] | None = None
) -> dict[str, LiveChunk]:
    """The live (not removed) chunks among ``chunk_ids``, with their text sha256, and their text
    where it differs from the graded text's sha256 in ``graded`` (chunk id → sha256), so that
    a change of white space only is seen as such."""
    graded = graded or {}
    rows = chunk_values(project=project, chunk_ids=chunk_ids, fields=["text_sha256"], removed=False)
    out = {cid: LiveChunk(sha) for cid, sha in rows}
    # Texts only where the graded text differs (the rest are kept as they are).
    differ = [c for c, live in out.items() if c in graded and graded[c] != live.text_sha256]
    for cid, text in chunk_values(project=project, chunk_ids=differ, fields=["text"]):
        out[cid] = LiveChunk(out[cid].text_sha256, text)
    return out


def chunk_texts(*, project: Project, chunk_ids: Sequence[str]) -> dict[str, str]:
    return dict(chunk_values(project=project, chunk_ids=chunk_ids, fields=["text"]))


def corpus_state(*, project: Project) -> tuple[str, int]:
    """The live corpus's content hash (`goldsmith.corpus.corpus_hash`: the one a corpus
    version and a frozen version record, so a run's hash equals its corpus version's) and its
    number of live chunks."""
    pairs = list(
        Chunk.objects.filter(project=project, removed=False).values_list("chunk_id", "text_sha256")
    )
    return corpus_hash(pairs), len(pairs)
