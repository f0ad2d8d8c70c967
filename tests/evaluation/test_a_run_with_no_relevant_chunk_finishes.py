"""A version whose chunks are all "partially relevant" (grade 1), run at the strict threshold 2,
has no relevant chunk anywhere: every binary mean is undefined. The run still finishes; its
report stores those means as null, says "no relevant chunk" and holds no NaN anywhere (not
even in a sentence); and a run whose finish fails for any reason ends as failed with the
reason, never "running" at 100% for ever."""

from __future__ import annotations

import json
import math
import re

import pytest

from annotation.services.goldsets import LoadedGoldset, golden_set_version_import
from evaluation.models import EvaluationRun, RunState
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import (
    baseline_set,
    evaluation_run_create,
    evaluation_run_execute_inline,
)
from goldsmith.formats.goldset import GoldenQuery, GoldJudgment
from tests.conftest import wait_for
from tests.evaluation.conftest import make_golden


def _partial_only_version(project, n: int):
    """n queries whose judged chunks are grade 1 only; the stub returns them first."""
    queries = [
        GoldenQuery(
            query_id=f"q{i}",
            query=f"question number {i}",
            judgments=(GoldJudgment(f"p{i}", 1), GoldJudgment(f"pp{i}", 1)),
            category=f"cat{i % 2}",
            stratum="head" if i % 2 else "tail",
        )
        for i in range(1, n + 1)
    ]
    loaded = LoadedGoldset(queries=queries, header=None, corpus=None, source_name="partial.jsonl")
    version = golden_set_version_import(project=project, by=None, loaded=loaded, fmt="jsonl")
    answers = {f"q{i}": [f"p{i}", f"u{i}", f"pp{i}"] for i in range(1, n + 1)}
    return version, answers


def _stub_with_a_baseline(project, stub_factory, n: int):
    """A stub retriever whose baseline is a run on an ordinary version; then the partial-only
    version (same settings, so its drift is compared)."""
    golden = make_golden(project, n=4)
    version, answers = _partial_only_version(project, n)
    stub = stub_factory({**golden.answers, **answers})
    retriever = retriever_save(project=project, name="stub", kind="http", config=stub.config())
    first = evaluation_run_create(
        project=project, retriever=retriever, version=golden.version, enqueue=False
    )
    first = evaluation_run_execute_inline(run_id=first.pk)
    assert first.state == RunState.SUCCEEDED, first.error
    baseline_set(run=first)
    return retriever, version


def _texts_and_floats(value, texts, floats):
    if isinstance(value, float):
        floats.append(value)
    elif isinstance(value, str):
        texts.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            texts.append(str(k))
            _texts_and_floats(v, texts, floats)
    elif isinstance(value, list):
        for v in value:
            _texts_and_floats(v, texts, floats)
    return texts, floats


def _assert_no_nan(report: dict, n: int) -> None:
    texts, floats = _texts_and_floats(report, [], [])
    assert all(math.isfinite(f) for f in floats)
    json.dumps(report, allow_nan=False)  # strict JSON all the way down
    nan_words = [t for t in texts if re.search(r"\bnan\b", t, re.IGNORECASE)]
    assert not nan_words
    assert report["counts"]["no_relevant"] == n
    assert report["aggregate"]["recall@5"] == {
        "mean": None,
        "ci_low": None,
        "ci_high": None,
        "n": 0,
    }
    assert report["verdict"]["recall"]["mean"] is None
    assert report["drift"]["current"]["recall"] is None
    assert any("no relevant chunk" in f["message"] for f in report["drift"]["fired"])


def _page_text(client, user, project, run) -> str:
    client.force_login(user)
    response = client.get(f"/projects/{project.pk}/runs/{run.pk}/")
    assert response.status_code == 200
    return " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())


@pytest.mark.django_db
def test_an_inline_run_with_no_relevant_chunk_finishes_and_says_so(
    personas, private_urls, stub_factory, api_client_for, client
):
    project = personas.project
    retriever, version = _stub_with_a_baseline(project, stub_factory, n=6)
    run = evaluation_run_create(
        project=project,
        retriever=retriever,
        version=version,
        relevance_threshold=2,
        batch_size=4,
        enqueue=False,
    )
    run = evaluation_run_execute_inline(run_id=run.pk)
    assert run.state == RunState.SUCCEEDED, run.error
    _assert_no_nan(run.report, 6)
    api = api_client_for(personas.victor)
    base = f"/api/v1/projects/{project.pk}/runs/{run.pk}/"
    text = _page_text(client, personas.victor, project, run)
    for get, url in (
        (api.get, base),
        (api.get, base + "report/"),
        (client.get, f"/projects/{project.pk}/runs/{run.pk}/report.json"),
        (client.get, f"/projects/{project.pk}/runs/{run.pk}/report.csv"),
    ):
        response = get(url)
        assert response.status_code == 200, (url, response.content[:500])
        assert not re.search(rb"\bnan\b", response.content, re.IGNORECASE), url
    assert not re.search(r"\bnan\b", text, re.IGNORECASE)
    assert "no relevant chunk" in text
    # the drift block says what the current means are, not an empty space after the arrow
    assert re.search(r"Mean Recall@5 [0-9.]+ → no relevant chunk", text), text


@pytest.mark.django_db
def test_a_nan_anywhere_in_the_built_report_is_stored_as_null(
    personas, private_urls, stub_factory, monkeypatch
):
    """The report is made strict JSON where it is assembled: a NaN from any corner of the
    engine (as the curve once held) is stored as null, and the run succeeds."""
    from goldsmith import reporting

    golden = make_golden(personas.project, n=4)
    stub = stub_factory(golden.answers)
    retriever = retriever_save(
        project=personas.project, name="stub", kind="http", config=stub.config()
    )
    real = reporting.build_report

    def leaky(*args, **kwargs):
        report = real(*args, **kwargs)
        report["curve"]["ndcg"][0] = math.nan
        report["latency"]["p99"] = math.inf
        report["topk"]["latency"]["n"] = -math.inf
        return report

    monkeypatch.setattr(reporting, "build_report", leaky)
    run = evaluation_run_create(
        project=personas.project, retriever=retriever, version=golden.version, enqueue=False
    )
    run = evaluation_run_execute_inline(run_id=run.pk)
    assert run.state == RunState.SUCCEEDED, run.error
    stored = EvaluationRun.objects.get(pk=run.pk).report
    assert stored["curve"]["ndcg"][0] is None
    assert stored["latency"]["p99"] is None
    assert stored["topk"]["latency"]["n"] is None


@pytest.mark.django_db
def test_a_run_report_field_refuses_nan_instead_of_storing_it(personas, private_urls, stub_factory):
    golden = make_golden(personas.project, n=2)
    stub = stub_factory(golden.answers)
    retriever = retriever_save(
        project=personas.project, name="stub", kind="http", config=stub.config()
    )
    run = evaluation_run_create(
        project=personas.project, retriever=retriever, version=golden.version, enqueue=False
    )
    with pytest.raises(ValueError, match="JSON compliant"):
        EvaluationRun.objects.filter(pk=run.pk).update(report={"mean": math.nan})


@pytest.mark.django_db
@pytest.mark.parametrize(
    "poison",
    [
        pytest.param("\x00", id="a NUL, which PostgreSQL's jsonb cannot hold"),
        pytest.param({1}, id="a value JSON cannot encode"),
    ],
)
def test_a_run_whose_report_cannot_be_saved_ends_failed_with_the_reason(
    personas, private_urls, stub_factory, monkeypatch, poison
):
    """Whatever makes the save of the finished run fail, the run does not stay running."""
    from django.db import connection

    from evaluation.services import runs

    if poison == "\x00" and connection.vendor != "postgresql":
        pytest.skip("SQLite's JSON holds a NUL; the other case covers SQLite")

    golden = make_golden(personas.project, n=3)
    stub = stub_factory(golden.answers)
    retriever = retriever_save(
        project=personas.project, name="stub", kind="http", config=stub.config()
    )
    run = evaluation_run_create(
        project=personas.project, retriever=retriever, version=golden.version, enqueue=False
    )
    real = runs.run_report

    def unsaveable(r):
        report = real(r)
        report["poison"] = poison
        return report

    monkeypatch.setattr(runs, "run_report", unsaveable)
    run = evaluation_run_execute_inline(run_id=run.pk)
    assert run.state == RunState.FAILED
    assert run.error.startswith("the report could not be saved"), run.error
    assert run.finished_at is not None
    assert run.report == {}


def test_a_run_with_no_relevant_chunk_finishes_through_a_real_worker(
    personas, private_urls, stub_factory, worker_factory, api_client_for, client
):
    project = personas.project
    retriever, version = _stub_with_a_baseline(project, stub_factory, n=8)
    worker = worker_factory()
    run = evaluation_run_create(
        project=project, retriever=retriever, version=version, relevance_threshold=2, batch_size=3
    )
    api = api_client_for(personas.victor)
    url = f"/api/v1/projects/{project.pk}/runs/{run.pk}/"

    def finished():
        body = api.get(url).json()
        return body if body["state"] in ("succeeded", "failed", "cancelled") else None

    body = wait_for(finished, timeout=120, message=f"the run to finish ({worker.output()[-3000:]})")
    assert body["state"] == RunState.SUCCEEDED, body
    run.refresh_from_db()
    _assert_no_nan(run.report, 8)
    assert "no relevant chunk" in _page_text(client, personas.victor, project, run)
