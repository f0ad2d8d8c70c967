"""Drift rules compare with a tolerance: a drop of exactly the limit does not fire, even when
floating point makes it a hair larger (0.90 → 0.85 is 0.05000000000000004); the absolute alarm
fires below the preset's floor, not its target."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith import metrics as M

RULES = M.DriftRules()  # recall@5 / pass@5, drops 0.05 / 0.10, floors 0.70 / 0.70


def result(recalls: list[float], passed: list[float] | None = None) -> M.EvalResult:
    """A scored run with the given per-query Recall@5 (and pass@5: recall ≥ 0.7 unless given)."""
    v = np.array(recalls, dtype=np.float64)
    p = np.array(passed, dtype=np.float64) if passed is not None else (v >= 0.7).astype(float)
    n = len(v)
    return M.EvalResult(
        settings=M.EvalSettings(),
        metrics=("recall@5", "pass@5"),
        query_ids=tuple(f"q{i:03d}" for i in range(n)),
        values=np.column_stack([v, p]),
        included=np.ones(n, dtype=bool),
        no_relevant=(),
        missing_from_run=(),
        not_in_judgments=(),
    )


def fired(current: M.EvalResult, baseline: M.EvalResult | None = None) -> set[str]:
    return {f.rule for f in M.check_drift(current, baseline, RULES).fired}


def twenty(ones: int) -> list[float]:
    """20 queries, `ones` of them with Recall@5 1.0 and the rest 0.0."""
    return [1.0] * ones + [0.0] * (20 - ones)


def test_a_recall_drop_from_090_to_085_does_not_fire_despite_float_rounding():
    before, now = result(twenty(18)), result(twenty(17))
    assert 0.9 - 0.85 > 0.05  # what made it fire before the tolerance
    assert "max_recall_drop" not in fired(now, before)


def test_the_same_drop_through_real_scoring_does_not_fire_either():
    judged = {f"q{i}": {f"c{i}": 2} for i in range(20)}
    before = M.evaluate(judged, {f"q{i}": [f"c{i}"] for i in range(18)}, ["recall@5", "pass@5"])
    now = M.evaluate(judged, {f"q{i}": [f"c{i}"] for i in range(17)}, ["recall@5", "pass@5"])
    assert float(before.column("recall@5").mean()) == 0.9
    assert float(now.column("recall@5").mean()) == 0.85
    assert "max_recall_drop" not in fired(now, before)


def test_a_recall_drop_just_beyond_005_fires():
    before = result([0.9] * 20)
    now = result([0.9] * 19 + [0.9 - 20 * 0.0501])  # the mean drops 0.0501
    assert "max_recall_drop" in fired(now, before)


def test_a_pass_rate_drop_of_exactly_010_does_not_fire():
    before = result(twenty(20), passed=[1.0] * 16 + [0.0] * 4)  # 0.80
    now = result(twenty(20), passed=[1.0] * 14 + [0.0] * 6)  # 0.70
    assert 0.8 - 0.7 > 0.1  # 0.10000000000000009
    assert "max_pass_rate_drop" not in fired(now, before)


def test_a_pass_rate_drop_beyond_010_fires():
    before = result(twenty(20), passed=[1.0] * 16 + [0.0] * 4)  # 0.80
    now = result(twenty(20), passed=[1.0] * 13 + [0.0] * 7)  # 0.65
    rules = fired(now, before)
    assert "max_pass_rate_drop" in rules and "min_pass_rate" in rules


def test_the_absolute_alarm_fires_below_the_floor_not_below_the_target():
    assert fired(result([0.75] * 10)) == set()  # below the 0.80 target, above the floor
    assert fired(result([0.70] * 10)) == set()  # at the floor
    assert fired(result([0.6999] * 10)) == {"min_recall", "min_pass_rate"}


def test_a_mean_at_the_floor_within_float_rounding_does_not_fire():
    r = result([0.6, 0.7, 0.8], passed=[1.0] * 3)  # exactly 0.7, in floats a hair below
    assert float(r.column("recall@5").mean()) < 0.7
    assert "min_recall" not in fired(r)


def test_the_messages_name_the_floor_and_the_limit():
    before, now = result([1.0] * 10), result([0.5] * 10, passed=[0.0] * 10)
    messages = {f.rule: f.message for f in M.check_drift(now, before, RULES).fired}
    assert "below the floor 0.70" in messages["min_recall"]
    assert "more than 0.05" in messages["max_recall_drop"]
    assert "more than 0.1" in messages["max_pass_rate_drop"]


quarters = st.lists(st.integers(0, 4), min_size=1, max_size=60)


@settings(max_examples=300, deadline=None)
@given(quarters, quarters)
def test_a_recall_drop_fires_exactly_when_it_is_beyond_005(before_q, now_q):
    """Per-query recalls in quarters; the exact (rational) drop decides, never float noise."""
    before = result([q / 4 for q in before_q], passed=[1.0] * len(before_q))
    now = result([q / 4 for q in now_q], passed=[1.0] * len(now_q))
    drop = Fraction(sum(before_q), 4 * len(before_q)) - Fraction(sum(now_q), 4 * len(now_q))
    assert ("max_recall_drop" in fired(now, before)) == (drop > Fraction(1, 20))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=60), st.lists(st.booleans(), min_size=1))
def test_a_pass_rate_drop_fires_exactly_when_it_is_beyond_010(before_p, now_p):
    before = result([1.0] * len(before_p), passed=[float(x) for x in before_p])
    now = result([1.0] * len(now_p), passed=[float(x) for x in now_p])
    drop = Fraction(sum(before_p), len(before_p)) - Fraction(sum(now_p), len(now_p))
    assert ("max_pass_rate_drop" in fired(now, before)) == (drop > Fraction(1, 10))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=1, max_size=60))
def test_the_recall_floor_fires_exactly_below_it(twentieths):
    r = result([x / 20 for x in twentieths], passed=[1.0] * len(twentieths))
    mean = Fraction(sum(twentieths), 20 * len(twentieths))
    assert ("min_recall" in fired(r)) == (mean < Fraction(7, 10))


def test_a_run_with_nothing_scored_is_below_every_floor():
    empty = result([])
    assert fired(empty) == {"min_recall", "min_pass_rate"}


@pytest.mark.parametrize("rule", ["max_recall_drop", "max_pass_rate_drop"])
def test_a_rule_switched_off_never_fires(rule):
    rules = M.DriftRules(**{rule: None})
    before, now = result([1.0] * 10), result([0.0] * 10)
    assert rule not in {f.rule for f in M.check_drift(now, before, rules).fired}
