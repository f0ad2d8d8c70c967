"""A grade save is the most frequent write of all, and on SQLite every write waits for the one
before: its statements are counted, so that one more is a decision, not an accident
(the quick-start figures are in docs/benchmarks.md)."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from annotation.models import Assignment, QueryReview
from annotation.models.judging import ReviewState
from tests.annotation.factories import judging_setup

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK")


def statements_of_a_save(client: APIClient, project, candidate, grade: int) -> list[str]:
    url = f"/api/v1/projects/{project.pk}/candidates/{candidate.pk}/judgment/"
    with CaptureQueriesContext(connection) as captured:
        response = client.put(url, {"grade": grade}, format="json")
    assert response.status_code == 200, response.content
    return [
        q["sql"] for q in captured.captured_queries if not q["sql"].startswith(TRANSACTION_CONTROL)
    ]


def signed_in(user) -> APIClient:
    client = APIClient()
    client.force_login(user)  # a session, as the annotation page's own requests have
    return client


def test_a_grade_save_takes_eight_statements(personas):
    setup = judging_setup(personas)
    _query, candidates = setup.first()
    sql = statements_of_a_save(signed_in(personas.bob), personas.project, candidates[0], 2)
    # The session and its user; the caller's role in the project; the candidate with its query
    # and the caller's assignment; the assignment locked, with whether the query's grades are
    # final and the guidelines' version; the judgment upserted; the caller's judgments of the
    # query counted; the assignment's progress updated.
    assert len(sql) == 8, "\n".join(sql)
    assert "django_session" in sql[0] and "auth_user" in sql[1]
    assert sql[5].startswith("INSERT") and sql[7].startswith("UPDATE")


def test_changing_a_grade_takes_seven_statements(personas):
    setup = judging_setup(personas)
    _query, candidates = setup.first()
    client = signed_in(personas.bob)
    statements_of_a_save(client, personas.project, candidates[0], 2)
    # The progress count did not change: nothing to update.
    sql = statements_of_a_save(client, personas.project, candidates[0], 1)
    assert len(sql) == 7, "\n".join(sql)


def test_the_last_grade_of_a_query_settles_it_in_the_same_request(personas):
    setup = judging_setup(personas)
    query, candidates = setup.first()
    for user in (personas.bob, personas.carol):
        client = signed_in(user)
        for candidate in candidates:
            statements_of_a_save(client, personas.project, candidate, 2)
    assert set(Assignment.objects.filter(query=query).values_list("status", flat=True)) == {"done"}
    assert QueryReview.objects.get(query=query).state == ReviewState.RESOLVED
