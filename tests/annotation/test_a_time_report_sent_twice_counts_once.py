"""Time spent on a query is stored once per visit of the annotation page: a report sent again
(its answer was lost as the page unloaded) or late (an older total) changes nothing."""

from __future__ import annotations

import pytest

from annotation.models import QueryAnnotation, VisitTime
from tests.annotation.factories import judging_setup


def test_a_visits_time_reported_again_or_late_counts_once(personas, api_client_for):
    setup = judging_setup(personas)
    query, _ = setup.first()
    client = api_client_for(personas.bob)
    url = f"/api/v1/projects/{personas.project.pk}/queries/{query.pk}/annotation/"

    def report(body: dict[str, object]) -> float:
        response = client.put(url, body, format="json")
        assert response.status_code == 200, response.content
        return response.json()["seconds_spent"]

    assert report({"visit": "a", "seconds": 2.0}) == pytest.approx(2.0)
    assert report({"visit": "a", "seconds": 2.0}) == pytest.approx(2.0)  # sent again
    assert report({"visit": "a", "seconds": 5.0}) == pytest.approx(5.0)  # the visit went on
    assert report({"visit": "a", "seconds": 3.0}) == pytest.approx(5.0)  # an older total, late
    assert report({"visit": "b", "seconds": 1.5}) == pytest.approx(6.5)  # another visit
    assert report({"seconds": 1.0}) == pytest.approx(7.5)  # without a visit: added
    assert report({"note": "hm"}) == pytest.approx(7.5)

    stored = QueryAnnotation.objects.get(query=query, annotator=personas.bob)
    assert stored.seconds_spent == pytest.approx(7.5)
    visits = dict(VisitTime.objects.values_list("visit", "seconds"))
    assert visits == {"a": pytest.approx(5.0), "b": pytest.approx(1.5)}
