"""Reads for refreshes: what the current corpus did to a frozen version's judgments.

:func:`refresh_plan_read` reads the version's rows and only the live chunks it needs (every live
chunk's id and text hash; the text and span of the graded chunks whose hash moved; the chunks of
the documents that lost a graded chunk) and hands them to `goldsmith.refresh.refresh_plan`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from annotation.models import (
    Chunk,
    CorpusChange,
    GoldenJudgment,
    GoldenSetRefresh,
    GoldenSetVersion,
    Project,
    RefreshState,
)
from annotation.models.judging import ReviewState
from goldsmith.corpus import corpus_hash, text_sha256
from goldsmith.refresh import FrozenRow, PlacedChunk, RefreshPlan, placed, refresh_plan

BATCH = 5000


@dataclass(frozen=True)
class PlanRead:
    plan: RefreshPlan
    corpus_hash: str  # of the live corpus it was computed on
    live: dict[str, PlacedChunk]


def version_rows(version: GoldenSetVersion) -> dict[str, list[FrozenRow]]:
    """Every golden query of the version (in position order) with its frozen rows."""
    out: dict[str, list[FrozenRow]] = {
        qid: [] for qid in version.items.order_by("position").values_list("query_id", flat=True)
    }
    for qid, cid, doc, s, e, text, grade, prov in (
        GoldenJudgment.objects.filter(item__version=version)
        .order_by("item__position", "position")
        .values_list(
            "item__query_id", "chunk_id", "doc_id", "start", "end", "text", "grade", "provenance"
        )
    ):
        sha = text_sha256(text) if text is not None else None
        out[qid].append(FrozenRow(cid, grade, doc, s, e, text, prov, sha))
    return out


def live_corpus_hash(project: Project) -> str:
    return corpus_hash(
        Chunk.objects.filter(project=project, removed=False).values_list("chunk_id", "text_sha256")
    )


def refresh_plan_read(*, version: GoldenSetVersion) -> PlanRead:
    """The refresh plan of `version` on its project's live corpus now."""
    golden = version_rows(version)
    hashes = dict(
        Chunk.objects.filter(project_id=version.project_id, removed=False).values_list(
            "chunk_id", "text_sha256"
        )
    )
    digest = corpus_hash(hashes.items())
    graded: dict[str, set[str | None]] = defaultdict(set)
    lost: set[str] = set()
    for rows in golden.values():
        for r in rows:
            graded[r.chunk_id].add(r.text_sha256)
            if r.chunk_id not in hashes and r.doc_id is not None:
                lost.add(r.doc_id)
    moved = [
        c
        for c, shas in graded.items()
        if c in hashes and any(s not in (None, hashes[c]) for s in shas)
    ]
    # Only the graded chunks and those that may replace one: the rest cannot change a grade.
    live = {c: placed(c, hashes[c]) for c in graded if c in hashes}
    fields = ("chunk_id", "text_sha256", "text", "document__doc_id", "start", "end")
    for lo in range(0, len(moved), BATCH):
        for cid, sha, text, doc, s, e in Chunk.objects.filter(
            project_id=version.project_id, chunk_id__in=moved[lo : lo + BATCH]
        ).values_list(*fields):
            live[cid] = placed(cid, sha, text, doc, s, e)
    near: list[PlacedChunk] = []
    docs = sorted(lost)
    for lo in range(0, len(docs), BATCH):
        for cid, sha, text, doc, s, e in Chunk.objects.filter(
            project_id=version.project_id,
            removed=False,
            document__doc_id__in=docs[lo : lo + BATCH],
        ).values_list(*fields):
            live[cid] = placed(cid, sha, text, doc, s, e)
            near.append(live[cid])
    return PlanRead(refresh_plan(golden, live, placed_in=near), digest, live)


def retired_in(*, project: Project, chunk_ids: list[str]) -> dict[str, int]:
    """The corpus version that retired each chunk (its latest retirement), where one is known."""
    out: dict[str, int] = {}
    for cid, number in (
        CorpusChange.objects.filter(
            version__project=project, kind="retired", chunk__chunk_id__in=chunk_ids
        )
        .order_by("version__number")
        .values_list("chunk__chunk_id", "version__number")
    ):
        out[cid] = number
    return out


def open_refresh(*, version: GoldenSetVersion) -> GoldenSetRefresh | None:
    return GoldenSetRefresh.objects.filter(base=version, state=RefreshState.OPEN).first()


def refresh_for_diff(*, a: GoldenSetVersion, b: GoldenSetVersion) -> GoldenSetRefresh | None:
    """The refresh of `a` whose freeze made `b`, if `b` is one."""
    return GoldenSetRefresh.objects.filter(base=a, result=b, state=RefreshState.FROZEN).first()


def refresh_progress(refresh: GoldenSetRefresh) -> dict[str, int]:
    """Of the refresh's re-judged queries: how many there are and how many are approved."""
    live = refresh.queries.filter(live__isnull=False)
    return {
        "rejudged": live.count(),
        "approved": live.filter(live__review__state=ReviewState.APPROVED).count(),
    }
