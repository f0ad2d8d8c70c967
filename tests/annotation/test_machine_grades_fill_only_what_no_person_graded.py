"""A lead lets a machine judge fill the gaps: only candidates no person graded get its grade as
their final grade (provenance machine), a query nobody is assigned to becomes resolved and can
be approved and frozen, the version counts its machine grades and the exports that can carry
provenance mark them. A person's grade never yields to the machine: graded candidates are
left alone, and a person's grade arriving later replaces the machine's."""

from __future__ import annotations

import csv
import io
import json
import zipfile

from django.test import Client

from annotation.models import (
    Candidate,
    MachineGrade,
    MachineJudgeKind,
    QueryAgreement,
    QueryReview,
    Resolution,
)
from annotation.models.judging import Provenance, ReviewState
from annotation.services.adjudication import queries_approve
from annotation.services.assignment import queries_assign
from annotation.services.goldsets import golden_set_version_freeze
from annotation.services.machine import (
    machine_grades_fill_gaps,
    machine_grades_store,
    machine_judge_add,
)
from tests.annotation.factories import grade_all
from tests.evaluation.judges import graded_project


def _judge_everything(project, grade_of=lambda cand: 2):
    judge = machine_judge_add(project=project, name="stub", kind=MachineJudgeKind.KEYWORD)
    machine_grades_store(
        judge=judge,
        grades={
            c.pk: (grade_of(c), "because") for c in Candidate.objects.filter(query__project=project)
        },
    )
    return judge


def test_the_machine_fills_only_candidates_no_person_graded(personas, api_client_for):
    setup = graded_project(personas, api_client_for, humans=2, spare=1)
    spare = setup.queries[2]
    before = dict(
        Resolution.objects.filter(candidate__query__in=setup.queries[:2]).values_list(
            "candidate_id", "provenance"
        )
    )
    judge = _judge_everything(setup.project, grade_of=lambda c: 0)  # disagrees with everyone
    result = machine_grades_fill_gaps(project=setup.project, judge=judge, by=personas.alice)
    assert result.filled == 4 and result.queries_resolved == 1
    # Human-graded candidates keep the people's final grades.
    after = dict(
        Resolution.objects.filter(candidate__query__in=setup.queries[:2]).values_list(
            "candidate_id", "provenance"
        )
    )
    assert after == before and Provenance.MACHINE not in after.values()
    machine = Resolution.objects.filter(provenance=Provenance.MACHINE)
    assert set(machine.values_list("candidate__query_id", flat=True)) == {spare.pk}
    assert QueryReview.objects.get(query=spare).state == ReviewState.RESOLVED
    # No person's agreement row was made or moved by the machine.
    assert not QueryAgreement.objects.filter(query=spare).exists()
    # Twice is once.
    again = machine_grades_fill_gaps(project=setup.project, judge=judge, by=personas.alice)
    assert again.filled == 0 and again.queries_resolved == 0


def test_a_version_counts_its_machine_grades_and_exports_mark_them(personas, api_client_for):
    setup = graded_project(personas, api_client_for, humans=2, spare=1)
    judge = _judge_everything(setup.project)
    machine_grades_fill_gaps(project=setup.project, judge=judge, by=personas.alice)
    queries_approve(project=setup.project, by=personas.alice)
    version = golden_set_version_freeze(project=setup.project, by=personas.alice)
    assert version.counts["machine_grades"] == 4
    assert version.counts["provenance"]["machine"] == 4
    assert version.judgment_count == 12
    browser = Client()
    browser.force_login(personas.victor)
    page = browser.get(f"/projects/{setup.project.pk}/goldsets/{version.label}/")
    assert page.status_code == 200
    assert "graded by a machine judge" in page.content.decode()

    client = api_client_for(personas.victor)
    base = f"/api/v1/projects/{setup.project.pk}/goldsets/{version.label}/export/"

    def body(fmt: str) -> bytes:
        response = client.get(base + f"{fmt}/")
        assert response.status_code == 200
        return b"".join(response.streaming_content)

    native = [json.loads(line) for line in body("jsonl").decode().splitlines()]
    marked = [j for q in native[1:] for j in q["judgments"] if j["provenance"] == "machine"]
    assert len(marked) == 4
    rows = list(csv.DictReader(io.StringIO(body("csv").decode("utf-8-sig"))))
    assert sum(1 for r in rows if r["provenance"] == "machine") == 4
    archive = zipfile.ZipFile(io.BytesIO(body("beir")))
    queries_name = next(n for n in archive.namelist() if n.endswith("/queries.jsonl"))
    beir = {q["_id"]: q for q in map(json.loads, archive.read(queries_name).decode().splitlines())}
    spare_id = str(setup.queries[2].pk)
    assert set(beir[spare_id]["metadata"]["provenance"].values()) == {"machine"}
    # TREC qrels have no column for it: the grades are there, unmarked (docs/formats.md).
    qrels = body("trec").decode().splitlines()
    assert len(qrels) == 12 and all(len(line.split()) == 4 for line in qrels)


def test_a_persons_grade_arriving_later_replaces_the_machines(personas, api_client_for):
    setup = graded_project(personas, api_client_for, humans=2, spare=1)
    spare = setup.queries[2]
    judge = _judge_everything(setup.project, grade_of=lambda c: 0)
    machine_grades_fill_gaps(project=setup.project, judge=judge, by=personas.alice)
    assert Resolution.objects.filter(candidate__query=spare, provenance="machine").count() == 4
    # The query is given to people after all; they grade it.
    queries_assign(project=setup.project, per_query=2)
    cands = setup.candidates[spare.pk]
    grade_all(api_client_for(personas.bob), setup.project, cands, [2, 2, 1, 0])
    grade_all(api_client_for(personas.carol), setup.project, cands, [2, 2, 1, 0])
    finals = dict(
        Resolution.objects.filter(candidate__query=spare).values_list("candidate_id", "grade")
    )
    assert finals == {c.pk: g for c, g in zip(cands, [2, 2, 1, 0], strict=True)}
    assert not Resolution.objects.filter(candidate__query=spare, provenance="machine").exists()
    # Filling again does not take them back.
    assert machine_grades_fill_gaps(project=setup.project, judge=judge).filled == 0
    assert MachineGrade.objects.filter(candidate__query=spare).count() == 4


def test_approved_and_flagged_queries_are_never_filled(personas, api_client_for):
    setup = graded_project(personas, api_client_for, humans=2, spare=1)
    spare = setup.queries[2]
    QueryReview.objects.create(query=spare, state=ReviewState.APPROVED)
    judge = _judge_everything(setup.project)
    result = machine_grades_fill_gaps(project=setup.project, judge=judge)
    assert result.filled == 0
    assert not Resolution.objects.filter(candidate__query=spare).exists()
