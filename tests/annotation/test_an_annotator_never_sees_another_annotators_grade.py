"""Blind judging: no page or API response to an annotator holds another annotator's work."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.annotation.factories import judging_setup
from tests.conftest import PASSWORD

SECRET_NOTE = "carol-secret-candidate-note"
SECRET_QUERY_NOTE = "carol-secret-query-note"


@pytest.fixture
def graded(personas, api_client_for):
    setup = judging_setup(personas, per_query=4)
    query, candidates = setup.first()
    p = personas.project.pk
    carol = api_client_for(personas.carol)
    for cand in candidates:
        r = carol.put(
            f"/api/v1/projects/{p}/candidates/{cand.pk}/judgment/",
            {"grade": 2, "note": SECRET_NOTE},
            format="json",
        )
        assert r.status_code == 200
    carol.put(
        f"/api/v1/projects/{p}/queries/{query.pk}/annotation/",
        {"note": SECRET_QUERY_NOTE, "flags": {"ambiguous": True}},
        format="json",
    )
    bob = api_client_for(personas.bob)
    bob.put(
        f"/api/v1/projects/{p}/candidates/{candidates[0].pk}/judgment/",
        {"grade": 0},
        format="json",
    )
    return setup, query, candidates


def test_the_annotation_api_shows_only_the_callers_own_grades(personas, api_client_for, graded):
    _setup, query, candidates = graded
    bob = api_client_for(personas.bob)
    r = bob.get(f"/api/v1/projects/{personas.project.pk}/queries/{query.pk}/annotation/")
    assert r.status_code == 200
    grades = {c["id"]: c["grade"] for c in r.json()["candidates"]}
    assert grades == {c.pk: (0 if c.pk == candidates[0].pk else None) for c in candidates}
    assert r.json()["annotation"]["flags"]["ambiguous"] is False
    assert SECRET_NOTE not in r.content.decode()
    assert SECRET_QUERY_NOTE not in r.content.decode()


def test_no_response_to_an_annotator_holds_another_annotators_work(
    personas, api_client_for, graded
):
    _setup, query, candidates = graded
    p = personas.project.pk
    api = api_client_for(personas.bob)
    page = Client()
    assert page.login(username="bob", password=PASSWORD)
    bodies = []
    for url in [
        f"/api/v1/projects/{p}/queue/",
        f"/api/v1/projects/{p}/queries/{query.pk}/annotation/",
        f"/api/v1/projects/{p}/queries/{query.pk}/search/?q=python",
        f"/api/v1/projects/{p}/review/queries/{query.pk}/",
        f"/api/v1/projects/{p}/review/queue/",
        f"/api/v1/projects/{p}/agreement/",
        f"/api/v1/projects/{p}/assignments/",
    ]:
        bodies.append(api.get(url).content.decode())
    for cand in candidates:
        r = api.put(
            f"/api/v1/projects/{p}/candidates/{cand.pk}/judgment/", {"grade": 1}, format="json"
        )
        bodies.append(r.content.decode())
        assert r.json()["grade"] == 1
    for url in [
        f"/projects/{p}/annotate/",
        f"/projects/{p}/annotate/{query.pk}/",
        f"/projects/{p}/review/{query.pk}/",
        f"/projects/{p}/dashboard/",
    ]:
        bodies.append(page.get(url).content.decode())
    for body in bodies:
        assert SECRET_NOTE not in body
        assert SECRET_QUERY_NOTE not in body
        assert "carol" not in body.lower()
    # The page shows bob's grades, all 1 now, and never a "2" chosen for him.
    annotate = page.get(f"/projects/{p}/annotate/{query.pk}/").content.decode()
    assert annotate.count('data-grade="1" tabindex') == len(candidates)
    assert 'data-grade="2" tabindex' not in annotate
    data = json.loads(bodies[1])
    assert all(c["grade"] in (0, None) for c in data["candidates"])
