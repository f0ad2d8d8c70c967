"""A run of a golden set without answer keys, from a run carrying no stage (a TREC run file),
keeps the report it had before stages existed: no answer section, no quadrants, and the
per-query CSV has no answer column. The check is two cheap queries, not a read of every row."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from evaluation.selectors.goldsets import has_answer_keys
from evaluation.selectors.runs import has_stages
from evaluation.services.reports import report_csv
from tests.evaluation.conftest import make_golden
from tests.evaluation.rag_stub import make_rag_golden
from tests.evaluation.run_files import run_with


@pytest.mark.django_db
def test_a_run_without_answer_keys_or_stages_keeps_its_report(personas, tmp_path):
    golden = make_golden(personas.project, n=4)
    run = run_with(personas.project, golden.version, [1.0, 0.5, 0.0, 1.0], tmp_path)
    assert run.state == "succeeded", run.error
    with CaptureQueriesContext(connection) as queries:
        assert not has_answer_keys(version_id=golden.version.pk)
        assert not has_stages(run=run)
    assert len(queries) == 3
    assert "answers" not in run.report and "quadrants" not in run.report
    assert "answer_correctness" not in report_csv(run).splitlines()[0]
    assert has_answer_keys(version_id=make_rag_golden(personas.project).version.pk)
