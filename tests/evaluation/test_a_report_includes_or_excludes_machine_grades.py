"""A run scores a version's machine grades as judged, or, when asked, leaves them out (those
chunks count as unjudged); the report says which and how many, and two runs that score them
differently are not compared."""

from __future__ import annotations

import pytest
from django.test import Client

from annotation.models import Candidate, MachineJudgeKind
from annotation.services.adjudication import queries_approve
from annotation.services.goldsets import golden_set_version_freeze
from annotation.services.machine import (
    machine_grades_fill_gaps,
    machine_grades_store,
    machine_judge_add,
)
from evaluation.models import EvaluationRun
from evaluation.services.reports import RunInvalid, compare_report
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from tests.evaluation.judges import graded_project


@pytest.fixture
def version(personas, api_client_for):
    setup = graded_project(personas, api_client_for, humans=2, spare=1)
    judge = machine_judge_add(project=setup.project, name="stub", kind=MachineJudgeKind.KEYWORD)
    spare = setup.queries[2]
    machine_grades_store(
        judge=judge,
        grades={c.pk: (2, "all relevant") for c in Candidate.objects.filter(query=spare)},
    )
    machine_grades_fill_gaps(project=setup.project, judge=judge)
    queries_approve(project=setup.project, by=personas.alice)
    return golden_set_version_freeze(project=setup.project, by=personas.alice), spare


def _run(project, version, *, machine_grades: bool) -> EvaluationRun:
    retriever = retriever_save(project=project, name=f"bm25-{machine_grades}", kind="bm25")
    run = evaluation_run_create(
        project=project,
        retriever=retriever,
        version=version,
        ks=[5],
        machine_grades=machine_grades,
        enqueue=False,
    )
    evaluation_run_execute_inline(run_id=run.pk)
    run.refresh_from_db()
    return run


def test_the_report_says_whether_machine_grades_counted(personas, version, api_client_for):
    version, _spare = version
    assert version.counts["machine_grades"] == 4
    included = _run(personas.project, version, machine_grades=True)
    excluded = _run(personas.project, version, machine_grades=False)
    for run, word in ((included, "counted as judged"), (excluded, "left out")):
        statement = run.report["machine_grades"]
        assert statement["count"] == 4 and statement["included"] is run.machine_grades
        assert word in statement["text"]
    # The spare query's chunks are all machine-graded (grade 2): with them it is scored,
    # without them it has no relevant chunk and is counted apart.
    counts_in, counts_out = included.report["counts"], excluded.report["counts"]
    assert counts_in["included"] == 3 and counts_in["no_relevant"] == 0
    assert counts_out["included"] == 2 and counts_out["no_relevant"] == 1
    # The run page and the API state it.
    body = api_client_for(personas.alice).get(
        f"/api/v1/projects/{personas.project.pk}/runs/{excluded.pk}/"
    )
    assert body.json()["machine_grades"] is False
    # ... as a field the API's schema documents, not an extra key
    api = api_client_for(personas.alice).get("/api/schema/", HTTP_ACCEPT="application/json")
    run_shape = api.json()["components"]["schemas"]["EvaluationRunOutput"]
    assert "machine_grades" in run_shape["required"]
    assert run_shape["properties"]["machine_grades"]["type"] == "boolean"
    browser = Client()
    browser.force_login(personas.victor)
    page = browser.get(f"/projects/{personas.project.pk}/runs/{excluded.pk}/").content.decode()
    assert 'id="machine-grades"' in page and "count as unjudged" in page
    with pytest.raises(RunInvalid, match="machine grades"):
        compare_report(a=included, b=excluded)
