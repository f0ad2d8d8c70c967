"""Each of the dashboard's setting forms (tie rule, flag kappa, escalation, annotators' answers,
stopping) posts to a view made by one factory: a lead's value is stored and said in a sentence,
a value that is not one of the choices shows the dashboard again (400) with that form's error
while every other form shows the project's setting as it is."""

from __future__ import annotations

import pytest
from django.test import Client

# (url, field, a value to switch to, what the project then holds, words of the message)
SETTINGS = [
    ("tie-rule", "tie_rule", "higher", "higher", "Ties one grade apart now go to"),
    ("kappa-weights", "kappa_weights", "ac1", "ac1", "The flag rule now reads"),
    ("escalation", "escalate", "1", True, "Flagged queries now go to one more annotator first"),
    ("answers", "annotators_write_answers", "1", True, "Annotators now write reference answers"),
    ("stopping", "stopping_allowed", "1", True, "Annotators may now finish a query"),
]


def lead_page(personas) -> Client:
    client = Client()
    client.force_login(personas.alice)
    return client


@pytest.mark.parametrize(("url", "field", "value", "stored", "words"), SETTINGS)
def test_a_lead_sets_it_and_is_told_what_changed(personas, url, field, value, stored, words):
    project = personas.project
    response = lead_page(personas).post(
        f"/projects/{project.pk}/dashboard/{url}/", {field: value}, follow=True
    )
    assert response.status_code == 200
    assert words in response.content.decode()
    project.refresh_from_db()
    assert getattr(project, field) == stored


@pytest.mark.parametrize(("url", "field", "value", "stored", "words"), SETTINGS)
def test_a_value_not_offered_shows_that_forms_error(personas, url, field, value, stored, words):
    project = personas.project
    before = {f: getattr(project, f) for _u, f, *_rest in SETTINGS}
    response = lead_page(personas).post(
        f"/projects/{project.pk}/dashboard/{url}/", {field: "no-such-choice"}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert html.count('class="errorlist') == 1  # the refused form's, no other
    assert 'value="no-such-choice"' not in html
    project.refresh_from_db()
    assert {f: getattr(project, f) for f in before} == before
    # every other form shows the setting as stored ("0"/"1" for a switch)
    for _url, other, *_rest in SETTINGS:
        if other == field:
            continue
        shown = before[other]
        shown = ("1" if shown else "0") if isinstance(shown, bool) else shown
        assert f'value="{shown}" selected' in html or f'value="{shown}" checked' in html, other


def test_someone_not_a_lead_may_not(personas):
    client = Client()
    client.force_login(personas.bob)
    for url, field, value, _stored, _words in SETTINGS:
        response = client.post(f"/projects/{personas.project.pk}/dashboard/{url}/", {field: value})
        assert response.status_code == 403, url
