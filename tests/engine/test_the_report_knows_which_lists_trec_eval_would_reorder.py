"""The report's count of lists trec_eval would reorder (vectorised over all lists) names
exactly the lists that `--save-run` rescores (checked one list at a time)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith import reporting
from goldsmith.formats.trec import trec_list_in_order

ids = st.sampled_from(["a", "b", "B", "é", "z", "10", "9", "文档", "ab", "\U0001f600", "ｚ"])
scores = st.one_of(st.none(), st.sampled_from([2.0, 1.0, 0.5, 0.0, -1.0]))


@settings(max_examples=200, deadline=None)
@given(
    lists=st.dictionaries(
        st.sampled_from([f"q{n}" for n in range(8)]),
        st.tuples(st.lists(st.tuples(ids, scores), max_size=8), st.booleans()),
        max_size=8,
    )
)
def test_it_names_the_lists_a_saved_run_rescores(lists):
    rows = {}
    for q, (hits, failed) in lists.items():
        rows[q] = reporting.ResultRow(
            q,
            tuple(i for i, _ in hits),
            tuple(s for _, s in hits),
            error="timeout" if failed else "",
        )
    expected = sorted(
        q
        for q, r in rows.items()
        if not r.error and r.ids and not trec_list_in_order(q, r.ids, r.scores).scores_kept
    )
    assert reporting.lists_not_in_score_order(rows) == expected
