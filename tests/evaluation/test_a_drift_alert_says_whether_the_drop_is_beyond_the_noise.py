"""Every drop is tested for significance: a paired randomization test on the queries scored in
both runs, with its p-value and the CI of the mean difference. A 0.05 drop on 20 queries is
"within noise"; the label reaches the run page, the API, the alert and the webhook."""

from __future__ import annotations

import numpy as np
import pytest

from evaluation.api.runs import DriftOutput, VerdictOutput
from evaluation.models import DriftAlert, EvaluationRun
from evaluation.services.reports import evaluation_alert_notify
from evaluation.services.retrievers import evaluation_settings_update
from evaluation.services.runs import baseline_set
from goldsmith import bands, verdicts
from tests.engine.test_drift_rules_fire_beyond_their_tolerance import result
from tests.evaluation.conftest import make_golden
from tests.evaluation.run_files import run_with
from tests.evaluation.test_the_run_pages_show_progress_report_and_comparison import login


def test_a_005_drop_on_20_queries_is_within_noise():
    before = result([1.0] * 20)
    now = result([1.0] * 19 + [0.0])
    sig = verdicts.significance(now, before, "recall@5")
    assert sig["n"] == 20 and sig["diff"] == pytest.approx(-0.05)
    assert sig["p_value"] > 0.5 and sig["beyond_noise"] is False
    assert sig["words"].startswith("within noise: recall@5 -0.050 on the 20 queries")
    assert sig["ci_low"] <= -0.05 <= sig["ci_high"] <= 0.0


def test_a_drop_on_most_queries_is_beyond_the_noise():
    before = result([1.0] * 20)
    now = result([0.5] * 18 + [1.0] * 2)
    sig = verdicts.significance(now, before, "recall@5")
    assert sig["p_value"] < 0.001 and sig["beyond_noise"] is True
    assert sig["ci_high"] < 0  # the interval of the change excludes 0
    assert sig["words"].startswith("beyond the noise")


def test_only_queries_scored_in_both_runs_are_paired_whatever_their_order():
    before = result([1.0, 0.0, 0.5, 1.0])
    now_values = [0.0, 0.5, 1.0]  # q000..q002, listed backwards below
    now = result(now_values)
    reordered = type(now)(
        **{
            **now.__dict__,
            "query_ids": now.query_ids[::-1],
            "values": now.values[::-1].copy(),
        }
    )
    a = verdicts.significance(now, before, "recall@5")
    b = verdicts.significance(reordered, before, "recall@5")
    assert a == b and a["n"] == 3
    assert a["diff"] == pytest.approx(np.mean([0.0 - 1.0, 0.5 - 0.0, 1.0 - 0.5]))


def test_the_alert_message_carries_the_label():
    out = verdicts.assess(
        result([1.0] * 18 + [0.0] * 2),
        k=5,
        targets=bands.Targets(),
        baseline=result([1.0] * 20),
    )
    fired = {f["rule"]: f for f in out["drift"]["fired"]}
    assert set(fired) == {"max_recall_drop"}  # 0.10 > 0.05; the pass rate drop is exactly 0.10
    assert fired["max_recall_drop"]["significance"]["beyond_noise"] is False
    assert (
        "— within noise: recall@5 -0.100 on the 20 queries" in fired["max_recall_drop"]["message"]
    )
    assert out["verdict"]["verdict"] == "pass"  # 0.90 and 90 % still meet the targets


@pytest.mark.django_db
def test_the_label_reaches_the_page_the_api_and_the_webhook(
    personas, tmp_path, client, api_client_for, monkeypatch
):
    golden = make_golden(personas.project, n=20, label="v1")
    evaluation_settings_update(project=personas.project, webhook_url="https://hooks.invalid/x")
    base = run_with(personas.project, golden.version, [1.0] * 20, tmp_path)
    baseline_set(run=base)
    run = run_with(personas.project, golden.version, [1.0] * 18 + [0.0] * 2, tmp_path)

    alert = DriftAlert.objects.get(run=run)
    (recall_drop,) = alert.fired
    assert recall_drop["rule"] == "max_recall_drop"
    assert recall_drop["significance"]["beyond_noise"] is False
    assert 0 < recall_drop["significance"]["p_value"] <= 1

    api = api_client_for(personas.victor)
    data = api.get(f"/api/v1/projects/{personas.project.pk}/runs/{run.pk}/").json()
    assert set(data["drift"]) == set(DriftOutput().fields)  # the schema says what comes
    assert set(data["verdict_detail"]) == set(VerdictOutput().fields)
    assert data["drift"]["fired"][0]["significance"] == recall_drop["significance"]
    assert data["drift"]["significance"]["pass@5"]["diff"] == pytest.approx(-0.10)

    login(client, personas.victor)
    page = client.get(f"/projects/{personas.project.pk}/runs/{run.pk}/").content.decode()
    assert "within noise" in page and "Against baseline run" in page

    sent = []
    monkeypatch.setattr(
        "goldsmith.retrievers.http.post_json",
        lambda url, payload, policy: sent.append((url, payload)) or 200,
    )
    assert evaluation_alert_notify(alert_id=alert.pk) == "HTTP 200"
    (url, payload) = sent[0]
    assert url == "https://hooks.invalid/x"
    assert payload["verdict"] == "pass" and payload["comparable"] is True
    assert payload["fired"][0]["significance"]["words"].startswith("within noise")
    assert set(payload["significance"]) == {"recall@5", "pass@5"}


@pytest.mark.django_db
def test_a_drift_stored_before_significance_existed_is_served_in_the_same_shape(
    personas, tmp_path, api_client_for
):
    golden = make_golden(personas.project, n=20, label="v1")
    run = run_with(personas.project, golden.version, [1.0] * 20, tmp_path)
    old = {
        "baseline_run": run.pk,
        "fired": [
            {"rule": "min_recall", "value": 0.5, "limit": 0.7, "baseline": None, "message": "m"}
        ],
        "changed": ["corpus"],
        "newly_failing": [],
    }
    EvaluationRun.objects.filter(pk=run.pk).update(report={**run.report, "drift": old})
    api = api_client_for(personas.victor)
    data = api.get(f"/api/v1/projects/{personas.project.pk}/runs/{run.pk}/").json()
    assert set(data["drift"]) == set(DriftOutput().fields)
    assert data["drift"]["comparable"] is True and data["drift"]["fired"][0]["significance"] is None
