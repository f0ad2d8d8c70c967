"""The metric conventions of docs/design.md, on small hand-checked cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from goldsmith import metrics as M
from goldsmith import stats

# The worked example: ten samples, expected chunks (grade 2) and what the retriever returned.
EXPECTED = {
    "s1": ["c1", "c2"],
    "s2": ["c5"],
    "s3": ["c9"],
    "s4": ["c11"],
    "s5": ["c12", "c13"],
    "s6": ["c14"],
    "s7": ["c16"],
    "s8": ["c18", "c19"],
    "s9": ["c20"],
    "s10": ["c22", "c23"],
}
RETRIEVED = {
    "s1": ["c1", "c3"],
    "s2": ["c5", "c6"],
    "s3": ["c10"],
    "s4": ["c11"],
    "s5": ["c12"],
    "s6": ["c15"],
    "s7": ["c16", "c17"],
    "s8": ["c18", "c19"],
    "s9": ["c21"],
    "s10": ["c23"],
}
JUDGED = {q: {c: 2 for c in cs} for q, cs in EXPECTED.items()}


def one(judgments: dict, results: dict, metric: str, **settings: object) -> dict[str, float]:
    r = M.evaluate(judgments, results, [metric], M.EvalSettings(**settings))  # type: ignore[arg-type]
    return {q: v[metric] for q, v in r.per_query().items()}


def test_the_worked_example_gives_recall_055_hit_070_pass_040():
    r = M.evaluate(JUDGED, RETRIEVED, ["recall@10", "hit@10", "pass@10"])
    agg = M.aggregate(r)
    assert agg["recall@10"].mean == pytest.approx(0.55)
    assert agg["hit@10"].mean == pytest.approx(0.70)
    assert agg["pass@10"].mean == pytest.approx(0.40)
    assert agg["recall@10"].n == 10


AT_10 = {"recall_metric": "recall@10", "pass_metric": "pass@10"}


def test_the_worked_example_is_below_the_enterprise_floors():
    r = M.evaluate(JUDGED, RETRIEVED, ["recall@10", "pass@10"])
    report = M.check_drift(r, rules=M.DriftRules(**AT_10))
    fired = {f.rule: f for f in report.fired}
    assert not report.ok
    assert fired["min_pass_rate"].value == pytest.approx(0.40)
    assert fired["min_pass_rate"].limit == 0.70  # the floor, not the 0.80 target
    assert fired["min_recall"].value == pytest.approx(0.55)


def test_precision_divides_by_k_even_when_fewer_results_come_back():
    assert one({"q": {"a": 2}}, {"q": ["a"]}, "precision@5") == {"q": pytest.approx(0.2)}


def test_duplicate_ids_count_once_at_their_first_position():
    j = {"q": {"a": 2, "b": 2}}
    assert one(j, {"q": ["a", "a", "b"]}, "precision@2") == {"q": 1.0}
    assert one(j, {"q": ["a", "a", "a"]}, "recall@3") == {"q": 0.5}
    assert one(j, {"q": ["x", "a", "x", "b"]}, "mrr") == {"q": 0.5}


def test_a_query_missing_from_the_run_scores_zero_and_stays_in_the_means():
    r = M.evaluate({"q1": {"a": 2}, "q2": {"b": 2}}, {"q1": ["a"]}, ["recall@5", "ndcg@5"])
    assert r.missing_from_run == ("q2",)
    assert r.per_query()["q2"] == {"recall@5": 0.0, "ndcg@5": 0.0}
    assert M.aggregate(r)["recall@5"].mean == 0.5


def test_a_query_without_a_relevant_chunk_is_left_out_and_listed():
    j = {"q1": {"a": 2}, "q2": {"b": 1, "c": 0}}
    r = M.evaluate(j, {"q1": ["a"], "q2": ["b"]}, ["recall@5"])
    assert r.no_relevant == ("q2",)
    assert "q2" not in r.per_query()
    assert M.aggregate(r)["recall@5"].n == 1


def test_the_lenient_threshold_counts_partially_relevant_chunks():
    j = {"q": {"a": 1, "b": 2}}
    assert one(j, {"q": ["a"]}, "recall@1") == {"q": 0.0}
    assert one(j, {"q": ["a"]}, "recall@1", relevance_threshold=1) == {"q": 0.5}


def test_no_relevant_zero_scores_those_queries_like_trec_eval():
    j = {"q1": {"a": 2}, "q2": {"b": 1}}
    r = M.evaluate(j, {"q1": ["a"], "q2": ["b"]}, ["recall@5"], M.EvalSettings(no_relevant="zero"))
    assert r.per_query()["q2"]["recall@5"] == 0.0
    assert M.aggregate(r)["recall@5"].mean == 0.5


def test_unjudged_chunks_count_as_not_relevant_and_show_in_judged_at_k():
    j = {"q": {"a": 2, "b": 0}}
    r = M.evaluate(j, {"q": ["x", "a", "b", "y"]}, ["precision@4", "judged@4", "judged@2"])
    assert r.per_query()["q"] == {"precision@4": 0.25, "judged@4": 0.5, "judged@2": 0.5}


def test_judged_at_k_divides_by_what_was_returned():
    assert one({"q": {"a": 2}}, {"q": ["a"]}, "judged@10") == {"q": 1.0}


def test_ndcg_takes_its_ideal_from_all_judged_grades_not_only_retrieved_ones():
    j = {"q": {"a": 1, "b": 2}}
    got = one(j, {"q": ["a"]}, "ndcg@2")["q"]
    ideal = 2 + 1 / math.log2(3)
    assert got == pytest.approx(1 / ideal)


def test_exponential_gain_uses_two_to_the_grade_minus_one():
    j = {"q": {"a": 1, "b": 2}}
    got = one(j, {"q": ["a", "b"]}, "ndcg@2", gain="exp")["q"]
    assert got == pytest.approx((1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3)))


def test_negative_grades_gain_nothing():
    got = one({"q": {"a": -1, "b": 2}}, {"q": ["a", "b"]}, "ndcg@2")["q"]
    assert got == pytest.approx((2 / math.log2(3)) / 2)


def test_map_at_k_divides_by_all_relevant_chunks():
    j = {"q": {"a": 2, "b": 2, "c": 2}}
    assert one(j, {"q": ["a", "x", "b"]}, "map@2") == {"q": pytest.approx(1 / 3)}
    assert one(j, {"q": ["a", "x", "b"]}, "map") == {"q": pytest.approx((1 + 2 / 3) / 3)}


def test_mrr_at_k_is_zero_when_the_first_hit_is_below_k():
    j = {"q": {"a": 2}}
    assert one(j, {"q": ["x", "y", "a"]}, "mrr@2") == {"q": 0.0}
    assert one(j, {"q": ["x", "y", "a"]}, "mrr@3") == {"q": pytest.approx(1 / 3)}


def test_r_precision_and_f1_follow_their_formulas():
    j = {"q": {"a": 2, "b": 2}}
    assert one(j, {"q": ["a", "x", "b"]}, "r_precision") == {"q": 0.5}
    assert one(j, {"q": ["a", "x", "b"]}, "f1@2") == {"q": pytest.approx(0.5)}


def test_pass_at_k_uses_the_pass_threshold():
    j = {"q": {"a": 2, "b": 2, "c": 2}}
    assert one(j, {"q": ["a", "b"]}, "pass@5") == {"q": 0.0}
    assert one(j, {"q": ["a", "b"]}, "pass@5", pass_threshold=0.6) == {"q": 1.0}


def test_order_score_breaks_ties_by_id_in_descending_byte_order():
    j = {"q": {"b": 2}}
    run = {"q": [("a", 1.0), ("b", 1.0), ("c", 2.0)]}
    # score order: c (2.0), then the tie a/b by id descending: b before a
    assert one(j, run, "mrr", order="score") == {"q": 0.5}
    assert one(j, run, "mrr", order="rank") == {"q": 0.5}
    assert one(j, {"q": [("a", 1.0), ("c", 1.0), ("b", 1.0)]}, "mrr", order="score") == {"q": 0.5}


def test_order_score_needs_scores():
    with pytest.raises(ValueError, match="score"):
        M.evaluate({"q": {"a": 2}}, {"q": ["a"]}, ["mrr"], M.EvalSettings(order="score"))


def test_run_queries_without_judgments_are_ignored_and_listed():
    r = M.evaluate({"q": {"a": 2}}, {"q": ["a"], "zz": ["a"]}, ["recall@1"])
    assert r.not_in_judgments == ("zz",)
    assert list(r.per_query()) == ["q"]


def test_unknown_metric_names_are_rejected_with_a_reason():
    with pytest.raises(ValueError, match="unknown metric"):
        M.parse_metric("P_5")
    with pytest.raises(ValueError, match="needs a cut-off"):
        M.parse_metric("judged")
    assert M.parse_metric("NDCG@10") == M.Metric("ndcg", 10)
    assert M.parse_metric("precision") == M.Metric("precision", None)  # trec_eval's set_P


def test_the_bootstrap_interval_is_reproducible_and_brackets_the_mean():
    r = M.evaluate(JUDGED, RETRIEVED, ["recall@10", "ndcg@10"])
    a, b = M.aggregate(r, seed=3), M.aggregate(r, seed=3)
    assert a == b
    for agg in a.values():
        assert agg.ci_low <= agg.mean <= agg.ci_high


def test_no_bootstrap_gives_nan_interval():
    agg = M.aggregate(M.evaluate(JUDGED, RETRIEVED, ["recall@10"]), samples=0)["recall@10"]
    assert math.isnan(agg.ci_low) and agg.mean == pytest.approx(0.55)


def test_weights_give_a_reweighted_mean():
    r = M.evaluate({"q1": {"a": 2}, "q2": {"b": 2}}, {"q1": ["a"]}, ["recall@1"])
    agg = M.aggregate(r, weights={"q1": 3.0, "q2": 1.0})
    assert agg["recall@1"].mean == pytest.approx(0.75)


def test_categories_get_their_own_means_and_counts():
    r = M.evaluate(JUDGED, RETRIEVED, ["recall@10"])
    cats = {q: ("even" if int(q[1:]) % 2 == 0 else "odd") for q in JUDGED}
    per = M.by_category(r, cats)
    assert per["odd"]["recall@10"].n == 5
    assert per["odd"]["recall@10"].mean == pytest.approx((0.5 + 0 + 0.5 + 1 + 0) / 5)


def test_histogram_and_low_recall_list_describe_the_distribution():
    r = M.evaluate(JUDGED, RETRIEVED, ["recall@10"])
    h = M.histogram(r, "recall@10", bins=2)
    assert h.counts == (3, 7)
    low = M.low_queries(r, "recall@10", below=0.7)
    assert [q for q, _ in low] == ["s3", "s6", "s9", "s1", "s10", "s5"]


def test_comparing_a_run_with_itself_finds_no_difference():
    r = M.evaluate(JUDGED, RETRIEVED, ["recall@10", "mrr"])
    rows = M.compare(r, r, permutations=1000)
    assert all(c.diff == 0 and c.p_randomization == 1.0 and c.p_ttest == 1.0 for c in rows)
    assert all(c.ties == 10 for c in rows)


def test_comparing_a_better_run_counts_wins_and_is_significant():
    perfect = {q: cs for q, cs in EXPECTED.items()}
    a = M.evaluate(JUDGED, RETRIEVED, ["recall@10"])
    b = M.evaluate(JUDGED, perfect, ["recall@10"])
    (row,) = M.compare(a, b, permutations=10_000, seed=1)
    assert (row.wins, row.ties, row.losses) == (6, 4, 0)
    assert row.diff == pytest.approx(0.45)
    assert row.p_randomization < 0.05 and row.p_holm == row.p_randomization
    assert 0 < row.ci_low <= row.diff <= row.ci_high


def test_holm_adjusts_step_down_and_stays_monotone():
    adj = stats.holm(np.array([0.01, 0.04, 0.03, np.nan]))
    assert adj[:3].tolist() == pytest.approx([0.03, 0.06, 0.06])
    assert np.isnan(adj[3])


def test_the_sweep_finds_the_best_k_under_the_weighted_score():
    arrays = M.prepare(JUDGED, RETRIEVED)
    sweep = M.topk_sweep(arrays, [1, 2, 3])
    assert sweep.means["recall"] == pytest.approx((0.5, 0.55, 0.55))
    assert sweep.means["precision"] == pytest.approx((0.7, 0.4, 0.8 / 3))
    assert sweep.best_k == 1
    # the default weights sum to 1, so the score is the plain weighted sum
    assert sweep.score[0] == pytest.approx(0.4 * 0.7 + 0.3 * 0.7 + 0.2 * 0.7 + 0.1 * 0.5)


def test_drift_against_a_baseline_reports_drops_and_newly_failing_queries():
    perfect = {q: cs for q, cs in EXPECTED.items()}
    base = M.evaluate(JUDGED, perfect, ["recall@10", "pass@10"])
    now = M.evaluate(JUDGED, RETRIEVED, ["recall@10", "pass@10"])
    report = M.check_drift(now, base, M.DriftRules(**AT_10))
    rules = {f.rule for f in report.fired}
    assert {"max_recall_drop", "max_pass_rate_drop", "min_recall", "min_pass_rate"} == rules
    assert set(report.newly_failing) == {"s1", "s3", "s5", "s6", "s9", "s10"}
    assert M.check_drift(base, base, M.DriftRules(**AT_10)).ok


def test_drift_rules_can_be_switched_off():
    now = M.evaluate(JUDGED, RETRIEVED, ["recall@10", "pass@10"])
    rules = M.DriftRules(**AT_10, min_recall=None, min_pass_rate=0.3)
    assert M.check_drift(now, rules=rules).ok


def test_the_column_form_gives_the_same_values_as_the_mapping_form():
    cols = M.prepare(M.judgments_from_mapping(JUDGED), M.ranking_from_mapping(RETRIEVED))
    a = M.evaluate(cols, None, ["ndcg@3", "map"]).values
    b = M.evaluate(JUDGED, RETRIEVED, ["ndcg@3", "map"]).values
    np.testing.assert_array_equal(a, b)
