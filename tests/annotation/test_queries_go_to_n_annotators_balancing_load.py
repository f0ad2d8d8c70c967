"""Assignment: N annotators per query, balanced load, queues in order, reassignment by leads."""

from __future__ import annotations

from collections import Counter

from annotation.models import Assignment, Judgment
from annotation.services.assignment import assignment_reassign, queries_assign
from annotation.services.projects import membership_set
from tests.annotation.factories import make_chunks, make_query, pool


def _pooled_queries(project, n):
    chunks = make_chunks(project)
    queries = [make_query(project, f"question number {i}") for i in range(n)]
    for q in queries:
        pool(q, chunks[:2])
    return queries


def test_each_query_goes_to_n_annotators_with_balanced_load(personas):
    project = personas.project
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("dave", password="x")
    membership_set(project=project, username="dave", role="annotator")
    _pooled_queries(project, 9)
    result = queries_assign(project=project, per_query=2)
    assert result.created == 18
    per_query = Counter(Assignment.objects.values_list("query_id", flat=True))
    assert set(per_query.values()) == {2}
    load = Counter(Assignment.objects.values_list("annotator__username", flat=True))
    assert set(load) == {"bob", "carol", "dave"}  # leads and viewers are not given queries
    assert max(load.values()) - min(load.values()) <= 1
    # a queue is numbered 1..n in query order
    for username in load:
        orders = list(
            Assignment.objects.filter(annotator__username=username)
            .order_by("order")
            .values_list("order", "query_id")
        )
        assert [o for o, _ in orders] == list(range(1, len(orders) + 1))
        assert [q for _, q in orders] == sorted(q for _, q in orders)
    assert queries_assign(project=project).created == 0  # idempotent


def test_the_project_setting_decides_n_by_default(personas):
    project = personas.project
    project.annotators_per_query = 1
    project.save()
    _pooled_queries(project, 4)
    queries_assign(project=project)
    assert Counter(Assignment.objects.values_list("annotator__username", flat=True)) == {
        "bob": 2,
        "carol": 2,
    }


def test_a_lead_reassigns_a_query_and_the_old_grades_are_kept_but_not_counted(
    personas, api_client_for
):
    project = personas.project
    personas.project.annotators_per_query = 1
    project.save()
    [query] = _pooled_queries(project, 1)
    queries_assign(project=project)
    assignment = Assignment.objects.get(query=query)
    old = assignment.annotator
    new = personas.carol if old == personas.bob else personas.bob
    cand = query.candidates.first()
    Judgment.objects.create(candidate=cand, annotator=old, grade=2)
    response = api_client_for(personas.alice).post(
        f"/api/v1/projects/{project.pk}/assignments/{assignment.pk}/reassign/",
        {"username": new.username},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["annotator"] == new.username
    assert Judgment.objects.filter(annotator=old, grade=2).exists()  # nothing saved is lost
    moved = Assignment.objects.get(query=query)
    assert moved.annotator == new
    assert moved.judged == 0  # the old grade does not count for the new annotator
    refused = assignment_reassign
    try:
        refused(assignment=Assignment.objects.get(query=query), to_username="victor")
    except ValueError as error:
        assert "not an annotator" in str(error)
    else:
        raise AssertionError("a viewer was given a query")


def test_the_queue_shows_the_callers_queries_in_order_with_progress(personas, api_client_for):
    project = personas.project
    queries = _pooled_queries(project, 3)
    queries_assign(project=project, per_query=2)
    cand = queries[0].candidates.first()
    client = api_client_for(personas.bob)
    client.put(
        f"/api/v1/projects/{project.pk}/candidates/{cand.pk}/judgment/", {"grade": 1}, format="json"
    )
    queue = client.get(f"/api/v1/projects/{project.pk}/queue/").json()
    assert queue["total"] == 3 and queue["done"] == 0
    assert [i["query_id"] for i in queue["items"]] == [q.pk for q in queries]
    assert queue["items"][0]["judged"] == 1 and queue["items"][0]["total"] == 2
    assert queue["items"][0]["status"] == "started"


def test_a_started_query_reads_started_in_chinese_not_a_start_time(personas, client):
    # The run table's "Started" (a time) and a query's status "Started" are two words in
    # Chinese: the project catalog's 开始时间 took the status's place in every queue.
    project = personas.project
    queries = _pooled_queries(project, 2)
    queries_assign(project=project, per_query=2)
    cand = queries[0].candidates.first()
    Judgment.objects.create(annotator=personas.bob, candidate=cand, grade=1)
    Assignment.objects.filter(annotator=personas.bob, query=queries[0]).update(status="started")
    client.force_login(personas.bob)
    page = client.get(
        f"/projects/{project.pk}/annotate/", headers={"accept-language": "zh-hans"}
    ).content.decode()
    assert "已开始" in page
    assert "开始时间" not in page
