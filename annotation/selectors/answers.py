"""Reads of a query's answer key (set by a lead, frozen with the query)."""

from __future__ import annotations

from typing import Any

from annotation.models import Project, Query


def answer_key_get(*, project: Project, query_id: int) -> dict[str, Any]:
    """The answer key of one of `project`'s queries, as the native format names its fields.
    Raises Query.DoesNotExist."""
    query = Query.objects.only(
        "id", "reference_answer", "answer_type", "choices", "reference_facts"
    ).get(project=project, pk=query_id)
    return answer_key_json(query)


def answer_key_json(query: Query) -> dict[str, Any]:
    return {
        "query_id": query.pk,
        "reference_answer": query.reference_answer,
        "answer_type": query.answer_type,
        "choices": list(query.choices),
        "reference_facts": [
            {"text": f["text"], "chunk_ids": list(f["chunk_ids"])} for f in query.reference_facts
        ],
    }
