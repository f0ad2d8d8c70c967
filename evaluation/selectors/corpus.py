"""Reads of the corpus a run scores against: chunk places, live chunks, texts, its state."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from annotation.models import Chunk, Project
from goldsmith.corpus import LiveChunk, corpus_hash
from goldsmith.reporting import ChunkPlace

LOOKUP_BATCH = 900  # SQLite allows 999 parameters per statement


def chunk_places(*, project: Project, chunk_ids: Iterable[str]) -> dict[str, ChunkPlace]:
    wanted = sorted(set(chunk_ids))
    out: dict[str, ChunkPlace] = {}
    for start in range(0, len(wanted), LOOKUP_BATCH):
        for cid, doc, s, e in Chunk.objects.filter(
            project=project, chunk_id__in=wanted[start : start + LOOKUP_BATCH]
        ).values_list("chunk_id", "document__doc_id", "start", "end"):
            out[cid] = ChunkPlace(doc, s, e)
    return out


def live_chunks(
    *, project: Project, chunk_ids: Iterable[str], graded: Mapping[str, str] | None = None
) -> dict[str, LiveChunk]:
    """The live (not removed) chunks among ``chunk_ids``, with their text sha256, and their text
    where it differs from the graded text's sha256 in ``graded`` (chunk id → sha256), so that
    a change of white space only is seen as such."""
    wanted = sorted(set(chunk_ids))
    graded = graded or {}
    out: dict[str, LiveChunk] = {}
    for start in range(0, len(wanted), LOOKUP_BATCH):
        part = wanted[start : start + LOOKUP_BATCH]
        for cid, sha in Chunk.objects.filter(
            project=project, removed=False, chunk_id__in=part
        ).values_list("chunk_id", "text_sha256"):
            out[cid] = LiveChunk(sha)
    # Texts only where the graded text differs (the rest are kept as they are).
    differ = sorted(c for c, live in out.items() if c in graded and graded[c] != live.text_sha256)
    for start in range(0, len(differ), LOOKUP_BATCH):
        for cid, text in Chunk.objects.filter(
            project=project, chunk_id__in=differ[start : start + LOOKUP_BATCH]
        ).values_list("chunk_id", "text"):
            out[cid] = LiveChunk(out[cid].text_sha256, text)
    return out


def chunk_texts(*, project: Project, chunk_ids: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for start in range(0, len(chunk_ids), LOOKUP_BATCH):
        out.update(
            Chunk.objects.filter(
                project=project, chunk_id__in=chunk_ids[start : start + LOOKUP_BATCH]
            ).values_list("chunk_id", "text")
        )
    return out


def corpus_state(*, project: Project) -> tuple[str, int]:
    """The live corpus's content hash (`goldsmith.corpus.corpus_hash`: the one a corpus
    version and a frozen version record, so a run's hash equals its corpus version's) and its
    number of live chunks."""
    pairs = list(
        Chunk.objects.filter(project=project, removed=False).values_list("chunk_id", "text_sha256")
    )
    return corpus_hash(pairs), len(pairs)
