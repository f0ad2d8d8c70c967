"""Saving a grade is idempotent: repeated or concurrent saves leave exactly one judgment."""

from __future__ import annotations

import threading

import pytest
from django.db import close_old_connections, connection
from rest_framework.test import APIClient

from annotation.models import Assignment, Judgment
from tests.annotation.factories import judging_setup


def test_the_same_grade_sent_twice_leaves_one_judgment(personas, api_client_for):
    setup = judging_setup(personas)
    _query, candidates = setup.first()
    client = api_client_for(personas.bob)
    url = f"/api/v1/projects/{personas.project.pk}/candidates/{candidates[0].pk}/judgment/"
    for grade in (2, 2, 1, 1):
        assert client.put(url, {"grade": grade}, format="json").status_code == 200
    judgments = Judgment.objects.filter(candidate=candidates[0], annotator=personas.bob)
    assert judgments.count() == 1
    assert judgments.get().grade == 1
    assignment = Assignment.objects.get(query=candidates[0].query, annotator=personas.bob)
    assert assignment.judged == 1


@pytest.mark.django_db(transaction=True)
def test_the_same_grade_sent_concurrently_leaves_one_judgment(personas):
    if connection.vendor == "sqlite":
        pytest.skip("SQLite serialises writers; the concurrent race needs PostgreSQL")
    setup = judging_setup(personas)
    _query, candidates = setup.first()
    url = f"/api/v1/projects/{personas.project.pk}/candidates/{candidates[0].pk}/judgment/"
    statuses: list[int] = []
    barrier = threading.Barrier(8)

    def send() -> None:
        client = APIClient()
        client.force_authenticate(personas.bob)
        barrier.wait()
        try:
            statuses.append(client.put(url, {"grade": 2}, format="json").status_code)
        finally:
            close_old_connections()

    threads = [threading.Thread(target=send) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses == [200] * 8
    assert Judgment.objects.filter(candidate=candidates[0], annotator=personas.bob).count() == 1
    assert Assignment.objects.get(query=candidates[0].query, annotator=personas.bob).judged == 1
