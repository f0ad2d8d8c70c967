"""Every annotator of a query sees its candidates in the same shuffled order, on every load."""

from __future__ import annotations

from tests.annotation.factories import judging_setup


def test_every_annotator_sees_the_candidates_in_the_same_shuffled_order(personas, api_client_for):
    setup = judging_setup(personas, per_query=5)
    query, _ = setup.first()
    url = f"/api/v1/projects/{personas.project.pk}/queries/{query.pk}/annotation/"
    orders = []
    for user in (personas.bob, personas.carol, personas.bob):
        response = api_client_for(user).get(url)
        orders.append([c["chunk_id"] for c in response.json()["candidates"]])
    assert orders[0] == orders[1] == orders[2]
    assert sorted(orders[0]) == [f"doc-{i}#0" for i in range(5)]
    # seeded, not the corpus order (the five-chunk permutation is fixed by the hash)
    assert orders[0] != sorted(orders[0])


def test_annotators_never_see_which_source_found_a_candidate(personas, api_client_for):
    setup = judging_setup(personas)
    query, _ = setup.first()
    response = api_client_for(personas.bob).get(
        f"/api/v1/projects/{personas.project.pk}/queries/{query.pk}/annotation/"
    )
    body = response.content.decode()
    assert "fixture" not in body  # the pool source's name
    assert "rank" not in body
    assert set(response.json()["candidates"][0]) == {
        "id",
        "chunk_id",
        "document_title",
        "text",
        "grade",
        "note",
    }
