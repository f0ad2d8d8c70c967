"""In Chromium, a lead opens the dashboard, reads how many final grades each rule decided,
switches the tie rule, is told how many queries settled differently and sees the counts move."""

from __future__ import annotations

import pytest

from tests.annotation.test_changing_the_tie_rule_resettles_unapproved_queries import judged

pytestmark = pytest.mark.e2e


def count(page, provenance: str) -> int:
    return int(page.locator(f'#decided-by tr[data-provenance="{provenance}"] td.num').inner_text())


def test_a_lead_switches_the_tie_rule_and_sees_the_dashboard_counts(
    personas, api_client_for, live_server, sign_in
):
    judged(personas, api_client_for)
    page = sign_in("alice")
    page.goto(f"{live_server.url}/projects/{personas.project.pk}/dashboard/")
    assert (count(page, "tie_lower"), count(page, "tie_higher"), count(page, "unanimous")) == (
        4,
        0,
        11,
    )

    page.select_option("#tie-rule-form select[name=tie_rule]", "higher")
    page.click("#tie-rule-form button[type=submit]")
    page.wait_for_selector("text=4 queries not yet approved settled differently")
    assert (count(page, "tie_lower"), count(page, "tie_higher")) == (0, 4)

    page.select_option("#tie-rule-form select[name=tie_rule]", "lead")
    page.click("#tie-rule-form button[type=submit]")
    page.wait_for_selector("text=4 queries not yet approved settled differently")
    assert (count(page, "tie_lower"), count(page, "tie_higher")) == (0, 0)
    assert page.locator("#flagged-count").inner_text() == "4"
    page.goto(f"{live_server.url}/projects/{personas.project.pk}/review/")
    assert "no majority" in page.locator("#flagged").inner_text()
