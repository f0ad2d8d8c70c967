"""Blindness of the judging order is structural: the order and the stop estimate take only the
pool, THIS annotator's own grades and priors from resolved queries, so permuting or changing
another annotator's grades of the same query cannot change what this annotator sees."""

from __future__ import annotations

import inspect

from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith import judging_order as jo

SOURCES = ("bm25", "tfidf", "ql")


@st.composite
def pools(draw: st.DrawFn) -> jo.PooledQuery:
    n = draw(st.integers(1, 12))
    candidates = tuple(f"c{i}" for i in range(n))
    ranks: dict[str, dict[str, int]] = {}
    for s in SOURCES:
        chosen = draw(st.permutations(candidates))[: draw(st.integers(0, n))]
        for r, c in enumerate(chosen, 1):
            ranks.setdefault(c, {})[s] = r
    # Texts from a small vocabulary, so that the order's likeness to the relevant ones found
    # (relevance feedback) is in play too.
    words = st.lists(st.sampled_from(["wave", "shock", "pasta", "sauce", "wing"]), max_size=4)
    texts = {c: " ".join(draw(words)) for c in candidates if draw(st.booleans())}
    # Sometimes text embeddings too (small hand-drawn vectors), with or without the query's.
    if not draw(st.booleans()):
        return jo.PooledQuery("q", candidates, ranks, texts)
    axis = st.integers(-2, 2).map(float)
    vector = st.tuples(axis, axis, axis)
    vectors = {c: draw(vector) for c in candidates if draw(st.booleans())}
    query = draw(vector) if vectors and draw(st.booleans()) else ()
    return jo.PooledQuery("q", candidates, ranks, texts, vectors, query)


@st.composite
def two_annotators(draw: st.DrawFn) -> tuple[jo.PooledQuery, dict[str, int], dict[str, int]]:
    p = draw(pools())
    grades = st.integers(0, 2)
    mine = {c: draw(grades) for c in p.candidates if draw(st.booleans())}
    theirs = {c: draw(grades) for c in p.candidates if draw(st.booleans())}
    return p, mine, theirs


def test_the_order_and_the_estimate_take_no_argument_for_other_annotators():
    for fn in (jo.judging_order, jo.relevance_probabilities, jo.stop_estimate):
        params = list(inspect.signature(fn).parameters)
        assert params[:3] == ["pool", "own_grades", "priors"], fn.__name__
        assert all(p in {"checked", "recall_target", "confidence", "checks"} for p in params[3:])


def view(p: jo.PooledQuery, grades_by_annotator: dict[str, dict[str, int]], who: str) -> tuple:
    """What `who` sees of the query, built as a caller builds it: from `who`'s grades only."""
    own = grades_by_annotator[who]
    est = jo.stop_estimate(p, own, jo.SourcePriors())
    return tuple(jo.judging_order(p, own, jo.SourcePriors())), est


@settings(max_examples=60, deadline=None)
@given(case=two_annotators(), data=st.data())
def test_permuting_or_changing_another_annotators_grades_changes_nothing_i_see(case, data):
    p, mine, theirs = case
    before = view(p, {"me": mine, "them": theirs}, "me")
    keys = list(theirs)
    permuted = dict(zip(keys, data.draw(st.permutations(list(theirs.values()))), strict=True))
    changed = {c: data.draw(st.integers(0, 2)) for c in p.candidates if data.draw(st.booleans())}
    assert view(p, {"me": mine, "them": permuted}, "me") == before
    assert view(p, {"me": mine, "them": changed}, "me") == before


@settings(max_examples=30, deadline=None)
@given(case=two_annotators())
def test_two_annotators_orders_of_one_query_depend_each_on_their_own_grades(case):
    p, mine, theirs = case
    priors = jo.SourcePriors()
    # My order is a function of my grades alone: computing theirs first changes nothing.
    alone = jo.judging_order(p, mine, priors)
    jo.judging_order(p, theirs, priors)
    assert jo.judging_order(p, mine, priors) == alone
