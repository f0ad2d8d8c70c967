"""The judging order with the candidates' text embeddings (PooledQuery.vectors, an experiment
of issue 22; hand-made vectors here): what is like the relevant ones found comes next, what is
like the ones graded not relevant falls back, candidates close to the query's embedding come
first once resolved queries have taught the rank model that weight (the stop estimate reads
it too), and the feedback moves the order only."""

from __future__ import annotations

import numpy as np
import pytest

from goldsmith import judging_order as jo

CANDIDATES = ("pasta1", "shock1", "pasta2", "shock2")
# No source tells them apart: each is one source's rank 1.
RANKS = {c: {s: 1} for c, s in zip(CANDIDATES, "ABCD", strict=True)}
# Two directions, "pasta" and "shock"; the lengths differ, cosines do not care.
VECTORS = {
    "pasta1": (1.0, 0.1, 0.0),
    "shock1": (0.0, 2.0, 0.2),
    "pasta2": (3.0, 0.0, 0.3),
    "shock2": (0.1, 1.0, 0.0),
}
BARE = jo.PooledQuery("q", CANDIDATES, RANKS)
EMBEDDED = jo.PooledQuery("q", CANDIDATES, RANKS, vectors=VECTORS)
NONE = jo.SourcePriors()


def order(pool: jo.PooledQuery, grades: dict[str, int]) -> list[str]:
    return jo.judging_order(pool, grades, NONE)


def test_a_candidate_whose_embedding_is_like_the_relevant_ones_found_is_judged_next():
    assert order(EMBEDDED, {}) == list(CANDIDATES)  # nothing to follow yet: the plain order
    assert order(EMBEDDED, {"shock1": 2})[0] == "shock2"
    assert order(EMBEDDED, {"pasta2": 1})[0] == "pasta1"
    assert order(BARE, {"shock1": 2})[0] == "pasta1"  # without vectors nothing moves


def test_a_candidate_like_the_ones_graded_not_relevant_falls_back():
    assert order(BARE, {"pasta1": 0}) == ["shock1", "pasta2", "shock2"]
    assert order(EMBEDDED, {"pasta1": 0}) == ["shock1", "shock2", "pasta2"]
    no_negative = jo.FeedbackWeights(negative=0.0)
    model = jo.QueryModel(EMBEDDED, NONE, no_negative)
    assert model.order({"pasta1": 0}) == ["shock1", "pasta2", "shock2"]


def resolved_where_the_query_close_candidate_was_relevant(n: int) -> list[jo.ResolvedQuery]:
    out = []
    for i in range(n):
        near, far = f"near{i}", f"far{i}"
        p = jo.PooledQuery(
            f"r{i}",
            (far, near),
            {far: {"A": 1}, near: {"B": 1}},
            vectors={near: (0.0, 1.0, 0.0), far: (1.0, 0.0, 0.0)},
            query_vector=(0.1, 1.0, 0.0),
        )
        out.append(jo.ResolvedQuery(p, {near: 2, far: 0}))
    return out


def test_resolved_queries_teach_the_weight_of_the_likeness_to_the_query():
    asked = jo.PooledQuery("q", CANDIDATES, RANKS, vectors=VECTORS, query_vector=(0.0, 1.0, 0.0))
    # No resolved query: the likeness to the query has no weight yet, the plain order.
    assert jo.SourcePriors().query == 0.0 and order(asked, {}) == list(CANDIDATES)
    priors = jo.priors_from_resolved(resolved_where_the_query_close_candidate_was_relevant(6))
    assert priors.query > 0.5
    first = jo.judging_order(asked, {}, priors)
    assert first[:2] == ["shock1", "shock2"] and set(first[2:]) == {"pasta1", "pasta2"}
    # It is a feature of the model, so the stop estimate's probabilities read it too.
    probs = jo.relevance_probabilities(asked, {}, priors)
    assert probs["shock1"] > probs["pasta1"] and probs["shock2"] > probs["pasta2"]
    # Resolved pools without a query vector teach no such weight.
    plain = [
        jo.ResolvedQuery(
            jo.PooledQuery(r.pool.query_id, r.pool.candidates, r.pool.ranks), r.final_grades
        )
        for r in resolved_where_the_query_close_candidate_was_relevant(6)
    ]
    assert jo.priors_from_resolved(plain).query == 0.0


def test_the_feedback_on_embeddings_moves_the_order_but_not_the_stop_estimate():
    asked = jo.PooledQuery("q", CANDIDATES, RANKS, vectors=VECTORS, query_vector=(0.0, 1.0, 0.0))
    for grades in ({}, {"shock1": 2}, {"shock1": 2, "pasta1": 0}):
        with_vectors = jo.relevance_probabilities(asked, grades, NONE)
        assert with_vectors == jo.relevance_probabilities(BARE, grades, NONE)
        assert jo.stop_estimate(asked, grades, NONE) == jo.stop_estimate(BARE, grades, NONE)
    assert order(asked, {"shock1": 2, "pasta1": 0}) != order(BARE, {"shock1": 2, "pasta1": 0})


def test_vector_similarities_are_cosines_with_nothing_on_the_diagonal():
    sim = jo.vector_similarities([(1.0, 0.0), (2.0, 2.0), (0.0, 0.0), (-3.0, 0.0)])
    assert sim[0, 1] == pytest.approx(1 / np.sqrt(2)) and sim[1, 0] == sim[0, 1]
    assert sim[0, 3] == pytest.approx(-1.0)
    assert np.all(sim[2] == 0) and np.all(sim[:, 2] == 0)  # no embedding: like none
    assert np.all(np.diag(sim) == 0)
    like = jo.query_likeness([(1.0, 0.0), (0.0, 1.0), (1.0, 1.0)], (1.0, 0.0))
    assert like.mean() == pytest.approx(0.0) and like.std() == pytest.approx(1.0)
    assert like[0] > like[2] > like[1]
    assert np.all(jo.query_likeness([(1.0, 0.0), (2.0, 0.0)], (0.0, 1.0)) == 0)


def test_a_candidate_without_a_vector_is_like_none():
    partial = jo.PooledQuery("q", CANDIDATES, RANKS, vectors={"shock1": (0.0, 1.0, 0.0)})
    model = jo.QueryModel(partial, NONE)
    assert model.semantic is not None and np.all(model.semantic == 0)
    assert order(partial, {"shock1": 2}) == ["pasta1", "pasta2", "shock2"]


def test_vectors_of_different_dimensions_or_a_query_vector_alone_are_refused():
    with pytest.raises(ValueError, match="dimension"):
        jo.PooledQuery("q", CANDIDATES, RANKS, vectors={"pasta1": (1.0,), "shock1": (1.0, 0.0)})
    with pytest.raises(ValueError, match="without candidate vectors"):
        jo.PooledQuery("q", CANDIDATES, RANKS, query_vector=(1.0, 0.0))
    with pytest.raises(ValueError, match="query vector's dimension"):
        jo.PooledQuery("q", CANDIDATES, RANKS, vectors={"pasta1": (1.0,)}, query_vector=(1.0, 0.0))
    with pytest.raises(ValueError, match="no candidate"):
        jo.PooledQuery("q", CANDIDATES, RANKS, vectors={"stranger": (1.0,)})
