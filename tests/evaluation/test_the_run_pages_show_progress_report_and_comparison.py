"""The run pages: the report with bands and diagnosis, downloads, comparison, trend, and the
one permission layer (404 for outsiders, 403 for viewers on lead actions)."""

from __future__ import annotations

import csv
import io

import pytest

from evaluation.models import Baseline, DriftAlert
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import (
    baseline_set,
    evaluation_run_create,
    evaluation_run_execute_inline,
)
from tests.conftest import PASSWORD
from tests.evaluation.conftest import make_golden


@pytest.fixture
def two_runs(personas, private_urls, stub_factory):
    golden = make_golden(personas.project, n=16)
    good = stub_factory(golden.answers)
    worse = {q: ids[::-1][:2] for q, ids in golden.answers.items()}
    bad = stub_factory(worse)
    runs = []
    for name, stub in (("good", good), ("bad", bad)):
        r = retriever_save(project=personas.project, name=name, kind="http", config=stub.config())
        run = evaluation_run_create(
            project=personas.project, retriever=r, version=golden.version, enqueue=False
        )
        runs.append(evaluation_run_execute_inline(run_id=run.pk))
    return runs


def login(client, user):
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.mark.django_db
def test_a_viewer_reads_the_report_and_downloads_it(personas, two_runs, client):
    run = two_runs[0]
    login(client, personas.victor)
    base = f"/projects/{personas.project.pk}/runs/{run.pk}/"
    page = client.get(base).content.decode()
    for text in (
        "Recall@K curve",
        "Per-query Recall@5",  # the headline K: the project's, 5 by default
        "By category",
        "Low-recall queries",
        "Judged@5",
        "Verdict:",
        "Latency",
        "<svg",
        "band-",
    ):
        assert text in page, text
    assert "Make this the baseline" not in page  # a lead's action
    rows = list(csv.DictReader(io.StringIO(client.get(base + "report.csv").content.decode())))
    assert len(rows) == 16 and "recall@10" in rows[0]
    data = client.get(base + "report.json").json()
    assert data["report"]["aggregate"]["recall@10"] == run.report["aggregate"]["recall@10"]
    assert client.post(base + "baseline/").status_code == 403


@pytest.mark.django_db
def test_an_outsider_sees_nothing(personas, two_runs, client):
    login(client, personas.mallory)
    run = two_runs[0]
    for url in (
        f"/projects/{personas.project.pk}/runs/",
        f"/projects/{personas.project.pk}/runs/{run.pk}/",
        f"/api/v1/projects/{personas.project.pk}/runs/{run.pk}/report/",
    ):
        assert client.get(url).status_code == 404, url


@pytest.mark.django_db
def test_the_comparison_shows_differences_with_p_values(personas, two_runs, client):
    a, b = two_runs
    login(client, personas.victor)
    page = client.get(f"/projects/{personas.project.pk}/runs/compare/?a={a.pk}&b={b.pk}")
    text = page.content.decode()
    assert page.status_code == 200
    assert "p (Holm)" in text and "win / tie / loss" in text and "<svg" in text
    api = client.get(f"/api/v1/projects/{personas.project.pk}/runs/compare/?a={a.pk}&b={b.pk}")
    recall = next(m for m in api.json()["metrics"] if m["metric"] == "recall@10")
    assert recall["diff"] < 0 and recall["losses"] > 0


@pytest.mark.django_db
def test_a_worse_run_after_the_baseline_raises_a_drift_alert(personas, two_runs, client):
    good, _bad = two_runs
    baseline_set(run=good)
    retriever = good.retriever
    retriever.config = {**retriever.config, "url": retriever.config["url"]}
    worse = {f"q{i}": [] for i in range(1, 17)}  # the same retriever now finds nothing
    from tests.evaluation.retriever_stub import StubRetriever

    empty = StubRetriever(worse).start()
    try:
        retriever.config = {**retriever.config, "url": f"{empty.url}/search"}
        retriever.save()
        run = evaluation_run_create(
            project=personas.project, retriever=retriever, version=good.version, enqueue=False
        )
        run = evaluation_run_execute_inline(run_id=run.pk)
    finally:
        empty.stop()
    alert = DriftAlert.objects.get(run=run)
    assert {f["rule"] for f in alert.fired} >= {"max_recall_drop", "min_recall"}
    assert alert.changed == ["retriever_config"]
    assert Baseline.objects.get(retriever=retriever).run == good
    login(client, personas.alice)
    page = client.get(f"/projects/{personas.project.pk}/runs/{run.pk}/").content.decode()
    assert "Drift against baseline run" in page and "configuration" in page
    runs_page = client.get(f"/projects/{personas.project.pk}/runs/").content.decode()
    assert "Drift alerts" in runs_page
    trend = client.get(f"/projects/{personas.project.pk}/retrievers/{retriever.pk}/")
    assert "baseline" in trend.content.decode()


@pytest.mark.django_db
def test_a_lead_adds_a_builtin_retriever_from_the_page(personas, client):
    login(client, personas.alice)
    response = client.post(
        f"/projects/{personas.project.pk}/retrievers/",
        {
            "name": "bm25 baseline",
            "kind": "bm25",
            "method": "POST",
            "id_field": "id",
            "timeout": 10,
            "max_concurrency": 4,
            "retries": 3,
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    login(client, personas.bob)
    denied = client.post(
        f"/projects/{personas.project.pk}/retrievers/",
        {
            "name": "x",
            "kind": "bm25",
            "method": "POST",
            "id_field": "id",
            "timeout": 10,
            "max_concurrency": 4,
            "retries": 3,
        },
    )
    assert denied.status_code == 403
