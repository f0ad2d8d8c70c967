"""The annotation page shows a query's candidates most likely relevant first, says so, and lets
the annotator switch to the pool's plain order; the grade the page sends records that order."""

from __future__ import annotations

import re

from django.urls import reverse

from annotation.models import Judgment, QueryReview, Resolution
from annotation.models.judging import Provenance, ReviewState
from annotation.selectors.judging_order import judging_order_for
from tests.annotation.factories import judging_setup, pool


def shown(html: str) -> list[int]:
    return [int(i) for i in re.findall(r'data-candidate-id="(\d+)"', html)]


def test_the_page_follows_the_likely_order_and_switches_to_the_plain_one(
    personas, client, api_client_for
):
    setup = judging_setup(personas, queries=2, per_query=5)
    done, done_candidates = setup.first()
    query = setup.queries[1]
    pool(query, list(reversed(setup.chunks[:5])), source="other")
    QueryReview.objects.update_or_create(query=done, defaults={"state": ReviewState.RESOLVED})
    for i, cand in enumerate(done_candidates):
        Resolution.objects.create(
            candidate=cand, grade=2 if i == 0 else 0, provenance=Provenance.UNANIMOUS
        )
    client.force_login(personas.bob)
    url = reverse("annotate-query", args=[personas.project.pk, query.pk])
    likely = client.get(url).content.decode()
    assert "most likely relevant first" in likely and "?order=plain" in likely
    assert 'data-order="likely"' in likely
    assert shown(likely) == judging_order_for(query=query, annotator=personas.bob)
    plain = client.get(url + "?order=plain").content.decode()
    assert "the pool&#x27;s plain order" in plain or "the pool's plain order" in plain
    assert 'data-order="plain"' in plain
    api = api_client_for(personas.bob)
    listed = api.get(f"/api/v1/projects/{personas.project.pk}/queries/{query.pk}/annotation/")
    assert shown(plain) == [c["id"] for c in listed.json()["candidates"]]
    # The page's grade carries its order; the judgment keeps it.
    first = shown(likely)[0]
    response = api.put(
        f"/api/v1/projects/{personas.project.pk}/candidates/{first}/judgment/",
        {"grade": 2, "order": "likely"},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert Judgment.objects.get(candidate_id=first, annotator=personas.bob).order == "likely"
    bad = api.put(
        f"/api/v1/projects/{personas.project.pk}/candidates/{first}/judgment/",
        {"grade": 2, "order": "sideways"},
        format="json",
    )
    assert bad.status_code == 400
    # What is graded goes after what is left.
    assert shown(client.get(url).content.decode())[-1] == first
