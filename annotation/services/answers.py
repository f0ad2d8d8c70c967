"""A query's answer key: the reference answer, its type, the choices and the key facts a lead
sets, which a freeze copies into the version (docs/formats.md, "Answer fields"); and, when the
project turns it on, each annotator's own draft of it, which a lead merges into the key
(docs/design.md "Reference answers written by annotators").

The checks are the engine's (`goldsmith.formats.jsonl.answer_key`), so that what a project
stores is what the native reader accepts; a key fact may link only to chunks that are
candidates of the query (a freeze further refuses a link to a chunk without a final grade).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext

from annotation.models import AnswerDraft, Assignment, Candidate, Judgment, Project, Query
from annotation.services.goldsets import facts_json
from annotation.services.judging import check_open
from goldsmith.answers.model import AnswerKey
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
    for name in (
        "reference_answers", "reference_answer", "answer_type", "choices", "reference_facts",
    ):  # fmt: skip
        if head.startswith(name):
            return head
    return "answer_type"


class AnswerDraftsOff(Exception):
    """The project does not ask annotators for reference answers and key facts."""


def _checked(query: Query, data: dict[str, Any]) -> AnswerKey:
    """`data` read by the engine's native reader, or AnswerKeyError naming the field."""
    try:
        return answer_key(LineCheck("answer key", 1), data, str(query.pk))
    except FormatError as error:
        raise AnswerKeyError(_field_of(error.message), error.message) from None


def _check_links(key: AnswerKey, known: set[str], message: str) -> None:
    for i, fact in enumerate(key.facts):
        for j, cid in enumerate(fact.chunk_ids):
            if cid not in known:
                raise AnswerKeyError(
                    f"reference_facts[{i}].chunk_ids[{j}]", message.format(chunk=cid)
                )


@transaction.atomic
def answer_key_set(*, project: Project, query_id: int, data: dict[str, Any]) -> Query:
    """Replace the answer key of one of `project`'s queries with `data` (the native format's
    fields: ``reference_answer``, ``reference_answers`` (every reference answer, the primary
    first), ``answer_type``, ``choices``, ``reference_facts``; a field left out is cleared).
    Raises Query.DoesNotExist, or AnswerKeyError naming the field."""
    query = Query.objects.select_for_update().get(project=project, pk=query_id)
    key = _checked(query, data)
    linked = {c for f in key.facts for c in f.chunk_ids}
    if linked:
        known = set(
            Candidate.objects.filter(query=query, chunk__chunk_id__in=linked).values_list(
                "chunk__chunk_id", flat=True
            )
        )
        _check_links(key, known, gettext("chunk {chunk} is not a candidate of this query"))
    query.reference_answer = key.reference_answer
    query.answer_type = key.answer_type
    query.choices = list(key.choices)
    query.reference_facts = facts_json(key.facts)
    query.reference_alternatives = list(key.alternatives)
    query.save(
        update_fields=[
            "reference_answer", "answer_type", "choices", "reference_facts",
            "reference_alternatives",
        ]
    )  # fmt: skip
    return query


@transaction.atomic
def project_annotators_write_answers_set(*, project: Project, on: bool) -> Project:
    """Switch on or off the step where annotators write reference answers and key facts after
    grading. Switching it off keeps the drafts written so far (a lead still sees them)."""
    Project.objects.filter(pk=project.pk).update(annotators_write_answers=on)
    project.annotators_write_answers = on
    return project


@transaction.atomic
def answer_draft_save(*, assignment: Assignment, data: dict[str, Any]) -> AnswerDraft:
    """Replace the assigned annotator's own draft answer key of the query with `data` (the
    native format's fields, as `answer_key_set` takes them; a field left out is cleared).

    Checked as a lead's answer key is, by the engine's reader, and a key fact may link only to
    chunks of the query the annotator graded relevant or partly relevant. Raises
    AnswerDraftsOff when the project does not ask for drafts, JudgingClosed once the query was
    adjudicated or approved, AnswerKeyError naming the field."""
    query = Query.objects.select_related("project").get(pk=assignment.query_id)
    if not query.project.annotators_write_answers:
        raise AnswerDraftsOff(gettext("this project does not ask annotators for reference answers"))
    check_open(query.pk)
    key = _checked(query, data)
    linked = {c for f in key.facts for c in f.chunk_ids}
    if linked:
        known = set(
            Judgment.objects.filter(
                candidate__query_id=query.pk,
                annotator_id=assignment.annotator_id,
                grade__gte=1,
                candidate__chunk__chunk_id__in=linked,
            ).values_list("candidate__chunk__chunk_id", flat=True)
        )
        _check_links(
            key,
            known,
            gettext("chunk {chunk} is not one you graded relevant or partly relevant"),
        )
    draft, _ = AnswerDraft.objects.select_for_update().get_or_create(
        query_id=query.pk, annotator_id=assignment.annotator_id
    )
    draft.reference_answer = key.reference_answer
    draft.answer_type = key.answer_type
    draft.choices = list(key.choices)
    draft.reference_facts = facts_json(key.facts)
    draft.save()
    return draft
