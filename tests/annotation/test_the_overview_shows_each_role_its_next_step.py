"""The project's overview tells each member where the work stands and what to do next."""

from __future__ import annotations

from django.test import Client

from tests.annotation.factories import grade_all, judging_setup
from tests.conftest import PASSWORD


def page(user, project) -> str:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    response = client.get(f"/projects/{project.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def test_an_annotator_is_sent_to_the_next_query(personas):
    setup = judging_setup(personas)
    html = page(personas.bob, setup.project)
    assert "<strong>1</strong> of 1 assigned queries still to grade" in html
    assert f'href="/projects/{setup.project.pk}/annotate/next/"' in html
    assert "Adjudicate" not in html


def test_a_lead_is_sent_to_the_flagged_queries(personas, api_client_for):
    setup = judging_setup(personas)
    _query, candidates = setup.first()
    grade_all(api_client_for(personas.bob), setup.project, candidates, [2, 0, 0])
    grade_all(api_client_for(personas.carol), setup.project, candidates, [0, 0, 0])
    html = page(personas.alice, setup.project)
    assert "Adjudicate 1 flagged" in html
    assert "Adjudicate" not in page(personas.victor, setup.project)
