"""A new source adds only new candidates and puts the affected queries back in the queues."""

from __future__ import annotations

from annotation.models import Assignment, Candidate, QueryReview
from annotation.services.adjudication import queries_approve
from tests.annotation.factories import grade_all, judging_setup, pool


def test_adding_a_source_later_adds_only_new_candidates_and_reopens_the_query(
    personas, api_client_for
):
    setup = judging_setup(personas, per_query=2)
    query, candidates = setup.first()
    for user in (personas.bob, personas.carol):
        grade_all(api_client_for(user), personas.project, candidates, [2, 0])
    assert QueryReview.objects.get(query=query).state == "resolved"
    queries_approve(project=personas.project, by=personas.alice)
    assert QueryReview.objects.get(query=query).state == "approved"

    pool(query, setup.chunks[:3], source="late-run")  # one old, one old, one new chunk
    assert Candidate.objects.filter(query=query).count() == 3
    review = QueryReview.objects.get(query=query)
    assert review.state == "open" and review.approved_at is None
    for a in Assignment.objects.filter(query=query):
        assert (a.status, a.judged, a.total) == ("started", 2, 3)
    queue = api_client_for(personas.bob).get(f"/api/v1/projects/{personas.project.pk}/queue/")
    assert queue.json()["done"] == 0


def test_a_source_that_finds_nothing_new_leaves_queries_alone(personas, api_client_for):
    setup = judging_setup(personas, per_query=2)
    query, candidates = setup.first()
    for user in (personas.bob, personas.carol):
        grade_all(api_client_for(user), personas.project, candidates, [1, 0])
    pool(query, setup.chunks[:2], source="same-chunks")
    assert QueryReview.objects.get(query=query).state == "resolved"
