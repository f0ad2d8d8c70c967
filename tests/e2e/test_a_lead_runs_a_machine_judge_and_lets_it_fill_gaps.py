"""In Chromium, with a real Celery worker: a lead registers the keyword judge stub, runs it,
watches the job finish, reads its kappa beside the annotators' on the dashboard, lets it fill
the query no person graded, approves, freezes, and reads on the version page how many of its
grades a machine gave."""

from __future__ import annotations

import pytest

from annotation.models import GoldenSetVersion, MachineGrade
from tests.evaluation.judges import graded_project

pytestmark = pytest.mark.e2e


def test_a_lead_goes_from_judge_to_version(
    personas, api_client_for, live_server, sign_in, celery_worker_process, settings
):
    import config.settings

    settings.CACHES = config.settings.CACHES  # the worker's keys: it computes the judge table
    setup = graded_project(personas, api_client_for, humans=2, spare=1)
    from django.core.cache import cache

    from annotation.selectors.machine import _latest_key
    from evaluation.services.judges import _refresh_lock

    for key in (_latest_key(setup.project, 1000), _refresh_lock(setup.project.pk)):
        cache.delete(key)  # left by an earlier test's project of the same id
    base = f"{live_server.url}/projects/{setup.project.pk}"
    lead = sign_in("alice")
    lead.goto(f"{base}/judges/")
    lead.fill("#judge-form input[name=name]", "keyword stub")
    lead.select_option("#judge-form select[name=kind]", "keyword")
    lead.click("#judge-form button[type=submit]")
    lead.get_by_text("Judge keyword stub registered.").wait_for()
    lead.click("#judges form:has(input[value=run]) button")
    lead.get_by_text("keyword stub is judging 12 chunks.").wait_for()
    # the page refreshes itself while the job runs
    lead.locator("#judges td.job", has_text="Succeeded · 12 / 12").wait_for(timeout=90_000)
    assert MachineGrade.objects.count() == 12

    lead.goto(f"{base}/dashboard/")
    table = lead.locator("#judge-kappa")
    for _ in range(120):  # the worker computes the table as the job ends; the page says so
        if table.count():
            break
        lead.wait_for_timeout(500)
        lead.reload()
    assert table.locator("tr.judge").count() == 3  # against the final grades, bob, carol
    assert table.locator("tr.person").count() == 2
    assert "keyword stub" in table.inner_text()

    lead.goto(f"{base}/judges/")
    lead.click("#judges form:has(input[value=fill]) button")
    lead.get_by_text("4 chunks no person graded now take keyword stub's grade").wait_for()

    lead.goto(f"{base}/review/")
    assert lead.locator("#resolved .badge.machine").inner_text() == "4 by a machine judge"
    lead.click("button[name=all_resolved]")
    lead.goto(f"{base}/goldsets/")
    lead.click("text=Freeze approved queries")
    lead.wait_for_url(lambda url: "/goldsets/v1/" in url)
    assert lead.locator("#machine-grades td.num").inner_text() == "4"
    assert GoldenSetVersion.objects.get().counts["machine_grades"] == 4
