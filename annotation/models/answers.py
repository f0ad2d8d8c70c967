from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation.models.queries import Query


class AnswerDraft(models.Model):
    """One annotator's own answer key for a query they were assigned (docs/design.md
    "Reference answers written by annotators"): the fields of `Query`'s answer key, saved as
    they type, seen only by its writer and the project's leads. A lead merges the drafts into
    the query's answer key (`annotation.services.answers.answer_key_set`)."""

    query = models.ForeignKey(Query, on_delete=models.CASCADE, related_name="answer_drafts")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="answer_drafts"
    )
    reference_answer = models.TextField(null=True, blank=True)  # noqa: DJ001
    answer_type = models.CharField(max_length=16, null=True, blank=True)  # noqa: DJ001
    choices = models.JSONField(default=list, blank=True)
    # [{"text": ..., "chunk_ids": [...]}], each chunk one the writer graded 1 or 2
    reference_facts = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["query", "annotator"], name="answerdraft_unique_annotator"
            )
        ]
        ordering = ["query", "annotator__username"]

    def __str__(self) -> str:
        return f"{self.annotator} on query {self.query_id}"
