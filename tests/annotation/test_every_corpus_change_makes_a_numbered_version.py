"""Every import that changes the live chunks makes the next corpus version (1, 2, …) whose hash
is the engine's `corpus_hash` over the live (chunk id, text sha256), with its counts and one
change row per chunk; an import that changes nothing makes none. Listed by the API and by
`manage.py corpus_versions`; the migration gives projects that had chunks their version 1."""

from __future__ import annotations

import importlib
import io

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.models import Chunk, CorpusChange, CorpusVersion
from annotation.selectors.corpus import corpus_version_live
from goldsmith.corpus import corpus_hash, text_sha256
from tests.annotation.corpus_files import V1, import_corpus, write_corpus
from tests.annotation.goldset_factories import make_corpus


def engine_hash(texts: dict[str, str]) -> str:
    return corpus_hash((cid, text_sha256(text)) for cid, text in texts.items())


def test_versions_are_numbered_and_hashed_as_the_engine_hashes_the_live_chunks(personas, tmp_path):
    project = personas.project
    assert corpus_version_live(project=project) is None
    import_corpus(project, write_corpus(tmp_path, "v1.jsonl", V1))
    v1 = corpus_version_live(project=project)
    assert (v1.number, v1.content_hash, v1.live_chunks, v1.added) == (1, engine_hash(V1), 4, 4)
    assert v1.created_by is None and v1.filename.endswith("v1.jsonl")
    assert set(v1.changes.values_list("kind", flat=True)) == {"added"}

    out = import_corpus(project, write_corpus(tmp_path, "same.jsonl", V1))
    assert "the corpus did not change (no new version)" in out
    assert CorpusVersion.objects.filter(project=project).count() == 1

    now = {**V1, "kb-2": "Refunds take ten working days."}
    del now["kb-4"]
    import_corpus(project, write_corpus(tmp_path, "v3.jsonl", now), "--replace")
    v2 = corpus_version_live(project=project)
    assert (v2.number, v2.added, v2.changed, v2.retired, v2.replace) == (2, 0, 1, 1, True)
    assert v2.content_hash == engine_hash(now)
    changes = {c.chunk.chunk_id: c for c in CorpusChange.objects.filter(version=v2)}
    assert set(changes) == {"kb-2", "kb-4"}
    assert changes["kb-2"].old_sha256 == text_sha256(V1["kb-2"])
    assert changes["kb-2"].new_sha256 == text_sha256(now["kb-2"])
    assert (changes["kb-4"].kind, changes["kb-4"].new_sha256) == ("retired", "")

    import_corpus(project, write_corpus(tmp_path, "back.jsonl", {"kb-4": V1["kb-4"]}))
    v3 = corpus_version_live(project=project)
    assert (v3.number, v3.added, v3.content_hash) == (
        3,
        1,
        engine_hash({**now, "kb-4": V1["kb-4"]}),
    )
    live = Chunk.objects.filter(project=project, removed=False).values_list(
        "chunk_id", "text_sha256"
    )
    assert v3.content_hash == corpus_hash(live)


def test_a_failed_import_makes_no_version(personas, tmp_path):
    project = personas.project
    import_corpus(project, write_corpus(tmp_path, "v1.jsonl", V1))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "new", "doc_id": "n", "text": "x"}\n{"id": \n', encoding="utf-8")
    with pytest.raises(CommandError, match=r"bad\.jsonl:2"):
        import_corpus(project, bad)
    assert CorpusVersion.objects.filter(project=project).count() == 1


def test_the_api_and_the_command_list_the_versions(personas, tmp_path, api_client_for):
    project = personas.project
    import_corpus(project, write_corpus(tmp_path, "v1.jsonl", V1))
    import_corpus(project, write_corpus(tmp_path, "v2.jsonl", {"kb-5": "Plans renew yearly."}))
    body = (
        api_client_for(personas.victor)
        .get(f"/api/v1/projects/{project.pk}/corpus/versions/")
        .json()
    )
    assert [(v["number"], v["added"], v["live_chunks"]) for v in body] == [(2, 1, 5), (1, 4, 4)]
    assert body[0]["content_hash"] == corpus_version_live(project=project).content_hash
    assert (
        api_client_for(personas.mallory)
        .get(f"/api/v1/projects/{project.pk}/corpus/versions/")
        .status_code
        == 404
    )
    out = io.StringIO()
    call_command("corpus_versions", project.name, stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("number\tcontent_hash\tlive\tadded\tchanged\tretired")
    assert lines[1].split("\t")[:6] == ["2", body[0]["content_hash"], "5", "1", "0", "0"]
    assert lines[1].split("\t")[6] == "add"


def test_the_migration_gives_a_project_with_chunks_its_version_1(personas):
    project = personas.project
    chunks = make_corpus(project, docs=2, chunks_per_doc=2)
    Chunk.objects.filter(pk=chunks[0].pk).update(removed=True)
    migration = importlib.import_module(
        "annotation.migrations.0030_corpus_import_modes_and_versions_baseline"
    )
    migration.baseline_versions(apps, None)
    version = CorpusVersion.objects.get(project=project)
    live = [(c.chunk_id, c.text_sha256) for c in chunks[1:]]
    assert (version.number, version.origin, version.live_chunks) == (1, "baseline", 3)
    assert version.content_hash == corpus_hash(live)
    assert not version.changes.exists()  # its history is not known
    migration.baseline_versions(apps, None)  # run again: nothing more
    assert CorpusVersion.objects.filter(project=project).count() == 1
