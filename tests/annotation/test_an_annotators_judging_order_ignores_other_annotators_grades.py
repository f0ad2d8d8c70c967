"""The judging order the app gives an annotator (annotation.selectors.judging_order) reads only
their own grades of the query and final grades of resolved queries: whatever another annotator
grades, or regrades, this annotator's order stays the same. Each grade records the order it was
given in, and a project does not let annotators stop unless a lead allows it."""

from __future__ import annotations

import random

import pytest

from annotation.models import Assignment, Judgment, QueryReview, Resolution
from annotation.models.judging import Provenance, ReviewState
from annotation.selectors.judging_order import judging_order_for, pooled_query
from annotation.services.judging import judgment_save
from tests.annotation.factories import judging_setup, pool


@pytest.fixture
def two_queries(personas):
    setup = judging_setup(personas, queries=2, per_query=5)
    done, done_candidates = setup.first()
    query = setup.queries[1]
    pool(query, list(reversed(setup.chunks[:5])), source="other")
    QueryReview.objects.update_or_create(query=done, defaults={"state": ReviewState.RESOLVED})
    for i, cand in enumerate(done_candidates):
        Resolution.objects.create(
            candidate=cand, grade=2 if i == 0 else 0, provenance=Provenance.UNANIMOUS
        )
    return setup, query


def test_a_pool_carries_each_sources_rank(two_queries):
    _, query = two_queries
    p = pooled_query(query.pk)
    assert len(p.candidates) == 5
    assert p.sources == ("fixture", "other")
    assert sorted(r["fixture"] for r in p.ranks.values()) == [1, 2, 3, 4, 5]


def test_my_order_is_the_same_whatever_another_annotator_grades(two_queries, personas):
    _, query = two_queries
    candidates = list(query.candidates.order_by("id"))
    Judgment.objects.create(candidate=candidates[2], annotator=personas.bob, grade=2)
    mine = judging_order_for(query=query, annotator=personas.bob)
    assert candidates[2].pk not in mine and len(mine) == 4
    rng = random.Random(22)
    for _ in range(8):
        Judgment.objects.filter(annotator=personas.carol).delete()
        for cand in rng.sample(candidates, rng.randint(0, 5)):
            Judgment.objects.create(
                candidate=cand, annotator=personas.carol, grade=rng.randint(0, 2)
            )
        assert judging_order_for(query=query, annotator=personas.bob) == mine


def test_each_grade_records_the_order_it_was_given_in(two_queries, personas):
    _, query = two_queries
    assignment = Assignment.objects.get(query=query, annotator=personas.bob)
    cand = query.candidates.first()
    judgment_save(assignment=assignment, candidate=cand, grade=1, order="likely")
    assert Judgment.objects.get(candidate=cand, annotator=personas.bob).order == "likely"
    judgment_save(assignment=assignment, candidate=cand, grade=2)  # no order: kept
    assert Judgment.objects.get(candidate=cand, annotator=personas.bob).order == "likely"
    judgment_save(assignment=assignment, candidate=cand, grade=2, order="plain")
    assert Judgment.objects.get(candidate=cand, annotator=personas.bob).order == "plain"
    with pytest.raises(ValueError, match="order"):
        judgment_save(assignment=assignment, candidate=cand, grade=2, order="sideways")


def test_stopping_is_off_until_a_lead_allows_it(personas):
    assert personas.project.stopping_allowed is False
