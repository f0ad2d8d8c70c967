"""Writes about machine judges: adding one, storing its grades (from a job or a file), and
letting its grades fill the final grade of candidates no person graded.

A machine judge never sees the people's grades (a job sends it the query and the chunk only)
and is never seen by them: its grades are `MachineGrade` rows, which the annotation page, the
agreement figures, the flags and the rule resolutions never read. Only `machine_grades_fill_gaps`
lets them reach a final grade, when a lead asks, under three rules:

- only a candidate no person graded (no `Judgment` at all) and with no final grade yet;
- never in an approved query (a frozen version copies approved queries: it never changes) nor a
  flagged one (a lead grades every candidate of it);
- the final grade says so (provenance ``machine``), and a person's grade arriving later wins:
  when the query's annotators finish, settling it (`annotation.services.adjudication`) writes
  the people's final grades over the machine's.

A query that no person is assigned to and whose every candidate now has a final grade is marked
resolved, so a lead can approve it and freeze it; a version then counts its machine grades.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, F, OuterRef, Q
from django.utils import timezone

from annotation.models import (
    Assignment,
    Candidate,
    Judgment,
    MachineGrade,
    MachineJudge,
    MachineJudgeKind,
    Project,
    Query,
    QueryReview,
    Resolution,
)
from annotation.models.judging import Provenance, ReviewState
from annotation.services.uploads import Upload, upload_file, upload_limits, upload_name
from goldsmith.intake.readers import ReadError
from goldsmith.judges import read_machine_grades
from sitewide.text_input import single_line


class JudgeInvalid(ValueError):
    """A machine judge or its grades cannot be stored; the message says why."""


def machine_judge_add(
    *, project: Project, name: str, kind: str, by: AbstractBaseUser | None = None
) -> MachineJudge:
    """Add a machine judge named `name` to `project` (names are unique in a project)."""
    if kind not in MachineJudgeKind.values:
        raise JudgeInvalid(f"unknown kind {kind!r}; use one of {', '.join(MachineJudgeKind)}")
    try:
        name = single_line(name or "", "a judge's name")
    except ValueError as error:
        raise JudgeInvalid(str(error)) from None
    if not name:
        raise JudgeInvalid("give the judge a name")
    if len(name) > 120:
        raise JudgeInvalid("a judge's name is at most 120 characters")
    try:
        with transaction.atomic():
            return MachineJudge.objects.create(
                project=project,
                name=name,
                kind=kind,
                created_by=by if getattr(by, "pk", None) else None,
            )
    except IntegrityError:
        raise JudgeInvalid(f"a judge named {name!r} already exists") from None


@transaction.atomic
def machine_grades_store(*, judge: MachineJudge, grades: Mapping[int, tuple[int, str]]) -> int:
    """Store (or replace) the judge's grade and reason of each candidate (candidate id →
    (grade, reason)); every candidate must be of the judge's project. Returns how many."""
    ids = sorted(grades)
    known = set(
        Candidate.objects.filter(pk__in=ids, query__project_id=judge.project_id).values_list(
            "pk", flat=True
        )
    )
    foreign = [c for c in ids if c not in known]
    if foreign:
        raise JudgeInvalid(f"candidate {foreign[0]} is not a candidate of this project")
    if any(g not in (0, 1, 2) for g, _ in grades.values()):
        raise JudgeInvalid("a grade is 0, 1 or 2")
    MachineGrade.objects.bulk_create(
        [
            MachineGrade(judge=judge, candidate_id=cid, grade=grade, reason=reason[:2000])
            for cid, (grade, reason) in sorted(grades.items())
        ],
        batch_size=1000,
        update_conflicts=True,
        unique_fields=["judge", "candidate"],
        update_fields=["grade", "reason", "updated_at"],
    )
    return len(ids)


def machine_grades_import(*, judge: MachineJudge, source: Upload | Path) -> int:
    """Store a file of machine grades (JSONL or CSV: query_id or query, chunk_id, grade,
    reason) for a judge of kind ``file``: all or nothing. Every error names the file, line and
    field (``grades.csv:4: field 'grade' must be 0, 1 or 2, got '3'``). A query is found by its
    id (as exports write it) or by its exact text; the chunk must be a candidate of that query.
    Returns how many grades were stored."""
    if judge.kind != MachineJudgeKind.FILE:
        raise JudgeInvalid("only a judge of kind 'file' takes a file of grades")
    if isinstance(source, Path):
        return _import_path(judge, source, source.name)
    with upload_file(source) as path:
        return _import_path(judge, path, upload_name(source))


def _import_path(judge: MachineJudge, path: Path, name: str) -> int:
    queries = Query.objects.filter(project_id=judge.project_id)
    by_id = {str(pk): pk for pk in queries.values_list("pk", flat=True)}
    by_text: dict[str, int | None] = {}
    for pk, text in queries.values_list("pk", "text"):
        by_text[text.strip()] = None if text.strip() in by_text else pk  # None: two queries
    candidates = {
        (qid, chunk_id): cid
        for cid, qid, chunk_id in Candidate.objects.filter(
            query__project_id=judge.project_id
        ).values_list("pk", "query_id", "chunk__chunk_id")
    }
    grades: dict[int, tuple[int, str]] = {}
    lines: dict[int, int] = {}
    try:
        with path.open("rb") as stream:
            for row in read_machine_grades(
                stream, name, max_line_bytes=upload_limits().max_line_bytes
            ):
                if row.query_id is not None:
                    qid = by_id.get(row.query_id)
                    if qid is None:
                        raise ReadError(
                            name, row.line, f"field 'query_id': no query {row.query_id!r} here"
                        )
                else:
                    text = row.query or ""
                    if text not in by_text:
                        raise ReadError(name, row.line, f"field 'query': no query {text[:60]!r}")
                    found = by_text[text]
                    if found is None:
                        raise ReadError(
                            name,
                            row.line,
                            f"field 'query': two queries read {text[:60]!r}; use query_id",
                        )
                    qid = found
                cid = candidates.get((qid, row.chunk_id))
                if cid is None:
                    raise ReadError(
                        name,
                        row.line,
                        f"field 'chunk_id': {row.chunk_id!r} is not a candidate of query {qid}",
                    )
                if cid in lines:
                    raise ReadError(
                        name,
                        row.line,
                        f"field 'chunk_id': {row.chunk_id!r} of query {qid} was graded on "
                        f"line {lines[cid]} already",
                    )
                lines[cid] = row.line
                grades[cid] = (row.grade, row.reason)
    except ReadError as error:
        raise JudgeInvalid(str(error)) from None
    if not grades:
        raise JudgeInvalid(f"{name}: the file holds no grade")
    return machine_grades_store(judge=judge, grades=grades)


@dataclass(frozen=True)
class GapFill:
    """What `machine_grades_fill_gaps` did: final grades it set, queries it marked resolved,
    and candidates it left because a person graded them or they already had a final grade,
    or because their query is approved or flagged."""

    filled: int
    queries_resolved: int
    skipped: int


@transaction.atomic
def machine_grades_fill_gaps(
    *, project: Project, judge: MachineJudge, by: AbstractBaseUser | None = None
) -> GapFill:
    """Let `judge`'s grades be the final grade (provenance ``machine``) of every candidate of
    `project` that no person graded and that has no final grade, outside approved and flagged
    queries; then mark resolved each query nobody is assigned to whose every candidate has a
    final grade. A lead's decision; safe to run twice (nothing new the second time)."""
    if judge.project_id != project.pk:
        raise JudgeInvalid("the judge belongs to another project")
    Project.objects.select_for_update().filter(pk=project.pk).first()  # one fill at a time
    graded = MachineGrade.objects.filter(judge=judge, candidate__query__project=project)
    closed = Q(candidate__query__review__state__in=[ReviewState.APPROVED, ReviewState.FLAGGED])
    gaps = (
        graded.exclude(Exists(Judgment.objects.filter(candidate=OuterRef("candidate_id"))))
        .exclude(Exists(Resolution.objects.filter(candidate=OuterRef("candidate_id"))))
        .exclude(closed)
    )
    rows = list(gaps.values_list("candidate_id", "candidate__query_id", "grade"))
    now = timezone.now()
    Resolution.objects.bulk_create(
        [
            Resolution(
                candidate_id=cid, grade=grade, provenance=Provenance.MACHINE, resolved_at=now
            )
            for cid, _qid, grade in rows
        ],
        batch_size=1000,
    )
    touched = {qid for _cid, qid, _grade in rows}
    complete = (
        Query.objects.filter(pk__in=touched)
        .exclude(Exists(Assignment.objects.filter(query=OuterRef("pk"))))
        .annotate(
            n=Count("candidates", distinct=True),
            resolved=Count("candidates__resolution", distinct=True),
        )
        .filter(n=F("resolved"))
        .values_list("pk", flat=True)
    )
    ready = sorted(complete)
    QueryReview.objects.bulk_create(
        [QueryReview(query_id=qid) for qid in ready], ignore_conflicts=True
    )
    resolved = QueryReview.objects.filter(query_id__in=ready, state=ReviewState.OPEN).update(
        state=ReviewState.RESOLVED, version=F("version") + 1, updated_at=now
    )
    return GapFill(filled=len(rows), queries_resolved=resolved, skipped=graded.count() - len(rows))
