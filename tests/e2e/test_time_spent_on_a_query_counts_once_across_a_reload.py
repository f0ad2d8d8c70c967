"""Time spent on a query counts once when the annotator leaves it by reloading: the report
sent as the page unloads reaches the server but its answer is lost, so the next page sends it
again from its outbox; the server stores one total per visit and the resend changes nothing."""

from __future__ import annotations

import contextlib
import json

import pytest
from playwright.sync_api import Error as PlaywrightError

from annotation.models import QueryAnnotation, VisitTime
from tests.annotation.factories import judging_setup

pytestmark = pytest.mark.e2e


def _stored_seconds(query, annotator) -> float:
    annotation = QueryAnnotation.objects.filter(query=query, annotator=annotator).first()
    return annotation.seconds_spent if annotation else 0.0


def _time_reports_waiting(page) -> int:
    outboxes = page.evaluate(
        "() => Object.keys(localStorage).filter((k) => k.startsWith('goldsmith:outbox:'))"
        ".map((k) => localStorage.getItem(k))"
    )
    return sum(
        1 for outbox in outboxes for key in json.loads(outbox or "{}") if key.startswith("time:")
    )


def _wait_on_page(page, predicate, message: str, timeout_ms: int = 30_000) -> None:
    """Poll while Playwright runs its event loop: a route's handler only runs during a call into
    Playwright, so a plain sleep would hold back the very request the test waits for."""
    for _ in range(timeout_ms // 200):
        if predicate():
            return
        page.wait_for_timeout(200)
    raise AssertionError(f"timed out after {timeout_ms / 1000:.0f}s waiting for {message}")


def test_two_seconds_on_a_query_then_a_reload_store_two_seconds(personas, live_server, sign_in):
    setup = judging_setup(personas, per_query=2)
    query, _ = setup.first()
    page = sign_in("bob")
    page.goto(f"{live_server.url}/projects/{personas.project.pk}/annotate/{query.pk}/")
    page.wait_for_timeout(2000)

    # The report sent as the page unloads reaches the server; its answer never reaches the page.
    def answer_lost(route) -> None:
        route.fetch()
        with contextlib.suppress(PlaywrightError):  # the page that sent it may be gone already
            route.abort()

    page.route(
        lambda url: url.endswith(f"/queries/{query.pk}/annotation/"),
        lambda route: answer_lost(route) if route.request.method == "PUT" else route.continue_(),
    )
    page.reload()
    _wait_on_page(page, lambda: _stored_seconds(query, personas.bob) > 0, "the unload's report")
    page.unroute_all()

    # The new page sends the report again from its outbox (with a retry's backoff).
    _wait_on_page(page, lambda: _time_reports_waiting(page) == 0, "the outbox sent the report")
    page.wait_for_timeout(300)
    seconds = _stored_seconds(query, personas.bob)
    assert 1.5 <= seconds < 3.0, f"2 s on the page were stored as {seconds:.1f} s"
    assert VisitTime.objects.filter(assignment__query=query).count() == 1
