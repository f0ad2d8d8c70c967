"""Re-importing a corpus as a replace: unchanged chunks stay as they are, changed ones are
flagged, removed ones are kept (marked), and a chunk that comes back is restored."""

import json

from annotation.models import Chunk, CorpusImport, Document


def lines(**texts):
    return "".join(
        json.dumps({"id": cid, "doc_id": cid.split("-")[0], "text": text}) + "\n"
        for cid, text in texts.items()
    )


def test_it_updates_the_corpus_in_place(personas, write, run_command):
    name = personas.project.name
    first = write("v1.jsonl", lines(**{"a-1": "one", "a-2": "two", "b-1": "three"}))
    run_command("import_corpus", "--project", name, first, "--quiet")
    before = {c.chunk_id: c for c in Chunk.objects.all()}

    second = write("v2.jsonl", lines(**{"a-1": "one", "a-2": "two, edited", "c-1": "four"}))
    out = run_command("import_corpus", "--project", name, second, "--replace", "--quiet")
    assert "1 documents and 1 chunks new, 1 unchanged, 1 changed, 1 removed" in out

    after = {c.chunk_id: c for c in Chunk.objects.all()}
    unchanged = after["a-1"]
    assert (unchanged.pk, unchanged.updated_at, unchanged.text_changed) == (
        before["a-1"].pk,
        before["a-1"].updated_at,
        False,
    )
    changed = after["a-2"]
    assert changed.pk == before["a-2"].pk
    assert (changed.text, changed.text_changed) == ("two, edited", True)
    assert changed.text_sha256 != before["a-2"].text_sha256
    removed = after["b-1"]
    assert removed.removed and removed.text == "three"  # kept for golden sets that cite it
    assert Document.objects.filter(doc_id="b").exists()

    out = run_command("import_corpus", "--project", name, first, "--replace", "--quiet")
    assert "1 restored" in out
    assert not Chunk.objects.get(chunk_id="b-1").removed
    assert Chunk.objects.get(chunk_id="c-1").removed
    assert CorpusImport.objects.filter(status="done").count() == 3


def test_reimporting_the_same_documents_changes_nothing(personas, write, run_command):
    doc = {"doc_id": "guide", "title": "Guide", "text": "Para one.\n\nPara two is here."}
    path = write("docs.jsonl", json.dumps(doc) + "\n")
    run_command("import_corpus", "--project", personas.project.name, path, "--quiet")
    stamps = list(Chunk.objects.values_list("pk", "updated_at"))
    out = run_command("import_corpus", "--project", personas.project.name, path, "--quiet")
    assert "0 documents and 0 chunks new, 1 unchanged, 0 changed, 0 removed" in out
    assert list(Chunk.objects.values_list("pk", "updated_at")) == stamps
