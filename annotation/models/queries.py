from __future__ import annotations

from django.db import models
from django.db.models.functions import MD5
from django.utils.translation import pgettext_lazy

from annotation.models.projects import Project


class Query(models.Model):
    """A real user query sampled into the project, to be judged.

    `stratum` and `weight` come from the sample that chose it, so that metrics can be
    re-weighted to the whole traffic.
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="queries")
    text = models.TextField()
    normalized = models.TextField()
    category = models.CharField(max_length=120, blank=True)
    stratum = models.CharField(max_length=120, blank=True)
    weight = models.FloatField(default=1.0)
    # Where it came from: the sample that chose it and the log query it stands for.
    sample = models.ForeignKey(
        "annotation.Sample",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="queries",
    )
    log_query = models.ForeignKey(
        "annotation.LogQuery", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # The answer key the lead sets (docs/formats.md, "Answer fields"): frozen with the query.
    # `reference_facts` is [{"text": ..., "chunk_ids": [...]}], each chunk id one of the query's
    # judged chunks; `choices` is a list of strings (for answer_type "choice" only).
    reference_answer = models.TextField(null=True, blank=True)  # noqa: DJ001
    answer_type = models.CharField(max_length=16, null=True, blank=True)  # noqa: DJ001
    choices = models.JSONField(default=list, blank=True)
    reference_facts = models.JSONField(default=list, blank=True)
    # Further reference answers (SQuAD and CMRC 2018 have several per question): answer F1 and
    # exact match take the best over `reference_answer` and these.
    reference_alternatives = models.JSONField(default=list, blank=True)

    class Meta:
        constraints = [
            # On a hash, as LogQuery's: the text can be longer than a btree entry holds.
            models.UniqueConstraint(
                models.F("project"), MD5("normalized"), name="query_unique_text_md5"
            )
        ]
        ordering = ["id"]
        verbose_name_plural = pgettext_lazy("model name", "queries")

    def __str__(self) -> str:
        return self.text[:80]
