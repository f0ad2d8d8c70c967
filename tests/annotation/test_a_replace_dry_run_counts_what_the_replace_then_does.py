"""A dry run (command `--dry-run`, API `dry_run`) gives the counts an import would make and
stores nothing; the replace then does exactly that. Of the changed and retired chunks it counts
those a frozen version cites and those graded in open work (queries no frozen version holds)."""

from __future__ import annotations

from annotation.models import Chunk, CorpusImport, CorpusVersion
from annotation.models.judging import ReviewState
from annotation.services.corpus import corpus_preview
from annotation.services.goldsets import golden_set_version_freeze
from tests.annotation.corpus_files import V1, import_corpus, write_corpus
from tests.annotation.goldset_factories import make_query

# kb-1 kept, kb-2 changed, kb-3 and kb-4 retired, kb-5 new
NEXT = {
    "kb-1": V1["kb-1"],
    "kb-2": "Refunds take ten working days.",
    "kb-5": "Plans renew every year.",
}


def graded_project(personas, tmp_path):
    """v1 of the corpus; a frozen version citing kb-2 and kb-3; open work grading kb-4."""
    project = personas.project
    import_corpus(project, write_corpus(tmp_path, "v1.jsonl", V1))
    chunk = {c.chunk_id: c for c in Chunk.objects.filter(project=project)}
    make_query(project, "refund time", {chunk["kb-2"]: 2, chunk["kb-1"]: 0})
    make_query(project, "contact", {chunk["kb-3"]: 2})
    golden_set_version_freeze(project=project, by=personas.alice)
    make_query(project, "invoice date", {chunk["kb-4"]: 1}, state=ReviewState.RESOLVED)
    return project


def stored(project) -> tuple:
    return (
        list(Chunk.objects.filter(project=project).order_by("pk").values_list()),
        CorpusVersion.objects.filter(project=project).count(),
        CorpusImport.objects.filter(project=project).count(),
    )


def test_the_dry_run_counts_are_what_the_replace_does(personas, tmp_path):
    project = graded_project(personas, tmp_path)
    path = write_corpus(tmp_path, "next.jsonl", NEXT)
    before = stored(project)
    preview = corpus_preview(project=project, path=path, replace=True)
    assert stored(project) == before  # a preview stores nothing
    assert (preview.added, preview.changed, preview.retired, preview.unchanged) == (1, 1, 2, 1)
    assert (preview.cited_by_frozen, preview.cited_by_open) == (2, 1)  # kb-2, kb-3; kb-4
    assert preview.live_version == 1 and preview.live_chunks_after == 3

    import_corpus(project, path, "--replace")
    version = CorpusVersion.objects.get(project=project, number=2)
    assert (version.added, version.changed, version.retired) == (1, 1, 2)
    assert version.live_chunks == preview.live_chunks_after
    record = version.corpus_import
    assert (record.cited_by_frozen, record.cited_by_open) == (2, 1)


def test_an_add_dry_run_retires_nothing(personas, tmp_path):
    project = graded_project(personas, tmp_path)
    preview = corpus_preview(
        project=project, path=write_corpus(tmp_path, "next.jsonl", NEXT), replace=False
    )
    assert (preview.added, preview.changed, preview.retired) == (1, 1, 0)
    assert (preview.cited_by_frozen, preview.cited_by_open) == (1, 0)  # only kb-2 changes


def test_the_command_and_the_api_give_the_same_counts(personas, tmp_path, api_client_for):
    project = graded_project(personas, tmp_path)
    path = write_corpus(tmp_path, "next.jsonl", NEXT)
    before = stored(project)
    out = import_corpus(project, path, "--replace", "--dry-run")
    assert (
        "1 added, 1 changed, 2 retired, 1 unchanged; of the changed and retired, 2 cited by "
        "frozen versions and 1 by open judgments; 3 live chunks after. Nothing was stored."
    ) in out
    client = api_client_for(personas.alice)
    with path.open("rb") as f:
        response = client.post(
            f"/api/v1/projects/{project.pk}/corpus/imports/",
            {"file": f, "mode": "replace", "dry_run": "true"},
            format="multipart",
        )
    assert response.status_code == 200, response.content
    body = response.json()
    assert {k: body[k] for k in ("mode", "added", "changed", "retired", "unchanged")} == {
        "mode": "replace",
        "added": 1,
        "changed": 1,
        "retired": 2,
        "unchanged": 1,
    }
    assert (body["cited_by_frozen"], body["cited_by_open"], body["live_version"]) == (2, 1, 1)
    assert stored(project) == before


def test_a_broken_file_is_refused_by_the_dry_run_with_its_line(personas, tmp_path):
    project = personas.project
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "doc_id": "a", "text": "ok"}\n{"id": "b"\n', encoding="utf-8")
    try:
        corpus_preview(project=project, path=path, replace=True)
    except ValueError as error:
        assert "bad.jsonl:2" in str(error)
    else:  # pragma: no cover
        raise AssertionError("the dry run took a broken file")
