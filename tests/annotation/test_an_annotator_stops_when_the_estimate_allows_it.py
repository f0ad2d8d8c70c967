"""Knowing when to stop (issue 22 §2): an annotator who follows the order may finish a query
exactly when the rule the page states holds (the model puts at least the stated confidence,
70 %, on 95 % of its relevant candidates being found; no random check), never before, and only
where the lead allows it; what is left is *not judged (stopped)*, never a 0, and it stays that
way."""

from __future__ import annotations

from annotation.models import Assignment, Judgment, QueryReview
from annotation.models.stopping import JudgingStop, StoppedCandidate
from annotation.selectors.judging_order import stop_estimate_for
from goldsmith.judging_order import CHECKS, CONFIDENCE
from tests.annotation.stopping_factories import POOL, follow_the_order, stoppable_project


def allow_stopping(api_client_for, personas, on=True):
    return api_client_for(personas.alice).put(
        f"/api/v1/projects/{personas.project.pk}/stopping/",
        {"stopping_allowed": on},
        format="json",
    )


def test_only_a_lead_allows_stopping(personas, api_client_for):
    url = f"/api/v1/projects/{personas.project.pk}/stopping/"
    assert api_client_for(personas.bob).put(url, {"stopping_allowed": True}).status_code == 403
    assert api_client_for(personas.alice).put(url, {}).status_code == 400
    response = allow_stopping(api_client_for, personas)
    assert response.status_code == 200 and response.json() == {"stopping_allowed": True}
    personas.project.refresh_from_db()
    assert personas.project.stopping_allowed is True


def test_a_stop_is_offered_exactly_when_the_stated_rule_holds_and_never_before(
    personas, api_client_for
):
    setup = stoppable_project(personas)
    bob = api_client_for(personas.bob)
    url = f"/api/v1/projects/{setup.project.pk}/queries/{setup.query.pk}/stop/"
    fresh = bob.get(url).json()
    assert fresh["may_stop"] is False and fresh["unjudged"] == POOL
    # The page and the API say which figure the stop rests on: the model's probability that
    # 95 % are found, the confidence it needs, and that no candidate is drawn at random.
    assert CONFIDENCE == 0.7 and CHECKS == 0
    assert fresh["confidence"] == 0.7 and fresh["checks"] == 0 and fresh["target"] == 0.95
    method = fresh["method"]
    assert "at least 70% probability on 95% of the relevant candidates being found" in method
    assert "no candidate is drawn at random" in method and "never to anyone else's" in method
    assert f"{fresh['p_target']:.0%} probability on 95%" in fresh["summary"]
    allow_stopping(api_client_for, personas)
    refused = bob.post(url)
    assert refused.status_code == 409 and "95%" in refused.json()["detail"]
    seen: list[dict] = []
    estimate = follow_the_order(bob, setup, personas.bob, seen)
    assert estimate["may_stop"] is True and estimate["unjudged"] > 0
    # The stop is offered exactly when the stated rule holds: never before it, and at once.
    for step in seen:
        assert step["may_stop"] is (step["p_target"] >= step["confidence"]), step
        assert step["draw"] == [] and step["checked"] == 0 and step["checks"] == 0
    assert [s["may_stop"] for s in seen] == [False] * (len(seen) - 1) + [True]
    exact = stop_estimate_for(query=setup.query, annotator=personas.bob)
    assert exact.may_stop and exact.p_target >= exact.confidence == CONFIDENCE
    assert "you may finish this query here" in estimate["summary"].lower()
    allow_stopping(api_client_for, personas, on=False)
    refused = bob.post(url)
    assert refused.status_code == 409 and "does not allow" in refused.json()["detail"]
    assert not JudgingStop.objects.exists()


def test_the_candidates_left_are_not_judged_stopped_never_zero(personas, api_client_for):
    setup = stoppable_project(personas)
    allow_stopping(api_client_for, personas)
    bob = api_client_for(personas.bob)
    estimate = follow_the_order(bob, setup, personas.bob)
    judged = estimate["judged"]
    assert judged < POOL
    stopped = bob.post(f"/api/v1/projects/{setup.project.pk}/queries/{setup.query.pk}/stop/")
    assert stopped.status_code == 200, stopped.content
    assert stopped.json()["stopped"] == POOL - judged
    assert "not judged (stopped)" in stopped.json()["summary"]
    assignment = Assignment.objects.get(query=setup.query, annotator=personas.bob)
    assert assignment.status == "done"
    left = set(
        StoppedCandidate.objects.filter(stop__assignment=assignment).values_list(
            "candidate_id", flat=True
        )
    )
    assert len(left) == POOL - judged
    # No grade of bob's exists for what he left: not a 0, no grade at all.
    assert not Judgment.objects.filter(annotator=personas.bob, candidate_id__in=left).exists()
    stop = JudgingStop.objects.get(assignment=assignment)
    assert stop.found == 2 and stop.checked == 0 and stop.judged == judged
    # Carol has not finished: the query is still being annotated.
    assert QueryReview.objects.get(query=setup.query).state != "resolved"


def test_a_grade_after_a_stop_keeps_the_query_finished(personas, api_client_for):
    setup = stoppable_project(personas)
    allow_stopping(api_client_for, personas)
    bob = api_client_for(personas.bob)
    follow_the_order(bob, setup, personas.bob)
    bob.post(f"/api/v1/projects/{setup.project.pk}/queries/{setup.query.pk}/stop/")
    left = StoppedCandidate.objects.filter(stop__assignment__annotator=personas.bob).first()
    response = bob.put(
        f"/api/v1/projects/{setup.project.pk}/candidates/{left.candidate_id}/judgment/",
        {"grade": 1},
        format="json",
    )
    assert response.status_code == 200 and response.json()["status"] == "done"
    after = bob.get(f"/api/v1/projects/{setup.project.pk}/queries/{setup.query.pk}/stop/").json()
    assert after["stopped"] == POOL - after["judged"]


def test_the_method_says_the_random_checks_when_the_rule_asks_for_them():
    from dataclasses import replace

    from annotation.api.stopping import method_words
    from goldsmith import judging_order as jo

    ids = tuple(f"c{i}" for i in range(6))
    pool = jo.PooledQuery("q", ids, {c: {"bm25": i + 1} for i, c in enumerate(ids)})
    alone = jo.stop_estimate(pool, {"c0": 2}, jo.SourcePriors())
    assert "no candidate is drawn at random" in method_words(alone)
    checked = method_words(replace(alone, checks=3, confidence=0.5))
    assert "3 candidates drawn at random" in checked and "unbiased" in checked
    assert "at least 50% probability on 95%" in checked
