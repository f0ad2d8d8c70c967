"""Reads of a query's answer key (set by a lead, frozen with the query) and of the drafts
annotators write of it (each sees only their own; leads see all, with their fact agreement)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Exists, OuterRef

from annotation.models import AnswerDraft, Assignment, Project, Query
from annotation.selectors.judging import annotator_labels
from goldsmith.fact_agreement import (
    FactAgreement,
    Support,
    matched_pairs,
    query_agreement,
    supports,
)
from goldsmith.fact_agreement import project_agreement as fact_project_agreement


def answer_key_get(*, project: Project, query_id: int) -> dict[str, Any]:
    """The answer key of one of `project`'s queries, as the native format names its fields.
    Raises Query.DoesNotExist."""
    query = Query.objects.only(
        "id", "reference_answer", "answer_type", "choices", "reference_facts",
        "reference_alternatives",
    ).get(project=project, pk=query_id)  # fmt: skip
    return answer_key_json(query)


def answer_key_json(query: Query) -> dict[str, Any]:
    return {
        "query_id": query.pk,
        "reference_answer": query.reference_answer,
        "reference_answers": (
            [query.reference_answer, *query.reference_alternatives]
            if query.reference_answer is not None
            else []
        ),
        "answer_type": query.answer_type,
        "choices": list(query.choices),
        "reference_facts": [
            {"text": f["text"], "chunk_ids": list(f["chunk_ids"])} for f in query.reference_facts
        ],
    }


def empty_key(query_id: int) -> dict[str, Any]:
    return {
        "query_id": query_id,
        "reference_answer": None,
        "reference_answers": [],
        "answer_type": None,
        "choices": [],
        "reference_facts": [],
    }


def answer_draft_json(draft: AnswerDraft) -> dict[str, Any]:
    return {
        "query_id": draft.query_id,
        "reference_answer": draft.reference_answer,
        "answer_type": draft.answer_type,
        "choices": list(draft.choices),
        "reference_facts": [
            {"text": f["text"], "chunk_ids": list(f["chunk_ids"])} for f in draft.reference_facts
        ],
        "updated_at": draft.updated_at,
    }


def answer_draft_get(*, query_id: int, annotator_id: int) -> dict[str, Any]:
    """The annotator's own draft answer key of the query (empty fields when none): never
    another annotator's."""
    draft = AnswerDraft.objects.filter(query_id=query_id, annotator_id=annotator_id).first()
    if draft is None:
        return {**empty_key(query_id), "updated_at": None}
    return answer_draft_json(draft)


@dataclass
class DraftColumn:
    """One annotator's draft on the lead's page: each fact with whether it matched a fact of
    another annotator (same chunks)."""

    label: str
    draft: dict[str, Any] | None  # None: this annotator wrote none
    facts: list[tuple[dict[str, Any], bool]] = field(default_factory=list)


@dataclass
class DraftsView:
    columns: list[DraftColumn]
    agreement: FactAgreement
    key: dict[str, Any]


def _active_drafts(query_ids: list[int] | None, project: Project) -> list[AnswerDraft]:
    """Drafts of annotators still assigned to their query (a reassigned annotator's draft is
    kept but does not count, as their grades)."""
    assigned = Assignment.objects.filter(
        query_id=OuterRef("query_id"), annotator_id=OuterRef("annotator_id")
    )
    rows = AnswerDraft.objects.filter(Exists(assigned), query__project=project)
    if query_ids is not None:
        rows = rows.filter(query_id__in=query_ids)
    return list(rows.select_related("annotator").order_by("query_id", "annotator__username"))


def answer_drafts_view(*, project: Project, query_id: int, hide_names: bool) -> DraftsView:
    """Every assigned annotator's draft of a query side by side, the query's fact agreement and
    its current answer key (leads only). Raises Query.DoesNotExist."""
    query = Query.objects.get(project=project, pk=query_id)
    assigned = list(
        Assignment.objects.filter(query=query)
        .order_by("annotator__username")
        .values_list("annotator_id", "annotator__username")
    )
    labels = annotator_labels(assigned, hide_names=hide_names)
    drafts = {d.annotator_id: d for d in _active_drafts([query.pk], project)}
    facts = {uid: supports(f["chunk_ids"] for f in d.reference_facts) for uid, d in drafts.items()}
    matched: dict[int, set[int]] = {uid: set() for uid in drafts}
    for x, y in itertools.combinations(sorted(drafts), 2):
        for i, j in matched_pairs(facts[x], facts[y]):
            matched[x].add(i)
            matched[y].add(j)
    columns = []
    for uid, _ in assigned:
        draft = drafts.get(uid)
        if draft is None:
            columns.append(DraftColumn(label=labels[uid], draft=None))
            continue
        shown = answer_draft_json(draft)
        columns.append(
            DraftColumn(
                label=labels[uid],
                draft=shown,
                facts=[(f, i in matched[uid]) for i, f in enumerate(shown["reference_facts"])],
            )
        )
    agreement = query_agreement({str(uid): facts[uid] for uid in drafts})
    return DraftsView(columns=columns, agreement=agreement, key=answer_key_json(query))


def project_fact_agreement(*, project: Project) -> FactAgreement:
    """The project's fact agreement over every query with two or more drafts."""
    by_query: dict[int, dict[str, list[Support]]] = {}
    for d in _active_drafts(None, project):
        by_query.setdefault(d.query_id, {})[str(d.annotator_id)] = supports(
            f["chunk_ids"] for f in d.reference_facts
        )
    return fact_project_agreement(query_agreement(drafts) for drafts in by_query.values())
