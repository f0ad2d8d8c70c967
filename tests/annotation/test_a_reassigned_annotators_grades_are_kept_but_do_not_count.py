"""Reassigning a query keeps what the first annotator saved, but only the assigned annotators'
grades decide the final grades."""

from __future__ import annotations

from annotation.models import Assignment, Judgment, QueryAnnotation, Resolution
from annotation.services.assignment import assignment_reassign
from annotation.services.projects import membership_set
from tests.annotation.factories import grade_all, judging_setup


def test_the_replacement_decides_the_final_grades(personas, api_client_for):
    from django.contrib.auth import get_user_model

    from tests.conftest import PASSWORD

    setup = judging_setup(personas)  # bob and carol, three candidates
    project = setup.project
    query, candidates = setup.first()
    get_user_model().objects.create_user("dave", password=PASSWORD)
    membership_set(project=project, username="dave", role="annotator")

    grade_all(api_client_for(personas.bob), project, candidates, [2, 2, 2])
    api_client_for(personas.bob).put(
        f"/api/v1/projects/{project.pk}/queries/{query.pk}/annotation/",
        {"flags": {"ambiguous": True}, "note": "unsure"},
        format="json",
    )
    assignment_reassign(
        assignment=Assignment.objects.get(query=query, annotator=personas.bob), to_username="dave"
    )
    grade_all(api_client_for(personas.carol), project, candidates, [0, 0, 1])
    grade_all(api_client_for(get_user_model().objects.get(username="dave")), project, candidates,
              [0, 0, 1])  # fmt: skip

    # bob's work is still there ...
    assert Judgment.objects.filter(annotator=personas.bob).count() == 3
    # ... but carol and dave agree, so the query resolves by rule to their grades
    finals = dict(
        Resolution.objects.filter(candidate__query=query).values_list("candidate_id", "grade")
    )
    assert finals == {c.pk: g for c, g in zip(candidates, [0, 0, 1], strict=True)}
    assert query.review.state == "resolved"
    assert QueryAnnotation.objects.filter(annotator=personas.bob, ambiguous=True).exists()
