"""An approved (or adjudicated) query's grades are final: "Missing a good chunk?" may not add a
candidate to it, which would put it back into the queues and drop its approval. The probe: bob
added a chunk to his own approved query (201) and changed its assignments, candidates, pool
sources and review state. Now: 409 with a plain reason, nothing changed, and the page says so.
A lead who wants more chunks judged pools them (the pools page), which reopens the query."""

from __future__ import annotations

from annotation.models import (
    Assignment,
    Candidate,
    CandidateSource,
    PoolSource,
    QueryReview,
    Resolution,
)
from annotation.services.adjudication import queries_approve, query_adjudicate
from tests.annotation.factories import grade_all, judging_setup


def state_of(query) -> dict[str, object]:
    return {
        "review": list(QueryReview.objects.filter(query=query).values()),
        "assignments": list(Assignment.objects.filter(query=query).order_by("pk").values()),
        "candidates": list(Candidate.objects.filter(query=query).order_by("pk").values()),
        "sources": list(
            CandidateSource.objects.filter(candidate__query=query).order_by("pk").values()
        ),
        "pool_sources": list(PoolSource.objects.order_by("pk").values()),
        "resolutions": list(
            Resolution.objects.filter(candidate__query=query).order_by("pk").values()
        ),
    }


def add(client, project, query, chunk_id):
    return client.post(
        f"/api/v1/projects/{project.pk}/queries/{query.pk}/candidates/",
        {"chunk_id": chunk_id},
        format="json",
    )


def test_an_annotator_cannot_add_a_chunk_to_an_approved_query(personas, api_client_for):
    setup = judging_setup(personas, per_query=2)
    query, candidates = setup.first()
    for user in (personas.bob, personas.carol):
        grade_all(api_client_for(user), personas.project, candidates, [2, 0])
    queries_approve(project=personas.project, by=personas.alice)
    assert QueryReview.objects.get(query=query).state == "approved"
    before = state_of(query)

    response = add(api_client_for(personas.bob), personas.project, query, setup.chunks[4].chunk_id)

    assert response.status_code == 409, response.content
    detail = response.json()["detail"]
    assert "approved" in detail and "lead" in detail
    assert state_of(query) == before


def test_nor_to_an_adjudicated_one(personas, api_client_for):
    setup = judging_setup(personas, per_query=2)
    query, candidates = setup.first()
    grade_all(api_client_for(personas.bob), personas.project, candidates, [2, 2])
    grade_all(api_client_for(personas.carol), personas.project, candidates, [0, 0])
    review = QueryReview.objects.get(query=query)
    assert review.state == "flagged"
    query_adjudicate(
        project=personas.project,
        query_id=query.pk,
        by=personas.alice,
        version=review.version,
        grades={c.pk: 2 for c in candidates},
        reason="guideline_gap",
    )
    before = state_of(query)

    response = add(
        api_client_for(personas.carol), personas.project, query, setup.chunks[4].chunk_id
    )

    assert response.status_code == 409
    assert "adjudicated" in response.json()["detail"]
    assert state_of(query) == before


def test_a_finished_query_not_yet_approved_still_takes_one(personas, api_client_for):
    """Before a lead has decided, a found chunk is welcome: the query goes back to its
    annotators (as a new pool source does)."""
    setup = judging_setup(personas, per_query=2)
    query, candidates = setup.first()
    for user in (personas.bob, personas.carol):
        grade_all(api_client_for(user), personas.project, candidates, [2, 0])
    assert QueryReview.objects.get(query=query).state == "resolved"

    response = add(api_client_for(personas.bob), personas.project, query, setup.chunks[4].chunk_id)

    assert response.status_code == 201
    assert QueryReview.objects.get(query=query).state == "open"
    assert Candidate.objects.filter(query=query).count() == 3


def test_the_page_of_an_approved_query_says_why_no_chunk_can_be_added(
    personas, api_client_for, client
):
    setup = judging_setup(personas, per_query=2)
    query, candidates = setup.first()
    for user in (personas.bob, personas.carol):
        grade_all(api_client_for(user), personas.project, candidates, [2, 0])
    client.force_login(personas.bob)
    url = f"/projects/{personas.project.pk}/annotate/{query.pk}/"
    assert 'id="corpus-search"' in client.get(url).content.decode()  # still open to additions

    queries_approve(project=personas.project, by=personas.alice)
    page = client.get(url).content.decode()

    assert 'id="corpus-search"' not in page
    assert "This query is approved: its grades are final" in page
    assert "a lead can reopen it" in page
