"""Reads of golden-set versions for scoring: items with their judgments, answer keys, texts."""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import QuerySet

from annotation.models import Project
from annotation.models.goldsets import GoldenItem, GoldenJudgment, GoldenSetVersion
from evaluation.selectors.corpus import LOOKUP_BATCH
from goldsmith.agreement import MACHINE
from goldsmith.answers.model import AnswerKey, KeyFact
from goldsmith.reporting import GoldItem, GoldJudgment


def golden_items(
    *,
    version_id: int,
    query_ids: Sequence[str] | None = None,
    with_judgments: bool = True,
    with_texts: bool = True,
    machine_grades: bool = True,
) -> list[GoldItem]:
    """The version's queries (all, or the given ones) with their judgments, in query order.
    ``with_texts=False`` leaves out the judged chunks' texts (scoring needs none of them);
    ``machine_grades=False`` leaves out the grades a machine judge filled (provenance
    ``machine``): those chunks then score as unjudged."""
    fields = ("pk", "position", "query_id", "text", "category", "stratum", "weight")
    items = GoldenItem.objects.filter(version_id=version_id).order_by("position")
    if query_ids is not None:
        wanted = list(query_ids)
        rows = []
        for start in range(0, len(wanted), LOOKUP_BATCH):
            part = items.filter(query_id__in=wanted[start : start + LOOKUP_BATCH])
            rows.extend(part.values_list(*fields))
        rows.sort(key=lambda r: r[1])
    else:
        rows = list(items.values_list(*fields))
    judged: dict[int, list[GoldJudgment]] = {}
    if with_judgments:
        columns = ("item_id", "chunk_id", "grade", "doc_id", "start", "end")
        columns += ("text",) if with_texts else ()
        js = GoldenJudgment.objects.filter(item__version_id=version_id).order_by(
            "item_id", "position"
        )
        if not machine_grades:
            js = js.exclude(provenance=MACHINE)
        parts = [js]
        if query_ids is not None:
            pks = [r[0] for r in rows]
            parts = [
                js.filter(item_id__in=pks[i : i + LOOKUP_BATCH])
                for i in range(0, len(pks), LOOKUP_BATCH)
            ]
        for part in parts:
            for item_id, *judgment in part.values_list(*columns):
                judged.setdefault(item_id, []).append(GoldJudgment(*judgment))
    return [
        GoldItem(
            query_id=query_id,
            text=text,
            category=category,
            stratum=stratum,
            weight=weight,
            judgments=tuple(judged.get(pk, ())),
        )
        for pk, _position, query_id, text, category, stratum, weight in rows
    ]


def answer_keys(*, version_id: int) -> list[AnswerKey]:
    """The version's answer keys (reference answer, type, choices, key facts), one per query
    in query order; a query without any is an empty key."""
    fields = (
        "query_id", "text", "category", "reference_answer", "answer_type", "choices",
        "reference_facts",
    )  # fmt: skip
    return [
        AnswerKey(
            query_id=qid,
            reference_answer=answer,
            answer_type=kind or None,
            choices=tuple(choices or ()),
            facts=tuple(KeyFact(f["text"], tuple(f.get("chunk_ids") or ())) for f in facts or ()),
            query=text,
            category=category,
        )
        for qid, text, category, answer, kind, choices, facts in GoldenItem.objects.filter(
            version_id=version_id
        )
        .order_by("position")
        .values_list(*fields)
    ]


def has_answer_keys(*, version_id: int) -> bool:
    """Whether some query of the version has a reference answer or a key fact."""
    items = GoldenItem.objects.filter(version_id=version_id)
    return (
        items.filter(reference_answer__isnull=False).exists()
        or items.exclude(reference_facts=[]).exists()
    )


def query_texts(*, version_id: int) -> dict[str, str]:
    """Query id → text of the version's queries."""
    return dict(GoldenItem.objects.filter(version_id=version_id).values_list("query_id", "text"))


def versions_of(*, project: Project) -> QuerySet[GoldenSetVersion]:
    return GoldenSetVersion.objects.filter(project=project).order_by("-created_at", "-id")
