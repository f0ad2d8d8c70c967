"""Between any two versions: queries added and removed, grades changed per (query, chunk) and
totals — the same answer on the page, in the API and on the command line."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from annotation.models import QueryReview
from annotation.models.judging import ReviewState
from annotation.services.goldsets import golden_set_version_freeze
from tests.annotation.goldset_factories import make_query, regrade, small_project


@pytest.fixture
def two_versions(personas):
    project, chunks, queries = small_project(personas)
    golden_set_version_freeze(project=project, by=personas.alice)
    regrade(queries[1], chunks[4], 2)  # refund: doc-1#1 goes 1 → 2
    QueryReview.objects.filter(query=queries[2]).update(state=ReviewState.FLAGGED)  # removed
    added = make_query(project, "cancel my subscription", {chunks[7]: 2, chunks[8]: 0})
    golden_set_version_freeze(project=project, by=personas.alice)
    return project, queries, added


def test_the_api_lists_added_removed_and_changed(two_versions, personas, api_client_for):
    project, queries, added = two_versions
    client = api_client_for(personas.victor)
    response = client.get(f"/api/v1/projects/{project.pk}/goldsets/diff/?a=v1&b=v2")
    assert response.status_code == 200
    body = response.json()
    assert body["added_queries"] == [str(added.pk)]
    assert body["removed_queries"] == [str(queries[2].pk)]
    assert body["changed_grades"] == [
        {"query_id": str(queries[1].pk), "chunk_id": "doc-1#1", "old": 1, "new": 2}
    ]
    assert body["totals"]["queries_a"] == 3 and body["totals"]["queries_b"] == 3
    assert body["totals"]["judgments_a"] == 6 and body["totals"]["judgments_b"] == 7
    assert body["totals"]["relevant_a"] == 2 and body["totals"]["relevant_b"] == 4
    assert body["a"]["content_hash"] != body["b"]["content_hash"]
    missing = client.get(f"/api/v1/projects/{project.pk}/goldsets/diff/?a=v1&b=v9")
    assert missing.status_code == 404


def test_the_command_prints_the_same_diff(two_versions, run_command):
    project, queries, added = two_versions
    text = run_command("diff_goldset", "--project", project.name, "v1", "v2")
    assert "queries: 3 → 3 (+1 added, -1 removed, 0 text changed)" in text
    assert f"~ {queries[1].pk} doc-1#1: grade 1 → 2" in text
    assert f"+ query {added.pk}" in text
    as_json = json.loads(
        run_command("diff_goldset", "--project", project.name, "v1", "v2", "--json")
    )
    assert as_json["totals"]["grades_changed"] == 1
    with pytest.raises(CommandError, match="no version 'v7'") as error:
        call_command("diff_goldset", "--project", project.name, "v1", "v7")
    assert error.value.returncode == 2


def test_the_page_shows_totals_and_changed_grades(two_versions, personas):
    project, _, _ = two_versions
    client = Client()
    client.force_login(personas.victor)
    page = client.get(f"/projects/{project.pk}/goldsets/diff/?a=v1&b=v2")
    assert page.status_code == 200
    html = page.content.decode()
    assert "+1 added · −1 removed" in html
    assert "refund policy for annual plans" in html and "doc-1#1" in html
    default = client.get(f"/projects/{project.pk}/goldsets/diff/")  # latest against its parent
    assert default.context["a"].label == "v1" and default.context["b"].label == "v2"


def test_a_version_compared_with_itself_is_unchanged(two_versions, run_command):
    project, _, _ = two_versions
    text = run_command("diff_goldset", "--project", project.name, "v2", "v2")
    assert "(+0 added, -0 removed, 0 grades changed)" in text
