"""A grade made while offline waits in the retry queue, is never shown as saved too early, and
is saved once the network returns."""

from __future__ import annotations

import pytest

from annotation.models import Judgment
from tests.annotation.factories import judging_setup

pytestmark = pytest.mark.e2e


def test_a_grade_made_offline_is_saved_after_the_network_returns(personas, live_server, sign_in):
    setup = judging_setup(personas, per_query=2)
    query, _ = setup.first()
    page = sign_in("bob")
    page.goto(f"{live_server.url}/projects/{personas.project.pk}/annotate/{query.pk}/")
    first = page.locator(".candidate").nth(0)
    candidate_id = int(first.get_attribute("data-candidate-id"))

    page.context.set_offline(True)
    page.keyboard.press("2")
    first.locator(".save-state.is-waiting").wait_for()
    assert "saved" not in first.locator(".save-state").inner_text().replace("not saved", "")
    page.locator(".sync-waiting").wait_for()
    assert not Judgment.objects.filter(candidate_id=candidate_id).exists()

    page.context.set_offline(False)
    first.locator(".save-state.is-saved").wait_for(timeout=20_000)
    page.get_by_text("All changes saved").wait_for()
    assert Judgment.objects.get(candidate_id=candidate_id, annotator=personas.bob).grade == 2


def test_a_grade_still_waiting_when_the_page_closes_is_sent_by_the_next_page(
    personas, live_server, sign_in
):
    setup = judging_setup(personas, queries=2, per_query=2)
    query, _ = setup.first()
    page = sign_in("bob")
    url = f"{live_server.url}/projects/{personas.project.pk}/annotate/{query.pk}/"
    page.goto(url)
    candidate_id = int(page.locator(".candidate").nth(0).get_attribute("data-candidate-id"))
    page.context.set_offline(True)
    page.keyboard.press("1")
    page.locator(".save-state.is-waiting").wait_for()
    page.route("**/judgment/", lambda route: route.abort())  # requests get lost...
    page.context.set_offline(False)
    page.goto(url)  # ...and the annotator reloads: the waiting grade is still there
    page.unroute("**/judgment/")
    page.locator(".candidate >> nth=0 >> .save-state.is-saved").wait_for(timeout=20_000)
    assert Judgment.objects.get(candidate_id=candidate_id, annotator=personas.bob).grade == 1
