"""`metrics.prepare(..., consume=True)` (what `goldsmith eval` does with the run it read) may
reorder tied results inside the run's own columns instead of in copies: it must score exactly
as a call that keeps the caller's columns, and a call without it must leave them untouched.
Scores drawn from a few values make ties, which trec_eval orders by id, the case that moves
rows inside a query."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith import metrics as M

ids = st.text(alphabet="ab中1_", min_size=1, max_size=6)
lists = st.dictionaries(
    st.sampled_from(["q1", "q2", "查询3"]),
    st.lists(st.tuples(ids, st.sampled_from([0.5, 1.0, 2.0])), max_size=12),
    min_size=1,
)
grades = st.dictionaries(
    st.sampled_from(["q1", "q2", "查询3", "q4"]),
    st.dictionaries(ids, st.integers(0, 2), min_size=1, max_size=6),
    min_size=1,
)


def _columns(run: dict[str, list[tuple[str, float]]], with_hash: bool) -> M.RankingColumns:
    cols = M.ranking_from_mapping(run)
    if with_hash:
        cols = M.RankingColumns(**{**vars(cols), "id_hash": M.id_hash(cols.ids)})
    return cols


def _same(a: M.EvalArrays, b: M.EvalArrays) -> None:
    assert a.query_ids == b.query_ids and a.not_in_judgments == b.not_in_judgments
    np.testing.assert_array_equal(a.grades, b.grades)
    np.testing.assert_array_equal(a.lengths, b.lengths)
    np.testing.assert_array_equal(a.in_run, b.in_run)


@settings(max_examples=300, deadline=None)
@given(grades, lists, st.booleans(), st.sampled_from([None, 1, 3]))
def test_a_handed_over_run_scores_as_a_kept_one_and_a_kept_one_is_untouched(
    judged, run, with_hash, depth
):
    kept = _columns(run, with_hash)
    before = {k: np.copy(v) for k, v in vars(kept).items() if isinstance(v, np.ndarray)}
    expected = M.prepare(judged, kept, order="score", depth=depth)
    for name, column in before.items():
        np.testing.assert_array_equal(getattr(kept, name), column, err_msg=name)
    handed = M.prepare(judged, _columns(run, with_hash), order="score", depth=depth, consume=True)
    _same(handed, expected)
