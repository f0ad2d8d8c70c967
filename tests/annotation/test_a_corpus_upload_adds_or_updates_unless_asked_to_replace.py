"""An upload adds or updates by default: new ids are added, known ids with new text updated, and
no chunk is retired. Only a replace (command `--replace`, API `mode=replace`) retires the live
chunks the file lacks. The import report names both its kinds."""

from __future__ import annotations

from django.test import Client

from annotation.models import Chunk, CorpusImport
from tests.annotation.corpus_files import V1, import_corpus, write_corpus


def live_ids(project) -> set[str]:
    return set(
        Chunk.objects.filter(project=project, removed=False).values_list("chunk_id", flat=True)
    )


def test_a_second_file_adds_and_updates_and_keeps_the_first_files_chunks(personas, tmp_path):
    project = personas.project
    import_corpus(project, write_corpus(tmp_path, "v1.jsonl", V1))
    more = {"kb-2": "Refunds take ten working days.", "kb-5": "Plans renew every year."}
    out = import_corpus(project, write_corpus(tmp_path, "more.jsonl", more))
    assert "(add or update, chunks, 2 records)" in out
    assert "0 removed" in out
    assert live_ids(project) == {*V1, "kb-5"}
    assert Chunk.objects.get(chunk_id="kb-2").text == "Refunds take ten working days."


def test_a_replace_retires_what_the_file_lacks_and_keeps_it(personas, tmp_path):
    project = personas.project
    import_corpus(project, write_corpus(tmp_path, "v1.jsonl", V1))
    out = import_corpus(
        project, write_corpus(tmp_path, "only.jsonl", {"kb-1": V1["kb-1"]}), "--replace"
    )
    assert "(replace, chunks, 1 records)" in out and "3 removed" in out
    assert live_ids(project) == {"kb-1"}
    assert Chunk.objects.filter(project=project, removed=True).count() == 3


def test_the_api_takes_add_by_default_and_replace_when_asked(
    personas, tmp_path, api_client_for, eager_celery, django_capture_on_commit_callbacks
):
    project = personas.project
    client = api_client_for(personas.alice)
    url = f"/api/v1/projects/{project.pk}/corpus/imports/"
    for name, texts, mode in (("a.jsonl", V1, None), ("b.jsonl", {"kb-9": "New."}, None)):
        with (
            write_corpus(tmp_path, name, texts).open("rb") as f,
            django_capture_on_commit_callbacks(execute=True),
        ):
            data = {"file": f} if mode is None else {"file": f, "mode": mode}
            response = client.post(url, data, format="multipart")
        assert response.status_code == 202, response.content
        assert response.json()["replace"] is False
    assert live_ids(project) == {*V1, "kb-9"}
    with (
        write_corpus(tmp_path, "c.jsonl", {"kb-9": "New."}).open("rb") as f,
        django_capture_on_commit_callbacks(execute=True),
    ):
        response = client.post(url, {"file": f, "mode": "replace"}, format="multipart")
    record = CorpusImport.objects.get(pk=response.json()["id"])
    assert record.replace and record.chunks_removed == 4
    assert live_ids(project) == {"kb-9"}
    body = client.get(f"{url}{record.pk}/").json()
    assert (body["mode"], body["replace"], body["corpus_version"]) == ("chunks", True, 3)


def test_the_report_names_the_kind_of_file_and_of_import(personas, tmp_path):
    project = personas.project
    import_corpus(project, write_corpus(tmp_path, "v1.jsonl", V1))
    record = CorpusImport.objects.get()
    client = Client()
    client.force_login(personas.alice)
    html = client.get(f"/projects/{project.pk}/corpus/imports/{record.pk}/").content.decode()
    kind = html.split('id="file-kind"', 1)[1].split("</tr>", 1)[0]
    assert "chunks" in kind
    assert "add or update" in html.split('id="import-kind"', 1)[1].split("</tr>", 1)[0]
