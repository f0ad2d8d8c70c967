"""A run is compared with its baseline only at the same headline K, relevance threshold,
matching mode and pass threshold. Otherwise the report says what changed in plain words
("top-K 5 → 20") and the drop rules are not applied across it; the floors still are."""

from __future__ import annotations

import pytest

from evaluation.models import DriftAlert, EvaluationRun
from evaluation.services.reports import run_settings
from evaluation.services.retrievers import evaluation_settings_update
from evaluation.services.runs import baseline_set
from goldsmith import reporting
from tests.evaluation.conftest import make_golden
from tests.evaluation.run_files import run_with
from tests.evaluation.test_the_run_pages_show_progress_report_and_comparison import login

GOOD = [1.0] * 20
WORSE = [1.0] * 12 + [0.5] * 8  # recall 0.80 (a 0.20 drop), pass rate 0.60 (a 0.40 drop)


@pytest.fixture
def golden(personas):
    return make_golden(personas.project, n=20, label="v1")


@pytest.fixture
def baseline(personas, golden, tmp_path):
    run = run_with(personas.project, golden.version, GOOD, tmp_path)
    baseline_set(run=run)
    return run


@pytest.mark.django_db
def test_the_same_settings_are_compared_and_the_drops_fire(personas, golden, baseline, tmp_path):
    run = run_with(personas.project, golden.version, WORSE, tmp_path)
    drift = run.report["drift"]
    assert drift["comparable"] is True and drift["settings_changed"] == []
    assert drift["baseline"] == {"recall": 1.0, "pass_rate": 1.0}
    rules = {f["rule"] for f in drift["fired"]}
    assert rules == {"max_recall_drop", "max_pass_rate_drop", "min_pass_rate"}
    assert DriftAlert.objects.get(run=run).baseline_run_id == baseline.pk


@pytest.mark.django_db
def test_a_different_headline_k_is_reported_and_no_drop_rule_fires(
    personas, golden, baseline, tmp_path, client
):
    evaluation_settings_update(project=personas.project, headline_k=20)
    run = run_with(personas.project, golden.version, WORSE, tmp_path)
    assert run.headline_k == 20 and 20 in run.ks
    drift = run.report["drift"]
    assert drift["comparable"] is False
    assert [c["words"] for c in drift["settings_changed"]] == ["top-K 5 → 20"]
    assert drift["note"].startswith("changed since the baseline: top-K 5 → 20")
    assert drift["baseline"] is None and drift["significance"] == {}
    # The drops are not applied across the change; the floor still is (pass rate 0.60).
    assert {f["rule"] for f in drift["fired"]} == {"min_pass_rate"}
    login(client, personas.victor)
    page = client.get(f"/projects/{personas.project.pk}/runs/{run.pk}/").content.decode()
    assert "Changed since the baseline: top-K 5 → 20" in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("create", "words"),
    [
        ({"pass_threshold": 0.5}, "pass threshold Recall@K ≥ 0.7 → Recall@K ≥ 0.5"),
        ({"relevance_threshold": 1}, "relevance threshold grade ≥ 2 → grade ≥ 1"),
        ({"matching": "document"}, "matching by chunk → by document"),
    ],
)
def test_each_other_setting_that_changed_is_named(
    personas, golden, baseline, tmp_path, create, words
):
    run = run_with(personas.project, golden.version, GOOD, tmp_path, **create)
    drift = run.report["drift"]
    assert drift["comparable"] is False
    assert [c["words"] for c in drift["settings_changed"]] == [words]
    assert not any(f["rule"].startswith("max_") for f in drift["fired"])


@pytest.mark.django_db
def test_what_changed_in_the_data_is_still_listed(personas, golden, baseline, tmp_path):
    other = make_golden(personas.project, n=20, label="v2")
    run = run_with(personas.project, other.version, WORSE, tmp_path)
    assert run.report["drift"]["changed"] == ["golden_set", "retriever_config"]


@pytest.mark.django_db
def test_a_run_keeps_the_projects_headline_k_and_measures_it(personas, golden, tmp_path):
    evaluation_settings_update(project=personas.project, headline_k=7)
    run = run_with(personas.project, golden.version, GOOD, tmp_path, ks=[3, 10])
    assert run.headline_k == 7 and run.ks == [3, 7, 10]
    assert run.report["settings"]["headline_k"] == 7
    assert "recall@7" in run.report["aggregate"] and run.report["verdict"]["k"] == 7
    evaluation_settings_update(project=personas.project, headline_k=5)
    run.refresh_from_db()
    assert run.headline_k == 7  # a snapshot: later edits do not change a run


def test_runs_from_before_the_headline_k_keep_their_old_headline():
    assert reporting.RunSettings(ks=(5, 10, 20)).headline_k == 10
    assert reporting.RunSettings(ks=(3, 20)).headline_k == 20
    assert reporting.RunSettings(ks=(3, 20), headline=5).headline_k == 5
    assert "recall@5" in reporting.RunSettings(ks=(3, 20), headline=5).metric_names()


@pytest.mark.django_db
def test_an_old_run_without_a_headline_k_is_read_at_its_old_one(personas, golden, tmp_path):
    run = run_with(personas.project, golden.version, GOOD, tmp_path, ks=[5, 10])
    EvaluationRun.objects.filter(pk=run.pk).update(headline_k=None)
    run.refresh_from_db()
    assert run_settings(run).headline_k == 10
