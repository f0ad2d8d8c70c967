"""A query's answer key: the reference answer, its type, the choices and the key facts a lead
sets, which a freeze copies into the version (docs/formats.md, "Answer fields").

The checks are the engine's (`goldsmith.formats.jsonl.answer_key`), so that what a project
stores is what the native reader accepts; a key fact may link only to chunks that are
candidates of the query (a freeze further refuses a link to a chunk without a final grade).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext

from annotation.models import Candidate, Project, Query
from annotation.services.goldsets import facts_json
from goldsmith.formats import FormatError
from goldsmith.formats.jsonl import LineCheck, answer_key


class AnswerKeyError(ValueError):
    """An answer key that cannot be stored; `field` names the field at fault."""

    def __init__(self, field: str, message: str) -> None:
        self.field, self.message = field, message
        super().__init__(f"{field}: {message}")


def _field_of(message: str) -> str:
    """The field an engine message is about (the first word it names, e.g.
    ``reference_facts[1].chunk_ids[0]``), or ``answer_type`` for a message about the type."""
    head = message.split(" ", 1)[0].rstrip(":")
    for name in ("reference_answer", "answer_type", "choices", "reference_facts"):
        if head.startswith(name):
            return head
    return "answer_type"


@transaction.atomic
def answer_key_set(*, project: Project, query_id: int, data: dict[str, Any]) -> Query:
    """Replace the answer key of one of `project`'s queries with `data` (the native format's
    fields: ``reference_answer``, ``answer_type``, ``choices``, ``reference_facts``; a field
    left out is cleared). Raises Query.DoesNotExist, or AnswerKeyError naming the field."""
    query = Query.objects.select_for_update().get(project=project, pk=query_id)
    try:
        key = answer_key(LineCheck("answer key", 1), data, str(query.pk))
    except FormatError as error:
        raise AnswerKeyError(_field_of(error.message), error.message) from None
    linked = {c for f in key.facts for c in f.chunk_ids}
    if linked:
        known = set(
            Candidate.objects.filter(query=query, chunk__chunk_id__in=linked).values_list(
                "chunk__chunk_id", flat=True
            )
        )
        for i, fact in enumerate(key.facts):
            for j, cid in enumerate(fact.chunk_ids):
                if cid not in known:
                    raise AnswerKeyError(
                        f"reference_facts[{i}].chunk_ids[{j}]",
                        gettext("chunk {chunk} is not a candidate of this query").format(chunk=cid),
                    )
    query.reference_answer = key.reference_answer
    query.answer_type = key.answer_type
    query.choices = list(key.choices)
    query.reference_facts = facts_json(key.facts)
    query.save(update_fields=["reference_answer", "answer_type", "choices", "reference_facts"])
    return query
