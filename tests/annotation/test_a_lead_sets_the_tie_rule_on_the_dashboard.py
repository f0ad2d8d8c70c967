"""The dashboard shows who decided the final grades and lets a lead change the tie rule; the
review page says in words why each query is flagged."""

from __future__ import annotations

import re

from django.test import Client

from annotation.models import QueryReview
from tests.annotation.test_changing_the_tie_rule_resettles_unapproved_queries import judged


def page_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def decided(html: str) -> dict[str, int]:
    return {
        p: int(n)
        for p, n in re.findall(
            r'data-provenance="(\w+)"><td>[^<]*</td><td class="num">(\d+)</td>', html
        )
    }


def test_the_dashboard_counts_the_grades_each_rule_decided(personas, api_client_for):
    judged(personas, api_client_for)
    html = (
        page_for(personas.alice).get(f"/projects/{personas.project.pk}/dashboard/").content.decode()
    )
    # five queries × three candidates: four one-grade ties (tie → lower), the rest unanimous
    assert decided(html) == {
        "unanimous": 11,
        "majority": 0,
        "tie_lower": 4,
        "tie_higher": 0,
        "adjudicated": 0,
        "machine": 0,  # a machine judge fills only what no person graded, when a lead asks
        "carried": 0,  # a refresh carries a grade over a corpus update
        "simulated": 0,  # settled from simulated grades (the demo's)
    }
    assert 'value="lower" selected' in html


def test_a_lead_switches_the_rule_and_is_told_how_many_queries_moved(personas, api_client_for):
    judged(personas, api_client_for)
    client = page_for(personas.alice)
    response = client.post(
        f"/projects/{personas.project.pk}/dashboard/tie-rule/", {"tie_rule": "higher"}, follow=True
    )
    html = response.content.decode()
    assert "4 queries not yet approved settled differently" in html
    assert decided(html)["tie_higher"] == 4 and decided(html)["tie_lower"] == 0
    personas.project.refresh_from_db()
    assert personas.project.tie_rule == "higher"


def test_an_unknown_rule_is_refused_on_the_page(personas):
    client = page_for(personas.alice)
    response = client.post(
        f"/projects/{personas.project.pk}/dashboard/tie-rule/", {"tie_rule": "coin"}
    )
    assert response.status_code == 400
    assert (
        page_for(personas.bob)
        .post(f"/projects/{personas.project.pk}/dashboard/tie-rule/", {"tie_rule": "lead"})
        .status_code
        == 403
    )


def test_the_review_page_says_why_a_query_is_flagged(personas, api_client_for):
    queries, _ = judged(personas, api_client_for)
    client = page_for(personas.alice)
    client.post(f"/projects/{personas.project.pk}/dashboard/tie-rule/", {"tie_rule": "lead"})
    assert QueryReview.objects.get(query=queries[0]).state == "flagged"
    html = client.get(f"/projects/{personas.project.pk}/review/").content.decode()
    sentences = re.findall(r'<span class="badge warn">([^<]+)</span>', html)
    assert any(re.fullmatch(r"carol 2 and bob 1 on chunk [123], no majority", s) for s in sentences)
    assert "tie" not in sentences
