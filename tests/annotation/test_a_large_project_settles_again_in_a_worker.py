"""Beyond GOLDSMITH_SETTLE_IN_REQUEST_MAX finished queries, a change of tie rule or of the kappa
that flags is stored at once and a real Celery worker settles the queries again: the API answers
202, the dashboard says a worker is at it and, once it is done, how many queries changed."""

from __future__ import annotations

from django.test import Client

from annotation.models import QueryReview
from annotation.services.adjudication import settling_status
from tests.annotation.test_the_flag_rule_reads_the_kappa_a_lead_chooses import judged
from tests.conftest import wait_for


def _page(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _states(queries) -> list[str]:
    return [QueryReview.objects.get(query=q).state for q in queries]


def test_without_a_worker_the_setting_is_stored_and_the_dashboard_says_so(
    personas, api_client_for, settings
):
    settings.GOLDSMITH_SETTLE_IN_REQUEST_MAX = 1
    queries, _ = judged(personas, api_client_for)
    assert _states(queries) == ["flagged", "flagged"]
    response = api_client_for(personas.alice).put(
        f"/api/v1/projects/{personas.project.pk}/kappa-weights/",
        {"kappa_weights": "linear"},
        format="json",
    )
    assert response.status_code == 202
    assert response.json() == {"kappa_weights": "linear", "resettled": None, "queued": True}
    personas.project.refresh_from_db()
    assert personas.project.kappa_weights == "linear"
    assert _states(queries) == ["flagged", "flagged"]  # nothing settled in the request
    html = _page(personas.alice).get(f"/projects/{personas.project.pk}/dashboard/").content
    assert "A worker is settling 2 finished queries again" in html.decode()


def test_a_real_worker_settles_again_and_the_dashboard_tells_the_outcome(
    personas, api_client_for, settings, celery_worker_process
):
    import config.settings

    settings.CACHES = config.settings.CACHES  # the worker's keys, not this test's own prefix
    settings.GOLDSMITH_SETTLE_IN_REQUEST_MAX = 0
    queries, _ = judged(personas, api_client_for)
    project = personas.project
    response = api_client_for(personas.alice).put(
        f"/api/v1/projects/{project.pk}/kappa-weights/", {"kappa_weights": "linear"}, format="json"
    )
    assert response.status_code == 202
    wait_for(lambda: _states(queries) == ["resolved", "resolved"], timeout=90, message="settling")
    wait_for(
        lambda: (settling_status(project=project) or {}).get("state") == "done",
        timeout=30,
        message="the worker's status",
    )
    assert settling_status(project=project)["changed"] == 2
    lead = _page(personas.alice)
    html = lead.get(f"/projects/{project.pk}/dashboard/").content.decode()
    assert "The last settling again by a worker is done: 2 queries settled differently." in html

    # the page's own form: ties now go to a lead, so both queries are flagged again
    posted = lead.post(
        f"/projects/{project.pk}/dashboard/tie-rule/", {"tie_rule": "lead"}, follow=True
    ).content.decode()
    assert "A worker is settling the 2 finished queries not yet approved again" in posted
    wait_for(lambda: _states(queries) == ["flagged", "flagged"], timeout=90, message="settling")
