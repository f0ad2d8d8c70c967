"""Adjudication: a lead sets final grades with a reason; a stale version is refused (409)."""

from __future__ import annotations

import pytest

from annotation.models import QueryReview, Resolution
from annotation.services.projects import membership_set
from tests.annotation.factories import grade_all, judging_setup


@pytest.fixture
def flagged(personas, api_client_for):
    setup = judging_setup(personas, per_query=3)
    query, candidates = setup.first()
    grade_all(api_client_for(personas.bob), personas.project, candidates, [2, 0, 1], note="b")
    grade_all(api_client_for(personas.carol), personas.project, candidates, [0, 0, 1], note="c")
    assert QueryReview.objects.get(query=query).state == "flagged"
    return query, candidates


def adjudicate(client, project, query, candidates, version, grades, reason="annotator_error"):
    return client.post(
        f"/api/v1/projects/{project.pk}/review/queries/{query.pk}/adjudicate/",
        {
            "version": version,
            "grades": [
                {"candidate_id": c.pk, "grade": g} for c, g in zip(candidates, grades, strict=True)
            ],
            "reason": reason,
            "note": "chunk 1 answers it",
        },
        format="json",
    )


def test_the_lead_sees_every_grade_and_note_side_by_side(personas, api_client_for, flagged):
    query, candidates = flagged
    url = f"/api/v1/projects/{personas.project.pk}/review/queries/{query.pk}/"
    data = api_client_for(personas.alice).get(url).json()
    first = next(c for c in data["candidates"] if c["candidate_id"] == candidates[0].pk)
    assert first["grades"] == [
        {"annotator": "bob", "grade": 2, "note": "b"},
        {"annotator": "carol", "grade": 0, "note": "c"},
    ]
    hidden = api_client_for(personas.alice).get(url + "?hide_names=1").json()
    names = [g["annotator"] for g in hidden["candidates"][0]["grades"]]
    assert names == ["Annotator A", "Annotator B"]
    assert "bob" not in str(hidden) and "carol" not in str(hidden)


def test_adjudicated_grades_record_provenance_and_reason(personas, api_client_for, flagged):
    query, candidates = flagged
    version = QueryReview.objects.get(query=query).version
    r = adjudicate(
        api_client_for(personas.alice), personas.project, query, candidates, version, [2, 0, 1]
    )
    assert r.status_code == 200, r.content
    assert r.json()["state"] == "resolved"
    finals = Resolution.objects.filter(candidate__query=query)
    assert {(f.grade, f.provenance, f.reason) for f in finals} == {
        (2, "adjudicated", "annotator_error"),
        (0, "adjudicated", "annotator_error"),
        (1, "adjudicated", "annotator_error"),
    }
    assert all(f.resolved_by == personas.alice for f in finals)
    # annotators can no longer change their grades
    late = api_client_for(personas.bob).put(
        f"/api/v1/projects/{personas.project.pk}/candidates/{candidates[0].pk}/judgment/",
        {"grade": 0},
        format="json",
    )
    assert late.status_code == 409


def test_two_leads_adjudicating_at_once_one_wins_the_other_gets_409(
    personas, api_client_for, flagged
):
    query, candidates = flagged
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("lena", password="x")
    membership_set(project=personas.project, username="lena", role="lead")
    lena = get_user_model().objects.get(username="lena")
    version = QueryReview.objects.get(query=query).version  # both loaded the page now
    first = adjudicate(
        api_client_for(personas.alice), personas.project, query, candidates, version, [2, 0, 1]
    )
    second = adjudicate(
        api_client_for(lena),
        personas.project,
        query,
        candidates,
        version,
        [0, 0, 0],
        "guideline_gap",
    )
    assert first.status_code == 200
    assert second.status_code == 409
    assert second.json()["current_version"] == version + 1
    grades = sorted(
        Resolution.objects.filter(candidate__query=query).values_list("grade", flat=True)
    )
    assert grades == [0, 1, 2]  # alice's grades, not lena's zeros


def test_the_adjudication_page_answers_409_on_a_stale_version(personas, flagged):
    from django.test import Client

    from tests.conftest import PASSWORD

    query, candidates = flagged
    client = Client()
    assert client.login(username="alice", password=PASSWORD)
    version = QueryReview.objects.get(query=query).version
    form = {f"grade-{c.pk}": "1" for c in candidates} | {"reason": "pool_problem"}
    ok = client.post(
        f"/projects/{personas.project.pk}/review/{query.pk}/", form | {"version": version}
    )
    assert ok.status_code == 302
    stale = client.post(
        f"/projects/{personas.project.pk}/review/{query.pk}/", form | {"version": version}
    )
    assert stale.status_code == 409
    assert "Another lead changed this query" in stale.content.decode()


def test_adjudication_must_grade_every_candidate(personas, api_client_for, flagged):
    query, candidates = flagged
    version = QueryReview.objects.get(query=query).version
    r = adjudicate(
        api_client_for(personas.alice), personas.project, query, candidates[:2], version, [2, 0]
    )
    assert r.status_code == 400
    assert QueryReview.objects.get(query=query).state == "flagged"
