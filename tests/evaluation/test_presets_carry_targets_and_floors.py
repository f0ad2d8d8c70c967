"""Scenario presets carry a target and a floor for mean recall and pass rate, and a pass
threshold, from the field's table; bands are good ≥ target, fair from the floor, poor below.
A lead overrides targets, floors and the headline K on the evaluation settings page."""

from __future__ import annotations

import pytest

from evaluation.models import EvaluationSettings
from goldsmith import bands
from goldsmith.bands import Targets
from tests.evaluation.test_the_run_pages_show_progress_report_and_comparison import login

TABLE = {
    "strict": Targets(0.90, 0.80, 0.9, 0.90, 0.80),
    "enterprise": Targets(0.80, 0.70, 0.7, 0.80, 0.70),
    "faq": Targets(0.70, 0.60, 0.5, 0.85, 0.75),
    "messy": Targets(0.60, 0.50, 0.5, 0.70, 0.60),
}


def test_the_presets_are_the_fields_table():
    assert {k: p.targets for k, p in bands.PRESETS.items()} == TABLE
    assert bands.DEFAULT_PRESET == "enterprise"


@pytest.mark.parametrize("key", list(TABLE))
def test_bands_are_good_from_the_target_and_fair_from_the_floor(key):
    t = TABLE[key]
    table = bands.bands_for(key)
    assert table["recall"] == {"good": t.recall_target, "fair": t.recall_floor}
    assert table["pass"] == {"good": t.pass_rate_target, "fair": t.pass_rate_floor}
    assert bands.band_of("recall@5", t.recall_target, table) == "good"
    assert bands.band_of("recall@5", t.recall_target - 0.01, table) == "fair"
    assert bands.band_of("recall@5", t.recall_floor, table) == "fair"
    assert bands.band_of("recall@5", t.recall_floor - 0.01, table) == "poor"
    for family in ("hit", "mrr", "ndcg"):
        assert table[family]["good"] - table[family]["fair"] == pytest.approx(0.10)


def test_a_band_limit_reached_up_to_float_rounding_is_reached():
    table = bands.bands_for("enterprise")
    assert bands.band_of("recall@5", 0.7999999999999999, table) == "good"


def test_a_projects_edits_lay_over_its_preset():
    t = bands.targets_for("enterprise", {"recall_target": 0.85, "pass_rate_floor": None})
    assert t == Targets(0.85, 0.70, 0.7, 0.80, 0.70)
    # A target edited below the preset's floor takes the floor down with it.
    assert bands.targets_for("strict", {"recall_target": 0.6}).recall_floor == 0.6
    with pytest.raises(ValueError, match=r"recall floor 0\.9 is above its target 0\.8"):
        bands.targets_for("enterprise", {"recall_floor": 0.9})
    table = bands.bands_for("enterprise", {"recall": {"good": 0.95}}, t)
    assert table["recall"] == {"good": 0.95, "fair": 0.70}  # an explicit band edit wins


def post(client, project, **fields):
    data = {
        "preset": "enterprise",
        "headline_k": 5,
        "max_recall_drop": 0.05,
        "max_pass_rate_drop": 0.1,
        "low_recall_cutoff": 0.2,
        **fields,
    }
    return client.post(f"/projects/{project.pk}/evaluation-settings/", data)


@pytest.mark.django_db
def test_a_lead_sets_targets_floors_and_the_headline_k(personas, client):
    login(client, personas.alice)
    page = client.get(f"/projects/{personas.project.pk}/evaluation-settings/").content.decode()
    for text in ("Recall floor", "Pass-rate floor", "Headline K", "0.9 / 0.8", "0.85 / 0.75"):
        assert text in page, text
    response = post(
        client, personas.project, min_recall=0.85, recall_floor=0.75, pass_rate_floor=0.65,
        headline_k=10,
    )  # fmt: skip
    assert response.status_code == 302
    record = EvaluationSettings.objects.get(project=personas.project)
    assert (record.min_recall, record.recall_floor, record.pass_rate_floor) == (0.85, 0.75, 0.65)
    assert record.headline_k == 10
    page = client.get(f"/projects/{personas.project.pk}/evaluation-settings/").content.decode()
    assert "At the headline K = 10" in page
    assert "mean recall is below 0.75 or its pass rate below 0.65" in page


@pytest.mark.django_db
def test_a_floor_above_its_target_is_refused(personas, client):
    login(client, personas.alice)
    response = post(client, personas.project, min_pass_rate=0.6, pass_rate_floor=0.7)
    assert response.status_code == 200
    assert "the pass-rate floor 0.7 is above its target 0.6" in response.content.decode()
    assert EvaluationSettings.objects.get(project=personas.project).pass_rate_floor is None


@pytest.mark.django_db
def test_a_viewer_cannot_change_them(personas, client):
    login(client, personas.victor)
    assert post(client, personas.project, recall_floor=0.1).status_code == 403
