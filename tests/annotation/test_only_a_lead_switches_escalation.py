"""Escalation is switched on and off by a lead, through the API (PUT
/api/v1/projects/{id}/escalation/) and the dashboard; annotators, viewers and strangers cannot,
and a body that does not say which is refused."""

from __future__ import annotations

import pytest
from django.test import Client


def url(personas) -> str:
    return f"/api/v1/projects/{personas.project.pk}/escalation/"


def escalates(personas) -> bool:
    personas.project.refresh_from_db()
    return personas.project.escalate


def test_it_is_off_by_default_and_the_project_says_so(personas, api_client_for):
    shown = api_client_for(personas.bob).get(f"/api/v1/projects/{personas.project.pk}/")
    assert shown.json()["escalate"] is False


def test_a_lead_switches_it_on_and_off(personas, api_client_for):
    lead = api_client_for(personas.alice)
    on = lead.put(url(personas), {"escalate": True}, format="json")
    assert on.status_code == 200
    assert on.json() == {"escalate": True, "escalated": 0, "withdrawn": 0}
    assert escalates(personas)
    assert lead.get(f"/api/v1/projects/{personas.project.pk}/").json()["escalate"] is True
    off = lead.put(url(personas), {"escalate": False}, format="json")
    assert off.json()["escalate"] is False and not escalates(personas)


@pytest.mark.parametrize(("who", "status"), [("bob", 403), ("victor", 403), ("mallory", 404)])
def test_no_one_else_may(personas, api_client_for, who, status):
    response = api_client_for(getattr(personas, who)).put(
        url(personas), {"escalate": True}, format="json"
    )
    assert response.status_code == status
    assert not escalates(personas)


def test_an_anonymous_caller_may_not(personas, api_client_for):
    response = api_client_for(None).put(url(personas), {"escalate": True}, format="json")
    assert response.status_code in (401, 403)
    assert not escalates(personas)


@pytest.mark.parametrize("body", [{}, {"escalate": "maybe"}, {"other": True}])
def test_a_body_that_does_not_say_on_or_off_is_refused(personas, api_client_for, body):
    personas.project.escalate = True
    personas.project.save()
    lead = api_client_for(personas.alice)
    assert lead.put(url(personas), body, format="json").status_code == 400
    assert lead.put(url(personas), body).status_code == 400  # form-encoded: not read as false
    assert escalates(personas)


def test_a_lead_switches_it_on_the_dashboard(personas):
    page = Client()
    page.force_login(personas.alice)
    dashboard = f"/projects/{personas.project.pk}/dashboard/"
    html = page.get(dashboard).content.decode()
    assert 'id="escalation-form"' in html and 'id="escalated-count"' in html
    response = page.post(f"{dashboard}escalation/", {"escalate": "1"}, follow=True)
    assert "Flagged queries now go to one more annotator first" in response.content.decode()
    assert escalates(personas)
    assert page.post(f"{dashboard}escalation/", {"escalate": "x"}).status_code == 400
    response = page.post(f"{dashboard}escalation/", {"escalate": "0"}, follow=True)
    assert "Flagged queries now go straight to a lead" in response.content.decode()
    assert not escalates(personas)
    annotator = Client()
    annotator.force_login(personas.bob)
    assert annotator.post(f"{dashboard}escalation/", {"escalate": "1"}).status_code == 403
    assert not escalates(personas)
