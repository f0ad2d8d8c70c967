"""trec_eval keeps a result's score in a 32-bit float: scores that differ only beyond that
precision (1.00000001 and 1.0; 1e-300 and 0.0) tie there and are ordered by docno, and a score
beyond its range is infinite. Ordering by score "as trec_eval does" must compare the same
values, or a list trec_eval reorders is scored in another order (a hypothesis run found a saved
run whose nDCG@1 was 1.0 in the report and 0.0 in trec_eval)."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from goldsmith import metrics as M
from goldsmith.formats.trec import in_trec_eval_order, trec_list_in_order

pytrec_eval = pytest.importorskip("pytrec_eval")

# Values that are distinct as 64-bit floats but several of which are equal in 32 bits.
NEAR = [0.0, 1e-300, 1e-46, 1e-44, -1e-300, 1.0, 1.00000001, 1.0 + 2**-30, 1.0000001, 2.0,
        3e38, 3.4e38, 4e38, 1e300, -1e300, 0.5, 0.50000001]  # fmt: skip
DOCS = ["a", "b", "B", "é", "z", "10", "9", "文档", "ab", "Z"]
MEASURES = {"P.1,3,5", "recall.1,3,5", "ndcg_cut.1,3,5", "recip_rank", "map"}
NAMES = {"recip_rank": "mrr", "map": "map"}
for k in (1, 3, 5):
    NAMES |= {
        f"P_{k}": f"precision@{k}",
        f"recall_{k}": f"recall@{k}",
        f"ndcg_cut_{k}": f"ndcg@{k}",
    }

runs = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3"]),
    st.dictionaries(st.sampled_from(DOCS), st.sampled_from(NEAR), min_size=1),
    min_size=1,
)
qrels = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3"]),
    st.dictionaries(st.sampled_from(DOCS), st.integers(0, 2), min_size=1),
    min_size=1,
)


@settings(max_examples=300, deadline=None)
@given(run=runs, judged=qrels, level=st.sampled_from([1, 2]))
def test_ordering_by_score_equals_trec_eval_for_scores_equal_in_32_bits(run, judged, level):
    theirs = pytrec_eval.RelevanceEvaluator(judged, MEASURES, relevance_level=level).evaluate(run)
    ours = M.evaluate(
        judged,
        {q: list(d.items()) for q, d in run.items() if q in judged},
        list(NAMES.values()),
        M.EvalSettings(relevance_threshold=level, order="score", no_relevant="zero"),
    ).per_query()
    for q, values in theirs.items():
        for measure, name in NAMES.items():
            assert ours[q][name] == pytest.approx(values[measure], abs=1e-9), (q, measure)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(DOCS), st.sampled_from(NEAR)),
        max_size=8,
        unique_by=lambda h: h[0],
    )
)
@example(hits=[("b", 1e-300), ("é", 0.0)])
@example(hits=[("a", 1.00000001), ("b", 1.0)])
@example(hits=[("a", 1e300), ("b", 4e38)])
def test_a_list_kept_with_its_scores_is_one_trec_eval_keeps_in_order(hits):
    """When a saved run keeps the scores, trec_eval ranks the list as it was given."""
    ids = [d for d, _ in hits]
    scores = [s for _, s in hits]
    listed = trec_list_in_order("q", ids, scores)
    if not listed.scores_kept:
        return
    assert in_trec_eval_order(ids, scores)
    run = {"q": {d: s for _, d, _, s in listed.rows}}
    qrels = {"q": {d: 1 if i == 0 else 0 for i, d in enumerate(ids)}} if ids else {}
    if not ids:
        return
    first = pytrec_eval.RelevanceEvaluator(qrels, {"P.1"}).evaluate(run)["q"]["P_1"]
    assert first == 1.0  # the first id given is trec_eval's first


def test_the_two_cases_that_exposed_it():
    run = {"q": {"b": 1e-300, "é": 0.0}}
    judged = {"q": {"b": 1}}
    assert not in_trec_eval_order(["b", "é"], [1e-300, 0.0])  # é first in trec_eval: a tie
    ours = M.evaluate(judged, {"q": list(run["q"].items())}, ["precision@1"],
                      M.EvalSettings(order="score", relevance_threshold=1)).per_query()  # fmt: skip
    theirs = pytrec_eval.RelevanceEvaluator(judged, {"P.1"}).evaluate(run)
    assert ours["q"]["precision@1"] == theirs["q"]["P_1"] == 0.0
    assert M.trec_eval_scores([1.00000001, 1.0]).tolist() == [1.0, 1.0]
