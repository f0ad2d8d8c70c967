"""A lead sets a query's answer key (reference answer, type, choices, key facts linked to
chunks); a freeze copies it into the version and its content hash, exports carry it (native
JSONL byte-identically through an import, RAGAS JSONL), a diff shows it changed,
and the frozen copy cannot change."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction
from django.test import Client

from annotation.models import Candidate, GoldenItem, GoldenSetVersion, Query
from annotation.models.goldsets import FrozenVersionError
from annotation.services.goldsets import golden_set_version_freeze
from annotation.services.projects import project_setup
from goldsmith.answers.model import KeyFact
from goldsmith.formats.goldset import goldset_content_hash, read_goldset
from goldsmith.formats.ragas import GOLDEN_COLUMNS
from tests.annotation.goldset_factories import make_query, small_project
from tests.conftest import PASSWORD

ROLES = ["lead", "annotator", "viewer", "outsider"]


def _url(project, query) -> str:
    return f"/api/v1/projects/{project.pk}/queries/{query.pk}/answer-key/"


REFUND_KEY = {
    "reference_answer": "7 days",
    "answer_type": "number",
    "reference_facts": [
        {"text": "the refund period is 7 days", "chunk_ids": ["doc-1#0"]},
        {"text": "annual plans are refunded pro rata", "chunk_ids": ["doc-1#1", "doc-1#0"]},
        {"text": "ask support for exceptions", "chunk_ids": []},
    ],
}
PASSWORD_KEY = {
    "reference_answer": "Email link",
    "answer_type": "choice",
    "choices": ["Email link", "SMS code", "Call support"],
    "reference_facts": [{"text": "a reset link is emailed", "chunk_ids": ["doc-0#0"]}],
}


@pytest.fixture
def keyed(personas, api_client_for):
    """The small project with answer keys set by the lead through the API on two of its three
    approved queries (the third has none)."""
    project, _, queries = small_project(personas)
    lead = api_client_for(personas.alice)
    for query, key in ((queries[1], REFUND_KEY), (queries[0], PASSWORD_KEY)):
        response = lead.put(_url(project, query), key, format="json")
        assert response.status_code == 200, response.json()
    return project, queries


def _export(project, label, fmt, path):
    call_command(
        "export_goldset", "--project", project.name, "--version", label, "--format", fmt,
        "-o", str(path),
    )  # fmt: skip
    return path


def test_the_lead_reads_back_what_was_set(keyed, personas, api_client_for):
    project, queries = keyed
    got = api_client_for(personas.alice).get(_url(project, queries[1])).json()
    assert got == {
        "query_id": queries[1].pk, "choices": [], "reference_answers": ["7 days"], **REFUND_KEY,
    }  # fmt: skip
    empty = api_client_for(personas.alice).get(_url(project, queries[2])).json()
    assert empty == {
        "query_id": queries[2].pk,
        "reference_answer": None,
        "reference_answers": [],
        "answer_type": None,
        "choices": [],
        "reference_facts": [],
    }


@pytest.mark.parametrize("role", ROLES)
def test_only_a_lead_reads_or_sets_an_answer_key(keyed, personas, api_client_for, role):
    project, queries = keyed
    client = api_client_for(personas.by_role()[role])
    expected = {"lead": 200, "annotator": 403, "viewer": 403, "outsider": 404}[role]
    assert client.get(_url(project, queries[1])).status_code == expected
    response = client.put(_url(project, queries[1]), {"reference_answer": "x"}, format="json")
    assert response.status_code == expected
    if role != "lead":
        assert "7 days" not in response.content.decode()
        assert Query.objects.get(pk=queries[1].pk).reference_answer == "7 days"


def test_an_anonymous_client_is_refused(keyed, api_client_for):
    project, queries = keyed
    assert api_client_for(None).get(_url(project, queries[1])).status_code in (401, 403)


def test_another_projects_query_is_not_found(keyed, personas, api_client_for):
    _, queries = keyed
    other = project_setup(name="Other", leads=["alice"]).project
    client = api_client_for(personas.alice)
    assert client.get(_url(other, queries[1])).status_code == 404
    assert client.put(_url(other, queries[1]), {}, format="json").status_code == 404


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"reference_answer": "soon", "answer_type": "number"}, "reference_answer", "no number"),
        ({"reference_answer": "A", "answer_type": "choice"}, "answer_type", "choices"),
        (
            {"reference_answer": "D", "answer_type": "choice", "choices": ["A", "B"]},
            "reference_answer",
            "not one of the choices",
        ),
        ({"answer_type": "maybe"}, "answer_type", "valid choice"),
        ({"reference_facts": [{"chunk_ids": []}]}, "reference_facts", "required"),
        (
            {"reference_facts": [{"text": "x", "chunk_ids": ["doc-1#0"]}]},
            "reference_facts[0].chunk_ids[0]",
            "not a candidate of this query",
        ),
        (
            {"reference_facts": [{"text": "x", "chunk_ids": ["doc-0#0", "doc-0#0"]}]},
            "reference_facts[0].chunk_ids:",
            "appears twice",
        ),
    ],
)
def test_a_bad_answer_key_is_refused_naming_its_field(
    keyed, personas, api_client_for, body, field, words
):
    project, queries = keyed
    response = api_client_for(personas.alice).put(_url(project, queries[0]), body, format="json")
    assert response.status_code == 400
    errors = response.json()
    key = next(k for k in errors if k.startswith(field.rstrip(":")))
    assert words in json.dumps(errors[key])
    assert Query.objects.get(pk=queries[0].pk).reference_answer == "Email link"  # unchanged


def test_freeze_stores_the_keys_and_the_hash_equals_the_engines_hash_of_the_export(
    keyed, personas, tmp_path
):
    project, queries = keyed
    version = golden_set_version_freeze(project=project, by=personas.alice)
    exported = read_goldset(_export(project, "v1", "jsonl", tmp_path / "v1.jsonl"))
    assert goldset_content_hash(exported.queries) == version.content_hash
    assert exported.header.content_hash == version.content_hash
    by_id = {q.query_id: q for q in exported.queries}
    refund = by_id[str(queries[1].pk)]
    assert refund.reference_answer == "7 days" and refund.answer_type == "number"
    assert refund.reference_facts == (
        KeyFact("the refund period is 7 days", ("doc-1#0",)),
        KeyFact("annual plans are refunded pro rata", ("doc-1#1", "doc-1#0")),
        KeyFact("ask support for exceptions", ()),
    )
    assert by_id[str(queries[0].pk)].choices == ("Email link", "SMS code", "Call support")
    plain = by_id[str(queries[2].pk)]
    assert (plain.reference_answer, plain.answer_type, plain.reference_facts) == (None, None, ())
    line = next(
        json.loads(raw) for raw in (tmp_path / "v1.jsonl").read_text().splitlines()[1:]
        if json.loads(raw)["query_id"] == str(queries[2].pk)
    )  # fmt: skip
    assert "answer_type" not in line and "reference_facts" not in line  # written only when set


def test_a_version_without_answer_keys_keeps_the_hash_it_had(personas, tmp_path):
    project, _, _ = small_project(personas)
    version = golden_set_version_freeze(project=project, by=personas.alice)
    exported = read_goldset(_export(project, "v1", "jsonl", tmp_path / "v1.jsonl"))
    assert version.content_hash == goldset_content_hash(exported.queries)
    assert "reference_facts" not in (tmp_path / "v1.jsonl").read_text()


def test_native_jsonl_with_key_facts_round_trips_byte_identically(keyed, personas, tmp_path):
    project, _ = keyed
    version = golden_set_version_freeze(project=project, by=personas.alice)
    first = _export(project, "v1", "jsonl", tmp_path / "first.jsonl")
    project_setup(name="Acme Copy", leads=["alice"])
    call_command("import_goldset", "--project", "Acme Copy", "--format", "jsonl", str(first))
    copy = GoldenSetVersion.objects.get(project__name="Acme Copy", label="v1")
    assert copy.content_hash == version.content_hash
    second = _export(copy.project, "v1", "jsonl", tmp_path / "second.jsonl")
    assert second.read_bytes() == first.read_bytes()
    stored = GoldenItem.objects.filter(version=copy).exclude(reference_facts=[]).count()
    assert stored == 2


def test_a_fact_linked_to_an_unjudged_chunk_is_refused_with_file_line_and_field(
    keyed, personas, tmp_path
):
    project, queries = keyed
    golden_set_version_freeze(project=project, by=personas.alice)
    lines = _export(project, "v1", "jsonl", tmp_path / "v1.jsonl").read_text().splitlines()
    n, obj = next(
        (n, json.loads(raw)) for n, raw in enumerate(lines)
        if n and json.loads(raw)["query_id"] == str(queries[1].pk)
    )  # fmt: skip
    obj["reference_facts"][1]["chunk_ids"] = ["doc-2#2"]
    lines[n] = json.dumps(obj, ensure_ascii=False)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    project_setup(name="Acme Copy", leads=["alice"])
    with pytest.raises(CommandError) as refused:
        call_command("import_goldset", "--project", "Acme Copy", "--format", "jsonl", str(bad))
    message = str(refused.value)
    assert f"bad.jsonl:{n + 1}:" in message
    assert "reference_facts[1].chunk_ids: 'doc-2#2' is not a judged chunk" in message
    assert not GoldenSetVersion.objects.filter(project__name="Acme Copy").exists()


def test_freeze_refuses_a_fact_linked_to_a_chunk_without_a_final_grade(personas, api_client_for):
    project, chunks, _ = small_project(personas)
    query = make_query(project, "how long do refunds take", {chunks[3]: 2})
    Candidate.objects.create(query=query, chunk=chunks[8], shuffle_key=1)  # pooled, not graded
    key = {"reference_facts": [{"text": "seven days", "chunk_ids": ["doc-2#2"]}]}
    response = api_client_for(personas.alice).put(_url(project, query), key, format="json")
    assert response.status_code == 200
    with pytest.raises(ValueError, match=r"key fact 1 is linked to chunk doc-2#2, which has no"):
        golden_set_version_freeze(project=project, by=personas.alice)
    assert not GoldenSetVersion.objects.filter(project=project).exists()


def test_the_ragas_exports_load_with_datasets(keyed, personas, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    datasets = pytest.importorskip("datasets", reason="the datasets package (dev extra) is absent")
    project, queries = keyed
    golden_set_version_freeze(project=project, by=personas.alice)
    cache = str(tmp_path / "hf-cache")
    jl = _export(project, "v1", "ragas-jsonl", tmp_path / "v1.ragas.jsonl")
    ds = datasets.load_dataset("json", data_files=str(jl), split="train", cache_dir=cache)
    assert ds.column_names == list(GOLDEN_COLUMNS) and ds.num_rows == 3
    rows = {r["query_id"]: r for r in ds}
    refund = rows[str(queries[1].pk)]
    assert refund["user_input"] == "refund policy for annual plans"
    assert refund["reference"] == "7 days"
    # the chunks the facts link to, in fact order, once each
    assert refund["reference_context_ids"] == ["doc-1#0", "doc-1#1"]
    assert refund["reference_contexts"][0].startswith("Passage 0 of document 1")
    plain = rows[str(queries[2].pk)]  # no facts: its chunks graded 2 (none here)
    assert plain["reference"] is None and plain["reference_contexts"] == []
    monkeypatch.setenv("RAGAS_DO_NOT_TRACK", "true")
    ragas = pytest.importorskip("ragas", reason="the ragas package (dev extra) is absent")
    samples = ragas.EvaluationDataset.from_jsonl(str(jl)).samples
    assert sorted(s.user_input for s in samples) == sorted(r["user_input"] for r in ds)


def test_the_ragas_exports_are_offered_on_the_api_and_the_version_page(keyed, personas):
    project, _ = keyed
    golden_set_version_freeze(project=project, by=personas.alice)
    client = Client()
    client.login(username="alice", password=PASSWORD)
    page = client.get(f"/projects/{project.pk}/goldsets/v1/").content.decode()
    assert "/export/ragas-csv/" not in page  # RAGAS's loaders cannot read a CSV of lists
    for fmt in ("ragas-jsonl",):
        assert f"/export/{fmt}/" in page
        response = client.get(f"/api/v1/projects/{project.pk}/goldsets/v1/export/{fmt}/")
        assert response.status_code == 200
        body = b"".join(response.streaming_content).decode()
        assert "refund policy for annual plans" in body and "7 days" in body
    assert "no reference answers or key facts" in page  # what the plain CSV leaves out


def test_a_diff_shows_a_changed_answer_key(keyed, personas, api_client_for):
    project, queries = keyed
    v1 = golden_set_version_freeze(project=project, by=personas.alice)
    changed = {**REFUND_KEY, "reference_facts": REFUND_KEY["reference_facts"][:1]}
    lead = api_client_for(personas.alice)
    assert lead.put(_url(project, queries[1]), changed, format="json").status_code == 200
    v2 = golden_set_version_freeze(project=project, by=personas.alice)
    assert v2.content_hash != v1.content_hash
    diff = lead.get(f"/api/v1/projects/{project.pk}/goldsets/diff/?a=v1&b=v2").json()
    assert diff["changed_answers"] == [str(queries[1].pk)]
    assert diff["totals"]["answers_changed"] == 1
    assert diff["changed_text"] == [] and diff["changed_grades"] == []
    client = Client()
    client.login(username="alice", password=PASSWORD)
    page = client.get(f"/projects/{project.pk}/goldsets/diff/?a=v1&b=v2").content.decode()
    assert "annual plans are refunded pro rata" in page  # v1's fact, gone in v2
    same = lead.get(f"/api/v1/projects/{project.pk}/goldsets/diff/?a=v2&b=v2").json()
    assert same["changed_answers"] == []


def test_a_frozen_answer_key_cannot_change_through_the_orm(keyed, personas):
    project, queries = keyed
    version = golden_set_version_freeze(project=project, by=personas.alice)
    item = GoldenItem.objects.get(version=version, query_id=str(queries[1].pk))
    item.reference_facts = []
    with pytest.raises(FrozenVersionError):
        item.save()
    with pytest.raises(FrozenVersionError):
        GoldenItem.objects.filter(version=version).update(reference_answer="8 days")
    # editing the project's query afterwards leaves the version as it was
    Query.objects.filter(pk=queries[1].pk).update(reference_answer="8 days", reference_facts=[])
    again = GoldenItem.objects.get(version=version, query_id=str(queries[1].pk))
    assert again.reference_answer == "7 days" and len(again.reference_facts) == 3


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="database triggers are installed on PostgreSQL only (SQLite relies on the ORM guards)",
)
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE annotation_goldenitem SET reference_facts = '[]'::jsonb",
        "UPDATE annotation_goldenitem SET answer_type = NULL",
        "UPDATE annotation_goldenitem SET choices = '[]'::jsonb",
    ],
)
def test_raw_sql_cannot_change_a_frozen_answer_key(keyed, personas, sql):
    project, queries = keyed
    version = golden_set_version_freeze(project=project, by=personas.alice)
    with (
        pytest.raises(IntegrityError, match="frozen"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    item = GoldenItem.objects.get(version=version, query_id=str(queries[1].pk))
    assert item.answer_type == "number" and len(item.reference_facts) == 3
