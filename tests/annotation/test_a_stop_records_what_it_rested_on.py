"""A stop records what it rested on (issue 22 §2): the model's probability that 95 % of the
relevant candidates were found, the confidence the rule asked for and its random checks, as
they were at the moment of the stop, so a later reader (the API, the version page, an audit)
says on what figure a stop was taken; a stop from before they were recorded reads "not
recorded", never a number. The version's expected recall of the judging says what it is: the
mean the stop estimates expect, beside how many queries were stopped and at what confidence."""

from __future__ import annotations

import re

from django.test import Client

from annotation.models import Assignment, Resolution
from annotation.models.stopping import JudgingStop
from annotation.services.adjudication import queries_approve
from annotation.services.goldsets import golden_set_version_freeze
from tests.annotation.stopping_factories import follow_the_order, stoppable_project


def stop_url(setup):
    return f"/api/v1/projects/{setup.project.pk}/queries/{setup.query.pk}/stop/"


def stopped_project(personas, api_client_for, users):
    setup = stoppable_project(personas)
    personas.project.stopping_allowed = True
    personas.project.save(update_fields=["stopping_allowed"])
    last = {}
    for user in users:
        client = api_client_for(user)
        last[user.username] = follow_the_order(client, setup, user)
        response = client.post(stop_url(setup))
        assert response.status_code == 200, response.content
    return setup, last


def test_a_stop_stores_the_figure_it_rested_on_and_the_api_shows_it(personas, api_client_for):
    setup, last = stopped_project(personas, api_client_for, [personas.bob])
    at_stop = last["bob"]
    stop = JudgingStop.objects.get(assignment__annotator=personas.bob)
    assert stop.p_target is not None and abs(stop.p_target - at_stop["p_target"]) < 1e-4
    assert stop.p_target >= stop.confidence == 0.7 and stop.checks == 0
    shown = api_client_for(personas.bob).get(stop_url(setup)).json()
    recorded = shown["stop"]
    assert recorded["p_target"] == round(stop.p_target, 4)
    assert recorded["confidence"] == 0.7 and recorded["checks"] == 0 and recorded["recorded"]
    assert recorded["left"] == stop.left == shown["stopped"] and recorded["target"] == 0.95
    words = f"the model's {stop.p_target:.0%} probability that 95% of the relevant candidates"
    assert words in recorded["rested_on"] and "at least 70%" in recorded["rested_on"]
    assert "No candidate was drawn at random" in recorded["rested_on"]
    # The page the annotator stopped on says it too (its summary is the API's).
    assert recorded["rested_on"] in shown["summary"]
    page = Client()
    page.force_login(personas.bob)
    html = page.get(f"/projects/{setup.project.pk}/annotate/{setup.query.pk}/").content.decode()
    assert f"{stop.p_target:.0%} probability that 95%" in html


def test_a_query_not_stopped_has_no_recorded_stop(personas, api_client_for):
    setup = stoppable_project(personas)
    shown = api_client_for(personas.bob).get(stop_url(setup)).json()
    assert shown["stop"] is None


def test_a_stop_taken_before_the_figures_were_recorded_reads_not_recorded(personas, api_client_for):
    setup, _ = stopped_project(personas, api_client_for, [personas.bob, personas.carol])
    # What the migration leaves on the stops taken before it: null in all three.
    JudgingStop.objects.update(p_target=None, confidence=None, checks=None)
    shown = api_client_for(personas.bob).get(stop_url(setup)).json()
    recorded = shown["stop"]
    assert recorded["p_target"] is None and recorded["confidence"] is None
    assert recorded["checks"] is None and recorded["recorded"] is False
    assert "not recorded" in recorded["rested_on"]
    assert not re.search(r"\d+%", recorded["rested_on"]), recorded["rested_on"]
    queries_approve(project=setup.project, by=personas.alice)
    version = golden_set_version_freeze(project=setup.project, by=personas.alice)
    assert version.counts["stopped"]["rules"] == [
        {"target": 0.95, "confidence": None, "checks": None, "stops": 2}
    ]
    html = version_page(personas, version)
    rules = row(html, "stop-rules")
    assert "2 stops whose confidence was not recorded" in rules
    assert "70%" not in rules


def version_page(personas, version) -> str:
    page = Client()
    page.force_login(personas.alice)
    response = page.get(f"/projects/{version.project_id}/goldsets/{version.label}/")
    assert response.status_code == 200
    return response.content.decode()


def row(html: str, row_id: str) -> str:
    """The visible text of the element (a table row, a paragraph) with this id."""
    found = re.search(rf'<(tr|p) [^>]*id="{row_id}"[^>]*>(.*?)</\1>', html, re.S)
    assert found, f"no row {row_id}"
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found.group(2)))


def test_an_expected_recall_below_95_percent_says_what_it_is(personas, api_client_for):
    setup, _ = stopped_project(personas, api_client_for, [personas.bob, personas.carol])
    # A 70 %-confidence stop can expect more left than 95 % recall allows: the model put 70 %
    # on "95 % found" while its mean expects more relevant left (a long tail of small chances).
    stops = JudgingStop.objects.filter(assignment__in=Assignment.objects.filter(query=setup.query))
    for stop in stops:
        assert stop.confidence == 0.7 and stop.p_target >= 0.7
    stops.update(expected_remaining=3.0)
    queries_approve(project=setup.project, by=personas.alice)
    version = golden_set_version_freeze(project=setup.project, by=personas.alice)
    found = Resolution.objects.filter(candidate__query__project=setup.project, grade__gte=1)
    expected = round(found.count() / (found.count() + 3.0), 4)
    stopped = version.counts["stopped"]
    assert stopped["estimated_recall"] == expected < 0.95
    assert stopped["stops"] == 2 and stopped["queries"] == 1
    assert stopped["rules"] == [{"target": 0.95, "confidence": 0.7, "checks": 0, "stops": 2}]
    assert version.header["stopped"] == stopped
    html = version_page(personas, version)
    recall = row(html, "estimated-recall")
    # The number is shown, with what it is and why it can be below 95 %.
    assert f"{expected:.3f}" in recall and "Expected recall of the judging" in recall
    assert "stops in 1 queries" not in recall and "a stop in 1 query" in recall
    basis = row(html, "estimated-recall-basis")  # under the table, beside what it rests on
    assert "the recall the model expects on average, not a guarantee" in basis
    assert "can be below 95%" in basis
    assert (
        row(html, "stop-rules")
        .strip()
        .endswith("2 stops at 70% confidence of 95% found, on the model alone")
    )


def test_the_version_lists_the_rules_stops_rested_on_in_one_order(personas, api_client_for):
    """Two rules alike but for their random checks are listed fewest checks first, whichever
    stop was taken first: the version page reads the same on every freeze."""
    setup, _ = stopped_project(personas, api_client_for, [personas.bob, personas.carol])
    first, second = JudgingStop.objects.order_by("pk")
    JudgingStop.objects.filter(pk=first.pk).update(checks=3)
    JudgingStop.objects.filter(pk=second.pk).update(checks=0)
    queries_approve(project=setup.project, by=personas.alice)
    version = golden_set_version_freeze(project=setup.project, by=personas.alice)
    assert [r["checks"] for r in version.counts["stopped"]["rules"]] == [0, 3]
