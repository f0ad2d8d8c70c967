"""Machine judges and their grades: annotators that are programs.

MachineJudge (project, name, kind) ──< MachineGrade (candidate, grade 0/1/2, reason)

A machine judge grades candidates as an annotator would, but apart from people: its grades
live here, never in `Judgment`, so they never enter the annotators' agreement, flags or rule
resolutions, and the annotation page never reads them. They are measured against the people
(kappa against each annotator and the final grades), and, only when a lead says so, fill the
final grade of a candidate no person graded (`Resolution` with provenance ``machine``; see
`annotation.services.machine`). How an HTTP judge is called (its URL, secret and settings) and
the job that calls it belong to the evaluation app, which sits above this one.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy

from annotation.models.accounts import acting_user
from annotation.models.judging import GRADE_CHOICES, Candidate
from annotation.models.projects import Project


class MachineJudgeKind(models.TextChoices):
    HTTP = "http", gettext_lazy("HTTP endpoint")
    FILE = "file", gettext_lazy("Uploaded file of grades")
    KEYWORD = "keyword", gettext_lazy("Keyword overlap (built-in stub)")


class MachineJudge(models.Model):
    """A program that grades the project's candidates."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="machine_judges")
    name = models.CharField(max_length=120)
    kind = models.CharField(max_length=16, choices=MachineJudgeKind.choices)
    created_by = acting_user()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="machinejudge_unique_name")
        ]
        ordering = ["project", "name"]

    def __str__(self) -> str:
        return self.name


class MachineGrade(models.Model):
    """A machine judge's grade of one candidate, with its reason (one per judge and candidate:
    judging again replaces it)."""

    judge = models.ForeignKey(MachineJudge, on_delete=models.CASCADE, related_name="grades")
    candidate = models.ForeignKey(
        Candidate, on_delete=models.CASCADE, related_name="machine_grades"
    )
    grade = models.PositiveSmallIntegerField(choices=GRADE_CHOICES)
    reason = models.TextField(blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["judge", "candidate"], name="machinegrade_unique"),
            models.CheckConstraint(condition=models.Q(grade__lte=2), name="machinegrade_grade_0_2"),
        ]

    def __str__(self) -> str:
        return f"{self.judge_id}:{self.candidate_id}={self.grade}"
