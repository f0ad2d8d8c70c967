"""Pool bias: the share of a golden set's judged candidates that a retriever's own pool sources
found, and the comparison's warning when two runs' shares differ by more than 20 points."""

from __future__ import annotations

import pytest

from goldsmith import pool_bias as PB


def test_the_share_counts_each_judged_pair_once_and_ignores_pairs_never_judged():
    judged = [("q1", "c1"), ("q1", "c2"), ("q2", "c3"), ("q2", "c3"), ("q3", "c4")]
    own = [("q1", "c1"), ("q2", "c3"), ("q9", "c9")]
    share = PB.pool_share(judged, own, ["bm25", "bm25"])
    assert (share.own, share.judged, share.share) == (2, 4, 0.5)
    assert share.to_json() == {"own": 2, "judged": 4, "share": 0.5, "sources": ["bm25"]}


def test_without_judged_candidates_there_is_no_share():
    assert PB.pool_share([], [("q1", "c1")]).share is None


@pytest.mark.parametrize(
    ("a", "b", "warn"),
    [(0.5, 0.75, True), (0.5, 0.7, False), (0.7, 0.45, True), (0.0, 0.2, False)],
)
def test_two_runs_are_warned_about_when_their_shares_differ_by_more_than_20_points(a, b, warn):
    gap = PB.pool_gap({"share": a}, {"share": b})
    assert gap is not None and gap["warn"] is warn and gap["threshold"] == 20
    assert gap["gap"] == pytest.approx(b - a)


def test_a_run_without_pool_data_gets_no_comparison_rather_than_zero():
    assert PB.pool_gap(None, {"share": 0.5}) is None
    assert PB.pool_gap({"share": None}, {"share": 0.5}) is None
