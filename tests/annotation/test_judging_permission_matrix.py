"""What each role — and a non-member — may do with every judging page and API endpoint.

The annotator persona is bob, who has the query in his queue. The lead (alice) is not assigned
the query, so the annotator-only endpoints of one query answer her 404 like any query that is not
in her queue.
"""

from __future__ import annotations

import io

import pytest
from django.test import Client

from annotation.models import Assignment
from tests.annotation.factories import judging_setup
from tests.conftest import PASSWORD

ROLES = ["lead", "annotator", "viewer", "outsider"]
ALL_OK = {"lead": 200, "annotator": 200, "viewer": 200, "outsider": 404}
ANNOTATE = {"lead": 200, "annotator": 200, "viewer": 403, "outsider": 404}
OWN_QUERY = {"lead": 404, "annotator": 200, "viewer": 403, "outsider": 404}
LEAD = {"lead": 200, "annotator": 403, "viewer": 403, "outsider": 404}


def _l(ok: int) -> dict[str, int]:
    return {**LEAD, "lead": ok}


PAGES = [
    ("get", "/projects/{p}/annotate/", None, ANNOTATE),
    ("get", "/projects/{p}/annotate/next/", None, {**ANNOTATE, "lead": 302, "annotator": 302}),
    ("get", "/projects/{p}/annotate/{q}/", None, OWN_QUERY),
    ("get", "/projects/{p}/guidelines/", None, ALL_OK),
    ("post", "/projects/{p}/guidelines/", {"markdown": "# Be kind"}, _l(302)),
    ("get", "/projects/{p}/pools/", None, LEAD),
    ("post", "/projects/{p}/pools/", {"what": "assign", "assign-per_query": "2"}, _l(302)),
    ("get", "/projects/{p}/review/", None, LEAD),
    ("post", "/projects/{p}/review/approve/", {"all_resolved": "1"}, _l(302)),
    ("get", "/projects/{p}/review/{q}/", None, LEAD),
    ("post", "/projects/{p}/review/{q}/", {"version": "1"}, _l(400)),
    ("post", "/projects/{p}/review/{q}/approve/", {}, _l(302)),
    ("get", "/projects/{p}/dashboard/", None, LEAD),
]

API = [
    ("get", "queue/", None, ANNOTATE),
    ("get", "queries/{q}/annotation/", None, OWN_QUERY),
    ("put", "queries/{q}/annotation/", {"note": "hm", "seconds": 3}, OWN_QUERY),
    ("get", "queries/{q}/search/?q=python", None, OWN_QUERY),
    ("post", "queries/{q}/candidates/", {"chunk_id": "doc-4#0"}, {**OWN_QUERY, "annotator": 201}),
    ("put", "candidates/{c}/judgment/", {"grade": 2}, OWN_QUERY),
    ("get", "guidelines/", None, ALL_OK),
    ("post", "guidelines/", {"markdown": "# Rules"}, _l(201)),
    ("get", "pools/", None, LEAD),
    ("post", "pools/build/", {"retrievers": ["tfidf"], "k": 2}, _l(202)),
    ("get", "pools/builds/", None, LEAD),
    ("get", "assignments/", None, LEAD),
    ("post", "assignments/assign/", {}, LEAD),
    ("post", "assignments/{a}/reassign/", {"username": "bob"}, LEAD),
    ("get", "review/queue/", None, LEAD),
    ("get", "review/queue/?state=resolved", None, LEAD),
    ("post", "review/approve/", {"all_resolved": True}, LEAD),
    ("get", "review/queries/{q}/", None, LEAD),
    (
        "post",
        "review/queries/{q}/adjudicate/",
        {"version": 1, "grades": [], "reason": "x"},
        _l(400),
    ),
    ("post", "review/queries/{q}/approve/", {}, _l(400)),
    ("get", "agreement/", None, LEAD),
]


@pytest.fixture
def world(personas):
    setup = judging_setup(personas)
    query, candidates = setup.first()
    assignment = Assignment.objects.get(query=query, annotator=personas.bob)
    return {
        "p": personas.project.pk,
        "q": query.pk,
        "c": candidates[0].pk,
        "a": assignment.pk,
    }


def signed_in(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("method", "path", "data", "expected"), PAGES)
def test_judging_pages_follow_the_role_matrix(personas, world, role, method, path, data, expected):
    client = signed_in(personas.by_role()[role])
    response = getattr(client, method)(path.format(**world), data)
    assert response.status_code == expected[role], response.content[:300]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("method", "path", "data", "expected"), API)
def test_judging_api_follows_the_role_matrix(
    personas, api_client_for, world, role, method, path, data, expected
):
    client = api_client_for(personas.by_role()[role])
    url = f"/api/v1/projects/{world['p']}/" + path.format(**world)
    response = getattr(client, method)(url, data, format="json")
    assert response.status_code == expected[role], response.content[:300]


@pytest.mark.parametrize("role", ROLES)
def test_importing_a_run_follows_the_role_matrix(personas, api_client_for, world, role):
    client = api_client_for(personas.by_role()[role])
    run = io.BytesIO(f"{world['q']} Q0 doc-4#0 1 9.5 prod\n".encode())
    run.name = "run.txt"
    response = client.post(
        f"/api/v1/projects/{world['p']}/pools/runs/",
        {"name": "prod", "file": run, "format": "trec", "k": 5},
        format="multipart",
    )
    assert response.status_code == LEAD[role], response.content[:300]


def test_anonymous_callers_see_nothing(world):
    client = Client()
    page = client.get(f"/projects/{world['p']}/annotate/{world['q']}/")
    assert page.status_code == 302  # to the login page
    api = client.get(f"/api/v1/projects/{world['p']}/queue/")
    assert api.status_code in (401, 403)
