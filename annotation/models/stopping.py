"""Stopping a query before every candidate is graded (goldsmith.judging_order, "Knowing when
to stop").

Assignment ── JudgingStop (the estimate the stop rested on)
JudgingStop ──< StoppedCandidate: a candidate the annotator left *not judged (stopped)*

A stopped candidate is unjudged, never a 0: it has no Judgment of that annotator, so agreement,
the rules that settle final grades and adjudication do not see it, a version does not carry it
(it counts it), and a run report counts it as unjudged. A candidate graded after the stop (the
annotator went back to it) keeps its row here but counts as judged.
"""

from __future__ import annotations

from django.db import models

from annotation.models.judging import Assignment, Candidate


class JudgingStop(models.Model):
    """The annotator of `assignment` finished the query with candidates left, when the estimate
    said at least `target` of the relevant candidates were found (with probability `p_target`,
    at least the rule's `confidence` then)."""

    assignment = models.OneToOneField(Assignment, on_delete=models.CASCADE, related_name="stop")
    found = models.PositiveIntegerField()  # the annotator's relevant grades at the stop
    judged = models.PositiveIntegerField()
    left = models.PositiveIntegerField()  # candidates left not judged (stopped)
    expected_remaining = models.FloatField()  # relevant candidates the model expects among them
    estimated_recall = models.FloatField(null=True, blank=True)
    checked = models.PositiveIntegerField(default=0)  # random checks graded
    checked_relevant = models.PositiveIntegerField(default=0)
    target = models.FloatField(default=0.95)
    # What the stop rested on, as the estimate said at the moment of the stop: the model's
    # probability that `target` of the relevant candidates were found, the probability the
    # rule asked for, and how many random checks it asked for. Null on stops taken before
    # these were recorded: "not recorded", never read as today's rule.
    p_target = models.FloatField(null=True, blank=True)
    confidence = models.FloatField(null=True, blank=True)
    checks = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"stop of {self.assignment_id}: {self.left} left"


class StoppedCandidate(models.Model):
    """A candidate `stop` left not judged (stopped)."""

    stop = models.ForeignKey(JudgingStop, on_delete=models.CASCADE, related_name="candidates")
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="stops")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["stop", "candidate"], name="stoppedcandidate_unique")
        ]

    def __str__(self) -> str:
        return f"{self.candidate_id} stopped ({self.stop_id})"


class PoolDeepening(models.Model):
    """The pool of `query` was deepened for `source` from its top `from_k` to its top `to_k`,
    because the final grades said the source still yielded relevant chunks at its last ranks
    (annotation/services/depth.py)."""

    query = models.ForeignKey(
        "annotation.Query", on_delete=models.CASCADE, related_name="deepenings"
    )
    source = models.ForeignKey(
        "annotation.PoolSource", on_delete=models.CASCADE, related_name="deepenings"
    )
    from_k = models.PositiveIntegerField()
    to_k = models.PositiveIntegerField()
    relevant_at = models.PositiveIntegerField()  # the deepest rank graded relevant
    new_candidates = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["query", "source", "to_k"], name="pooldeepening_unique")
        ]

    def __str__(self) -> str:
        return f"{self.query_id}/{self.source_id}: {self.from_k} → {self.to_k}"
