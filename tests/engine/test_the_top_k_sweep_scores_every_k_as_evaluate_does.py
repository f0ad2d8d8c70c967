"""The top-K choice: the mean of each metric at each K equals `evaluate` at that K, the score is
the weighted mean of those means, the best K is the highest score (the smallest K on a tie), and
the scenario presets and weight edits validate with readable reasons."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith import metrics as M
from tests.engine.test_metrics_properties import workloads

KS = list(range(1, 17))


@given(workloads(), st.sampled_from([1, 2]), st.sampled_from(["linear", "exp"]))
@settings(max_examples=150, deadline=None)
def test_every_mean_of_the_sweep_is_the_mean_evaluate_gives_at_that_k(w, level, gain):
    s = M.EvalSettings(relevance_threshold=level, gain=gain)
    sweep = M.topk_sweep(M.prepare(w[0], w[1]), KS, s)
    names = [f"{f}@{k}" for f in M.TOPK_FAMILIES for k in KS]
    result = M.evaluate(w[0], w[1], names, s)
    means = M.aggregate(result, samples=0)
    assert sweep.n == int(result.included.sum())
    for f in M.TOPK_FAMILIES:
        for i, k in enumerate(KS):
            want = means[f"{f}@{k}"].mean
            got = sweep.means[f][i]
            assert (math.isnan(want) and math.isnan(got)) or got == want, (f, k)


@given(workloads(), st.dictionaries(st.sampled_from(M.TOPK_FAMILIES), st.floats(0, 5)))
@settings(max_examples=150, deadline=None)
def test_the_best_k_has_the_highest_weighted_score_and_is_the_smallest_such_k(w, edits):
    try:
        weights = M.topk_weights("", edits)
    except ValueError:  # every weight edited to 0
        return
    sweep = M.topk_sweep(M.prepare(w[0], w[1]), KS, weights=weights)
    total = sum(weights.values())
    for i in range(len(KS)):
        want = sum(wt * sweep.means[f][i] for f, wt in weights.items()) / total
        assert sweep.score[i] == pytest.approx(want, abs=1e-12, nan_ok=True)
    if sweep.n == 0:
        assert sweep.best_k is None
        return
    best = KS.index(sweep.best_k)
    assert all(sweep.score[best] >= x - 1e-12 for x in sweep.score)
    assert all(x < sweep.score[best] - 1e-12 for x in sweep.score[:best])


def test_a_worked_example_where_the_scenarios_disagree():
    # One relevant chunk first for every query, three more further down: QA wants K = 1,
    # summarisation wants them all.
    judgments = {f"q{i}": {"a": 2, "b": 2, "c": 2, "d": 2} for i in range(4)}
    ranking = {f"q{i}": ["a", "x", "y", "b", "c", "d"] for i in range(4)}
    arrays = M.prepare(judgments, ranking)
    best = {
        s: M.topk_sweep(arrays, range(1, 7), weights=M.topk_weights(s)).best_k
        for s in M.TOPK_SCENARIOS
    }
    assert best["qa"] == 1
    assert best["summarisation"] == 6
    assert best["support"] == 1
    sweep = M.topk_sweep(arrays, [1, 6])
    # default: (0.4·1 + 0.3·1 + 0.2·1 + 0.1·0.25) at K=1
    assert sweep.score[0] == pytest.approx(0.4 + 0.3 + 0.2 + 0.1 * 0.25)
    assert sweep.means["recall"] == (0.25, 1.0)
    assert sweep.means["precision"][1] == pytest.approx(4 / 6)


def test_a_tie_goes_to_the_smaller_k():
    # Nothing relevant beyond rank 1 and precision has no weight: K = 1..3 score the same.
    arrays = M.prepare({"q": {"a": 2}}, {"q": ["a", "x", "y"]})
    sweep = M.topk_sweep(arrays, [1, 2, 3], weights={"mrr": 1.0, "recall": 1.0})
    assert sweep.score == (1.0, 1.0, 1.0)
    assert sweep.best_k == 1


def test_no_scored_query_gives_no_best_k():
    sweep = M.topk_sweep(M.prepare({"q": {"a": 0}}, {"q": ["a"]}), [1, 2])
    assert sweep.n == 0 and sweep.best_k is None
    assert all(math.isnan(x) for x in sweep.score)


def test_many_cut_offs_are_evaluated_a_few_at_a_time_with_the_same_means(monkeypatch):
    rng = np.random.default_rng(3)
    judgments = {f"q{q}": {f"d{i}": int(rng.integers(0, 3)) for i in range(30)} for q in range(20)}
    ranking = {q: [f"d{i}" for i in rng.permutation(40)] for q in judgments}
    arrays = M.prepare(judgments, ranking)
    whole = M.topk_sweep(arrays, range(1, 41))
    monkeypatch.setattr(M, "_BLOCK_CELLS", 20 * 7 * 3)  # three Ks per evaluate call
    parts = M.topk_sweep(arrays, range(1, 41))
    assert parts.means == whole.means and parts.score == whole.score
    assert parts.best_k == whole.best_k


def test_every_scenario_keeps_a_share_on_precision_so_the_largest_k_does_not_always_win():
    for scenario in M.TOPK_SCENARIOS.values():
        assert scenario.weights.get("precision", 0) > 0, scenario.key
        assert set(scenario.weights) <= set(M.TOPK_FAMILIES)
        assert scenario.why
    assert M.topk_weights() == {"mrr": 0.4, "ndcg": 0.3, "precision": 0.2, "recall": 0.1}
    assert M.topk_weights("") == M.topk_weights("default")


def test_weight_edits_lay_over_the_scenario_and_a_zero_drops_a_metric():
    assert M.topk_weights("qa", {"recall": 0, "hit": 0.5}) == {
        "mrr": 0.45,
        "precision": 0.3,
        "ndcg": 0.15,
        "hit": 0.5,
    }


@pytest.mark.parametrize(
    ("scenario", "edits", "reason"),
    [
        ("chat", {}, "unknown top-K scenario 'chat'"),
        ("", {"pass": 0.3}, "unknown metric 'pass'"),
        ("", {"mrr": -1}, "must be finite and ≥ 0"),
        ("", {"mrr": float("nan")}, "must be finite"),
        ("", {"mrr": "lots"}, "is not a number"),
        ("", dict.fromkeys(("mrr", "ndcg", "precision", "recall"), 0), "at least one positive"),
    ],
)
def test_bad_weights_are_refused_with_a_reason(scenario, edits, reason):
    with pytest.raises(ValueError, match=reason):
        M.topk_weights(scenario, edits)


@given(st.dictionaries(st.sampled_from(M.TOPK_FAMILIES), st.floats(0, 100, allow_nan=False)))
def test_written_weights_read_back_the_same(weights):
    text = M.format_topk_weights(weights)
    assert M.parse_topk_weights(text) == pytest.approx(weights, rel=1e-5)


@pytest.mark.parametrize(
    ("text", "reason"),
    [("mrr", "written metric=weight"), ("mrr=x", "not a number"), ("foo=1", "unknown metric")],
)
def test_unreadable_weights_say_why(text, reason):
    with pytest.raises(ValueError, match=reason):
        M.parse_topk_weights(text)


def test_the_sweep_looks_at_every_k_up_to_30_then_a_coarser_grid_never_past_the_depth():
    assert M.sweep_ks(10) == tuple(range(1, 11))
    assert M.sweep_ks(100, extra=(42, 500)) == (*range(1, 31), 40, 42, 50, 75, 100)
    assert M.sweep_ks(1000)[-4:] == (300, 500, 750, 1000)
    assert M.sweep_ks(33) == (*range(1, 31), 33)
