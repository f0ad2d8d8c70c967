"""Approval: one by one or in bulk; only resolved queries can be approved."""

from __future__ import annotations

from annotation.models import QueryReview
from tests.annotation.factories import grade_all, judging_setup


def test_leads_approve_one_query_or_many(personas, api_client_for):
    setup = judging_setup(personas, queries=3, per_query=2)
    for query in setup.queries[:2]:
        for user in (personas.bob, personas.carol):
            grade_all(api_client_for(user), personas.project, setup.candidates[query.pk], [1, 0])
    one, two, unfinished = setup.queries
    lead = api_client_for(personas.alice)
    base = f"/api/v1/projects/{personas.project.pk}/review/"
    version = QueryReview.objects.get(query=one).version
    r = lead.post(f"{base}queries/{one.pk}/approve/", {"version": version}, format="json")
    assert r.status_code == 200 and r.json()["state"] == "approved"
    again = lead.post(f"{base}queries/{one.pk}/approve/", {"version": version}, format="json")
    assert again.status_code == 409
    resolved = lead.get(f"{base}queue/?state=resolved").json()
    assert [r["query_id"] for r in resolved] == [two.pk]
    bulk = lead.post(
        f"{base}approve/", {"query_ids": [one.pk, two.pk, unfinished.pk]}, format="json"
    ).json()
    assert bulk == {"approved": [two.pk], "skipped": [one.pk, unfinished.pk]}
    states = dict(QueryReview.objects.values_list("query_id", "state"))
    assert states == {one.pk: "approved", two.pk: "approved", unfinished.pk: "open"}
