"""Every run gets a verdict, with or without a baseline: pass (mean recall and pass rate reach
their targets), warn (between floors and targets), fail (below a floor). It is stored on the
run, in the report JSON, the API and the run page, and `run_evaluation` exits 3 on it."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from django.core.management import CommandError, call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation.services.settings import evaluation_settings_update
from goldsmith import bands, verdicts
from goldsmith.bands import Targets
from tests.evaluation.conftest import make_golden
from tests.evaluation.run_files import run_with
from tests.evaluation.test_the_run_pages_show_progress_report_and_comparison import login

RANK = {"pass": 0, "warn": 1, "fail": 2}
# 20 queries: mean recall 0.875, pass rate 0.75 — between the enterprise floors and targets.
WARN = [1.0] * 15 + [0.5] * 5
PASS = [1.0] * 20
FAIL = [0.5] * 20  # mean recall 0.5, pass rate 0


@pytest.mark.parametrize("key", list(bands.PRESETS))
def test_each_preset_passes_at_its_targets_warns_at_its_floors_and_fails_below(key):
    t = bands.preset(key).targets
    assert verdicts.verdict_of(t.recall_target, t.pass_rate_target, t) == "pass"
    assert verdicts.verdict_of(t.recall_target - 0.001, t.pass_rate_target, t) == "warn"
    assert verdicts.verdict_of(t.recall_target, t.pass_rate_target - 0.001, t) == "warn"
    assert verdicts.verdict_of(t.recall_floor, t.pass_rate_floor, t) == "warn"
    assert verdicts.verdict_of(t.recall_floor - 0.001, 1.0, t) == "fail"
    assert verdicts.verdict_of(1.0, t.pass_rate_floor - 0.001, t) == "fail"


def test_a_mean_that_reaches_a_target_only_up_to_float_rounding_still_reaches_it():
    t = bands.preset("enterprise").targets
    assert verdicts.verdict_of(0.7999999999999999, 0.8, t) == "pass"
    assert verdicts.verdict_of(0.6999999999999998, 0.8, t) == "warn"


def test_a_run_with_nothing_scored_fails():
    t = bands.preset("enterprise").targets
    assert verdicts.verdict_of(float("nan"), float("nan"), t) == "fail"


targets = st.tuples(
    st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1)
).map(
    lambda v: Targets(
        recall_target=max(v[0], v[1]),
        recall_floor=min(v[0], v[1]),
        pass_threshold=v[2],
        pass_rate_target=max(v[3], v[4]),
        pass_rate_floor=min(v[3], v[4]),
    )
)
unit = st.floats(0, 1)


@settings(max_examples=500, deadline=None)
@given(targets, unit, unit, unit, unit)
def test_the_verdict_never_gets_worse_when_recall_or_pass_rate_rises(t, r1, r2, p1, p2):
    low = verdicts.verdict_of(min(r1, r2), min(p1, p2), t)
    high = verdicts.verdict_of(max(r1, r2), max(p1, p2), t)
    assert RANK[high] <= RANK[low]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=1, max_size=50), st.integers(1, 50))
def test_the_verdict_follows_the_exact_means(twentieths, passing):
    """Means made of twentieths: float rounding never moves a run across a target or floor."""
    n = len(twentieths)
    passing = min(passing, n)
    recall = sum(x / 20 for x in twentieths) / n
    pass_rate = passing / n
    exact_r, exact_p = Fraction(sum(twentieths), 20 * n), Fraction(passing, n)
    t = bands.preset("enterprise").targets
    target, floor = Fraction(8, 10), Fraction(7, 10)
    if exact_r < floor or exact_p < floor:
        expected = "fail"
    elif exact_r >= target and exact_p >= target:
        expected = "pass"
    else:
        expected = "warn"
    assert verdicts.verdict_of(recall, pass_rate, t) == expected


# --------------------------------------------------------------------------------------------
# Through the app


@pytest.fixture
def golden(personas):
    return make_golden(personas.project, n=20, label="v1")


@pytest.mark.django_db
def test_a_run_without_a_baseline_gets_a_verdict_everywhere(
    personas, golden, tmp_path, client, api_client_for
):
    run = run_with(personas.project, golden.version, WARN, tmp_path)
    assert run.headline_k == 5 and 5 in run.ks
    assert run.verdict == "warn"
    v = run.report["verdict"]
    assert v["verdict"] == "warn" and v["k"] == 5 and v["queries"] == 20
    assert v["recall"]["mean"] == pytest.approx(0.875) and v["recall"]["band"] == "good"
    assert v["pass_rate"]["mean"] == pytest.approx(0.75) and v["pass_rate"]["band"] == "fair"
    assert "pass rate 75% (Recall@5 ≥ 0.7) is below its target 80%" in v["summary"]
    assert "drift" not in run.report  # no baseline: a verdict, and no drift

    api = api_client_for(personas.victor)
    data = api.get(f"/api/v1/projects/{personas.project.pk}/runs/{run.pk}/").json()
    assert data["verdict"] == "warn" and data["headline_k"] == 5
    assert data["verdict_detail"] == v and data["drift"] is None
    report = api.get(f"/api/v1/projects/{personas.project.pk}/runs/{run.pk}/report/").json()
    assert report["verdict"]["verdict"] == "warn"

    login(client, personas.victor)
    base = f"/projects/{personas.project.pk}/runs/{run.pk}/"
    page = client.get(base).content.decode()
    assert "Verdict:" in page and "warn — above the floors, below a target" in page
    assert client.get(base + "report.json").json()["report"]["verdict"] == v
    runs_page = client.get(f"/projects/{personas.project.pk}/runs/").content.decode()
    assert "verdict-warn" in runs_page


@pytest.mark.django_db
def test_the_verdict_uses_the_projects_own_targets_and_floors(personas, golden, tmp_path):
    evaluation_settings_update(project=personas.project, min_pass_rate=0.75, pass_rate_floor=0.6)
    assert run_with(personas.project, golden.version, WARN, tmp_path).verdict == "pass"
    evaluation_settings_update(
        project=personas.project, preset="strict", min_pass_rate=None, pass_rate_floor=None
    )
    # Strict: recall 0.875 is below its 0.90 target; the pass threshold is 0.9 now, so only
    # the 15 perfect queries pass (75 % < the 80 % floor).
    run = run_with(personas.project, golden.version, WARN, tmp_path)
    assert run.pass_threshold == 0.9 and run.verdict == "fail"


@pytest.mark.django_db
def test_a_pass_threshold_of_zero_set_for_the_project_is_the_runs_threshold(
    personas, golden, tmp_path
):
    # 0 is a threshold a lead may choose (every query with a figure passes), not "unset".
    evaluation_settings_update(project=personas.project, pass_threshold=0.0)
    run = run_with(personas.project, golden.version, WARN, tmp_path)
    assert run.pass_threshold == 0.0
    assert run.report["verdict"]["pass_rate"]["mean"] == pytest.approx(1.0)


def evaluate(capsys, *extra: str) -> tuple[int, str, str]:
    try:
        call_command(
            "run_evaluation",
            "--project=Acme Support",
            "--version=v1",
            "--retriever=files",
            "--inline",
            *extra,
        )
    except CommandError as error:
        out, err = capsys.readouterr()
        return error.returncode, out, str(error)
    out, err = capsys.readouterr()
    return 0, out, err


def upload(personas, golden, tmp_path, recalls):
    """The retriever's next run file (and a first run to create the retriever)."""
    return run_with(personas.project, golden.version, recalls, tmp_path)


@pytest.mark.django_db
def test_run_evaluation_exits_3_on_a_fail_and_0_on_a_warn(personas, golden, tmp_path, capsys):
    upload(personas, golden, tmp_path, FAIL)
    code, out, err = evaluate(capsys)
    assert code == 3
    assert "verdict fail (gate: fail)" in err and "below its floor" in err
    assert "Fail: the run is below a floor" in out

    upload(personas, golden, tmp_path, WARN)
    code, out, err = evaluate(capsys)
    assert code == 0, err
    assert "Warn: the run is above its floors but below a target" in out


@pytest.mark.django_db
def test_gate_warn_makes_a_warn_fail_ci_and_json_carries_the_verdict(
    personas, golden, tmp_path, capsys
):
    upload(personas, golden, tmp_path, WARN)
    code, _out, err = evaluate(capsys, "--gate", "warn")
    assert code == 3 and "verdict warn (gate: warn)" in err
    code, out, _ = evaluate(capsys, "--gate", "warn", "--format", "json")
    assert code == 3 and json.loads(out)["verdict"]["verdict"] == "warn"

    upload(personas, golden, tmp_path, PASS)
    code, out, err = evaluate(capsys, "--gate", "warn", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["verdict"]["verdict"] == "pass"
