"""A lead gives a query several reference answers (``reference_answers``, the primary first)
through the API; a freeze copies them into the version and its content hash; the native export
carries them and reads back byte for byte through an import; a version made without them keeps
the hash it had."""

from __future__ import annotations

import json

from django.core.management import call_command

from annotation.models import GoldenItem, Query
from annotation.selectors.goldsets import golden_queries
from annotation.services.goldsets import golden_set_version_freeze
from goldsmith.formats.goldset import goldset_content_hash, read_goldset
from tests.annotation.goldset_factories import small_project


def _url(project, query) -> str:
    return f"/api/v1/projects/{project.pk}/queries/{query.pk}/answer-key/"


def _export(project, label, path):
    call_command(
        "export_goldset", "--project", project.name, "--version", label, "--format", "jsonl",
        "-o", str(path),
    )  # fmt: skip
    return path


KEY = {"reference_answers": ["7 days", "seven days", "a week"]}


def test_several_references_are_set_frozen_exported_and_read_back(
    personas, api_client_for, tmp_path
):
    project, _, queries = small_project(personas)
    lead = api_client_for(personas.alice)
    response = lead.put(_url(project, queries[1]), KEY, format="json")
    assert response.status_code == 200, response.json()
    got = lead.get(_url(project, queries[1])).json()
    assert got["reference_answer"] == "7 days"
    assert got["reference_answers"] == ["7 days", "seven days", "a week"]
    assert Query.objects.get(pk=queries[1].pk).reference_alternatives == ["seven days", "a week"]

    version = golden_set_version_freeze(project=project, by=personas.alice)
    item = GoldenItem.objects.get(version=version, query_id=str(queries[1].pk))
    assert item.reference_alternatives == ["seven days", "a week"]
    path = _export(project, "v1", tmp_path / "v1.jsonl")
    exported = read_goldset(path)
    assert goldset_content_hash(exported.queries) == version.content_hash
    (line,) = [
        json.loads(x)
        for x in path.read_text().splitlines()[1:]
        if json.loads(x)["query_id"] == str(queries[1].pk)
    ]
    assert line["reference_answers"] == ["7 days", "seven days", "a week"]
    key = next(q for q in exported.queries if q.query_id == str(queries[1].pk)).answer_key()
    assert key.references == ("7 days", "seven days", "a week")


def test_the_primary_reference_must_come_first(personas, api_client_for):
    project, _, queries = small_project(personas)
    body = {"reference_answer": "a week", "reference_answers": ["7 days", "a week"]}
    response = api_client_for(personas.alice).put(_url(project, queries[1]), body, format="json")
    assert response.status_code == 400
    assert "reference_answers" in json.dumps(response.json())


def test_a_version_with_one_reference_each_keeps_the_hash_it_had(personas, api_client_for):
    project, _, queries = small_project(personas)
    lead = api_client_for(personas.alice)
    lead.put(_url(project, queries[1]), {"reference_answer": "7 days"}, format="json")
    version = golden_set_version_freeze(project=project, by=personas.alice)
    item = GoldenItem.objects.get(version=version, query_id=str(queries[1].pk))
    assert item.reference_alternatives == []
    # Recomputed from the stored rows, the hash is the one of a line without the new key.
    assert goldset_content_hash(golden_queries(version)) == version.content_hash
    line = GoldenItem.objects.filter(version=version).values_list("reference_alternatives")
    assert all(v == [] for (v,) in line)
