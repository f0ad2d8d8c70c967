"""Export → import into a new project → export gives the same bytes (native JSONL), and the
BEIR and TREC files a team already has import as frozen versions."""

from __future__ import annotations

import pytest

from annotation.models import Chunk, GoldenSetVersion
from annotation.services.goldsets import golden_set_version_freeze
from annotation.services.projects import project_setup
from goldsmith.formats.goldset import read_goldset
from tests.annotation.goldset_factories import small_project


@pytest.fixture
def v1(personas):
    project, _, _ = small_project(personas)
    return golden_set_version_freeze(project=project, by=personas.alice, note="to share")


def test_native_jsonl_round_trips_byte_identical_into_a_new_project(v1, tmp_path, run_command):
    first = tmp_path / "first.jsonl"
    out = run_command(
        "export_goldset",
        "--project",
        "Acme Support",
        "--version",
        "v1",
        "--format",
        "jsonl",
        "-o",
        first,
    )
    assert v1.content_hash in out
    project_setup(name="Acme Copy", leads=["alice"])
    out = run_command("import_goldset", "--project", "Acme Copy", "--format", "jsonl", first)
    assert f"imported v1: 3 queries, 6 judgments, {v1.content_hash}" in out
    copy = GoldenSetVersion.objects.get(project__name="Acme Copy", label="v1")
    assert copy.content_hash == v1.content_hash
    assert copy.origin == "imported"
    second = tmp_path / "second.jsonl"
    run_command(
        "export_goldset",
        "--project",
        "Acme Copy",
        "--version",
        "v1",
        "--format",
        "jsonl",
        "-o",
        second,
    )
    assert second.read_bytes() == first.read_bytes()
    assert read_goldset(second).header.project == "Acme Support"  # where it was frozen


def test_beir_round_trips_with_the_same_content_hash_and_brings_its_corpus(
    v1, tmp_path, run_command
):
    bundle = tmp_path / "v1.zip"
    run_command(
        "export_goldset",
        "--project",
        "Acme Support",
        "--version",
        "v1",
        "--format",
        "beir",
        "-o",
        bundle,
    )
    project_setup(name="From BEIR", leads=["alice"])
    out = run_command(
        "import_goldset",
        "--project",
        "From BEIR",
        "--format",
        "beir",
        bundle,
        "--label",
        "imported-1",
    )
    copy = GoldenSetVersion.objects.get(project__name="From BEIR")
    assert copy.label == "imported-1"
    assert copy.content_hash == v1.content_hash
    assert "corpus: 6 chunks added" in out
    chunk = Chunk.objects.get(project__name="From BEIR", chunk_id="doc-1#1")
    assert (chunk.document.doc_id, chunk.start) == ("doc-1", 100)


def test_trec_qrels_with_topics_import_as_a_version(personas, tmp_path, run_command):
    qrels = tmp_path / "team.qrels"
    qrels.write_text("q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\nq2 0 d9 3\n")
    topics = tmp_path / "team.topics.tsv"
    topics.write_text("q1\tfirst question\nq2\tsecond question\nq3\tno judgments yet\n")
    out = run_command(
        "import_goldset",
        "--project",
        "Acme Support",
        "--format",
        "trec",
        qrels,
        "--topics",
        topics,
        "--grade-map",
        "3:2",
    )
    assert "imported v1: 3 queries, 4 judgments" in out
    version = GoldenSetVersion.objects.get(project=personas.project)
    grades = {
        (i.query_id, j.chunk_id): j.grade for i in version.items.all() for j in i.judgments.all()
    }
    assert grades == {("q1", "d1"): 2, ("q1", "d2"): 0, ("q2", "d3"): 1, ("q2", "d9"): 2}
    assert version.items.get(query_id="q3").judgments.count() == 0


def test_a_bad_file_is_refused_with_its_line_and_stores_nothing(personas, tmp_path):
    from django.core.management import CommandError, call_command

    qrels = tmp_path / "bad.qrels"
    qrels.write_text("q1 0 d1 2\nq1 0 d2 7\n")
    topics = tmp_path / "t.tsv"
    topics.write_text("q1\tquestion\n")
    with pytest.raises(CommandError, match=r"bad.qrels:2: grade 7 is not 0, 1 or 2") as error:
        call_command(
            "import_goldset",
            "--project",
            "Acme Support",
            "--format",
            "trec",
            str(qrels),
            "--topics",
            str(topics),
        )
    assert error.value.returncode == 2
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text(
        '{"goldsmith_version": "0.1.0", "format": "goldsmith.goldset", "format_version": 1, '
        '"project": "x", "label": "v1", "content_hash": "sha256:00"}\n'
        '{"query_id": "1", "query": "q", "judgments": []}\n'
    )
    with pytest.raises(CommandError, match=r"tampered.jsonl:1: content_hash"):
        call_command(
            "import_goldset", "--project", "Acme Support", "--format", "jsonl", str(tampered)
        )
    assert not GoldenSetVersion.objects.exists()


def _export(version, tmp_path):
    from django.core.management import call_command

    out = tmp_path / "export.jsonl"
    call_command(
        "export_goldset", "--project", version.project.name, "--version", version.label,
        "--format", "jsonl", "-o", str(out),
    )  # fmt: skip
    return out
