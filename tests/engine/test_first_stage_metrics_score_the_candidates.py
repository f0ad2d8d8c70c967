"""first_stage:recall@K (and every retrieval metric) is the existing metric computed on the
run's first-stage candidates, so the loss at reranking shows beside recall@K."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith import metrics as M
from goldsmith.answers.model import RankedItem, StagedQuery
from goldsmith.answers.scoring import first_stage_result, parse_any_metric

chunk = st.sampled_from([f"c{i}" for i in range(12)])
judged = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3", "q4"]),
    st.dictionaries(chunk, st.integers(0, 2), max_size=8),
    min_size=1,
)
lists = st.lists(chunk, max_size=15)


@settings(max_examples=200, deadline=None)
@given(judged, st.dictionaries(st.sampled_from(["q1", "q2", "q3", "q5"]), lists), lists)
def test_first_stage_recall_equals_recall_on_the_candidates(judgments, candidates, final):
    run = [
        StagedQuery(q, results=tuple(RankedItem(c) for c in final),
                    candidates=tuple(RankedItem(c) for c in cands))
        for q, cands in candidates.items()
    ]  # fmt: skip
    if not run:
        return
    names = ["recall@1", "recall@5", "recall@50", "ndcg@10", "mrr"]
    staged = first_stage_result(judgments, run, [f"first_stage:{m}" for m in names])
    plain = M.evaluate(judgments, {q: list(c) for q, c in candidates.items()}, names)
    assert staged.metrics == tuple(f"first_stage:{m}" for m in names)
    np.testing.assert_array_equal(staged.values, plain.values)  # NaN where no relevant chunk
    assert staged.included.tolist() == plain.included.tolist()
    assert staged.missing_from_run == plain.missing_from_run


def test_a_run_without_candidates_cannot_give_first_stage_metrics():
    with pytest.raises(ValueError, match="no query of the run has a candidates list"):
        first_stage_result({"q": {"c": 2}}, [StagedQuery("q")], ["first_stage:recall@5"])


def test_first_stage_names_are_checked_like_retrieval_names():
    assert parse_any_metric("FIRST_STAGE:Recall@50") == "first_stage:recall@50"
    assert parse_any_metric("context_recall@5") == "context_recall@5"
    with pytest.raises(ValueError, match="unknown metric"):
        parse_any_metric("first_stage:recal@5")
    with pytest.raises(ValueError, match="needs a cut-off"):
        parse_any_metric("context_recall")
    with pytest.raises(ValueError, match="takes no cut-off"):
        parse_any_metric("answer_f1@3")
