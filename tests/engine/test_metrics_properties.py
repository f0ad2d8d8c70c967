"""Properties every metric must have, on random workloads (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith import metrics as M

CUTS = (1, 3, 10)
ALL = [f"{f}@{k}" for f in ("recall", "precision", "hit", "mrr", "ndcg", "map", "f1") for k in CUTS]
ALL += [f"judged@{k}" for k in CUTS] + [f"pass@{k}" for k in CUTS]
ALL += ["mrr", "ndcg", "map", "r_precision", "recall", "hit"]

chunk = st.sampled_from([f"c{i}" for i in range(12)])
judgments = st.dictionaries(
    st.sampled_from([f"q{i}" for i in range(6)]),
    st.dictionaries(chunk, st.integers(min_value=-1, max_value=3), max_size=8),
    min_size=1,
)
ranked = st.lists(chunk, max_size=15)


@st.composite
def workloads(draw: st.DrawFn) -> tuple[dict, dict]:
    j = draw(judgments)
    run = {q: draw(ranked) for q in j if draw(st.integers(0, 4))}  # some queries missing
    return j, run


@given(workloads(), st.integers(min_value=0, max_value=3), st.sampled_from(["linear", "exp"]))
@settings(max_examples=150, deadline=None)
def test_every_metric_lies_between_zero_and_one(w, level, gain):
    r = M.evaluate(w[0], w[1], ALL, M.EvalSettings(relevance_threshold=level, gain=gain))
    vals = r.values[r.included]
    assert ((vals >= 0) & (vals <= 1 + 1e-12)).all()


@given(workloads())
@settings(max_examples=150, deadline=None)
def test_recall_and_hit_never_fall_as_k_grows(w):
    ks = list(range(1, 16))
    r = M.evaluate(w[0], w[1], [f"recall@{k}" for k in ks] + [f"hit@{k}" for k in ks])
    vals = r.values[r.included]
    assert (np.diff(vals[:, : len(ks)], axis=1) >= 0).all()
    assert (np.diff(vals[:, len(ks) :], axis=1) >= 0).all()


@given(workloads(), st.randoms())
@settings(max_examples=100, deadline=None)
def test_the_order_of_queries_does_not_change_any_value(w, rnd):
    j, run = w
    qs = list(j)
    rnd.shuffle(qs)
    j2 = {q: j[q] for q in qs}
    run2 = {q: run[q] for q in reversed(list(run))}
    a = M.evaluate(j, run, ALL).per_query()
    b = M.evaluate(j2, run2, ALL).per_query()
    assert a == b


@given(workloads(), st.data())
@settings(max_examples=100, deadline=None)
def test_repeating_an_id_later_in_a_list_changes_nothing(w, data):
    j, run = w
    doubled = {}
    for q, docs in run.items():
        extra = data.draw(st.lists(st.sampled_from(docs), max_size=5)) if docs else []
        doubled[q] = docs + extra
        for d in extra:  # also interleave copies right after their first occurrence
            i = doubled[q].index(d)
            doubled[q].insert(i + 1, d)
    assert M.evaluate(j, run, ALL).per_query() == M.evaluate(j, doubled, ALL).per_query()


@given(workloads())
@settings(max_examples=100, deadline=None)
def test_order_score_with_descending_scores_equals_order_rank(w):
    j, run = w
    scored = {q: [(d, float(len(docs) - i)) for i, d in enumerate(docs)] for q, docs in run.items()}
    a = M.evaluate(j, run, ALL, M.EvalSettings(order="rank")).per_query()
    b = M.evaluate(j, scored, ALL, M.EvalSettings(order="score")).per_query()
    assert a == b
