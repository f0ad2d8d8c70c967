"""Reads for refreshes: what the current corpus did to a frozen version's judgments.

:func:`refresh_plan_read` reads the version's rows and only the live chunks it needs (every live
chunk's id and text hash; the text and span of the graded chunks whose hash moved; the chunks of
the documents that lost a graded chunk) and hands them to `goldsmith.refresh.refresh_plan`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.db import connection

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
from goldsmith.refresh import (
    FrozenRow,
    PlacedChunk,
    RefreshPlan,
    placed,
    refresh_plan,
)

BATCH = 5000


@dataclass(frozen=True)
class PlanRead:
    plan: RefreshPlan
    live: dict[str, PlacedChunk]


def live_corpus_hash(project: Project) -> str:
    return corpus_hash(
        Chunk.objects.filter(project=project, removed=False).values_list("chunk_id", "text_sha256")
    )


# Each frozen row beside its live chunk, the texts compared by the database. A row is *kept*
# when its chunk is live with the graded text (or its graded text is not known). Only the
# queries with a row not kept come back (the others are untouched and hold every row as frozen),
# with all their rows; a kept row's text only when asked for.
_ROWS_SQL = """
WITH r AS (
  SELECT j.item_id, i.position AS ipos, j.position, i.query_id, j.chunk_id, j.grade, j.doc_id,
         j.start, j."end", j.provenance, j.text, c.text_sha256 AS live_sha,
         (c.id IS NOT NULL AND (j.text IS NULL OR c.text = j.text)) AS kept
  FROM annotation_goldenjudgment j
  JOIN annotation_goldenitem i ON i.id = j.item_id
  LEFT JOIN annotation_chunk c
    ON c.project_id = %s AND c.chunk_id = j.chunk_id AND c.removed = %s
  WHERE i.version_id = %s
)
SELECT query_id, chunk_id, grade, doc_id, start, "end", provenance, live_sha,
       CASE WHEN kept AND NOT %s THEN NULL ELSE text END, kept
FROM r
WHERE item_id IN (SELECT item_id FROM r WHERE NOT kept)
ORDER BY ipos, position
"""


def refresh_plan_read(*, version: GoldenSetVersion, texts: bool = True) -> PlanRead:
    """The refresh plan of `version` on its project's live corpus now. With `texts`, the rows of
    the queries the plan changes carry their texts (as a refresh stores them); without, the
    plan's counts and touched queries are the same, and a kept row has no text."""
    golden: dict[str, list[FrozenRow]] = {}
    live: dict[str, PlacedChunk] = {}
    moved: set[str] = set()
    lost: set[str] = set()
    with connection.cursor() as cursor:
        cursor.execute(_ROWS_SQL, [version.project_id, False, version.pk, texts])
        for qid, cid, grade, doc, s, e, prov, live_sha, text, kept in cursor.fetchall():
            rows = golden.setdefault(qid, [])
            if kept:
                rows.append(FrozenRow(cid, grade, doc, s, e, text, prov, live_sha))
                live.setdefault(cid, placed(cid, live_sha))
                continue
            sha = text_sha256(text) if text is not None else None
            rows.append(FrozenRow(cid, grade, doc, s, e, text, prov, sha))
            if live_sha is None:
                if doc is not None:
                    lost.add(doc)
            else:
                moved.add(cid)
    fields = ("chunk_id", "text_sha256", "text", "document__doc_id", "start", "end")
    ids = sorted(moved)
    for lo in range(0, len(ids), BATCH):
        for cid, sha, text, doc, s, e in Chunk.objects.filter(
            project_id=version.project_id, removed=False, chunk_id__in=ids[lo : lo + BATCH]
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
    # Every other query of the version is untouched, its rows all kept.
    for qid in version.items.values_list("query_id", flat=True):
        golden.setdefault(qid, [])
    plan = refresh_plan(golden, live, placed_in=near)
    relevant = GoldenJudgment.objects.filter(
        item__version=version, grade__gte=plan.effect.min_grade
    ).count()
    return PlanRead(RefreshPlan(replace(plan.effect, relevant_total=relevant), plan.queries), live)


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
