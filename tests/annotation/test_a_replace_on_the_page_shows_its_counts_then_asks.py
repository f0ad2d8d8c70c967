"""On the corpus page a replace is a two-step form: the upload shows what it would do (counts
computed in the request, nothing stored), and only "Replace the corpus" queues the import. A
preview is refused once the corpus changed after it, and cancelling stores nothing."""

from __future__ import annotations

import re

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from annotation.models import Chunk, CorpusImport, CorpusVersion
from tests.annotation.corpus_files import V1, chunk_lines, import_corpus, write_corpus


def upload(client, project, texts, mode):
    return client.post(
        f"/projects/{project.pk}/corpus/",
        {
            "file": SimpleUploadedFile("next.jsonl", chunk_lines(texts).encode()),
            "chunk_size": 1000,
            "overlap": 100,
            "mode": mode,
        },
    )


def row(html: str, row_id: str) -> str:
    return re.sub(r"<[^>]+>", " ", html.split(f'id="{row_id}"', 1)[1].split("</tr>", 1)[0])


def test_a_replace_is_shown_first_and_stored_on_confirmation(
    personas, tmp_path, eager_celery, django_capture_on_commit_callbacks
):
    project = personas.project
    import_corpus(project, write_corpus(tmp_path, "v1.jsonl", V1))
    client = Client()
    client.force_login(personas.alice)
    response = upload(client, project, {"kb-1": V1["kb-1"], "kb-9": "New."}, "replace")
    html = response.content.decode()
    assert response.status_code == 200 and 'id="replace-preview"' in html
    assert row(html, "preview-added").split()[-1] == "1"
    assert row(html, "preview-retired").split()[-1] == "3"
    assert CorpusImport.objects.count() == 1 and CorpusVersion.objects.count() == 1
    assert Chunk.objects.filter(removed=True).count() == 0

    key = re.search(r'name="key" value="([^"]+)"', html)[1]
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(
            f"/projects/{project.pk}/corpus/preview/", {"key": key, "decision": "confirm"}
        )
    record = CorpusImport.objects.latest("id")
    assert done.status_code == 302 and done["Location"].endswith(f"/imports/{record.pk}/")
    assert (record.status, record.replace, record.chunks_removed) == ("done", True, 3)
    assert CorpusVersion.objects.get(number=2).retired == 3
    again = client.post(
        f"/projects/{project.pk}/corpus/preview/", {"key": key, "decision": "confirm"}, follow=True
    )
    assert "already confirmed or cancelled" in again.content.decode()
    assert CorpusImport.objects.count() == 2


def test_a_preview_of_a_corpus_that_changed_since_is_refused(personas, tmp_path):
    project = personas.project
    import_corpus(project, write_corpus(tmp_path, "v1.jsonl", V1))
    client = Client()
    client.force_login(personas.alice)
    html = upload(client, project, {"kb-1": V1["kb-1"]}, "replace").content.decode()
    key = re.search(r'name="key" value="([^"]+)"', html)[1]
    import_corpus(project, write_corpus(tmp_path, "more.jsonl", {"kb-7": "Meanwhile."}))
    page = client.post(
        f"/projects/{project.pk}/corpus/preview/", {"key": key, "decision": "confirm"}, follow=True
    )
    assert "the corpus changed since this preview" in page.content.decode()
    assert CorpusImport.objects.count() == 2 and CorpusVersion.objects.count() == 2


def test_cancel_stores_nothing_and_only_leads_preview(personas, tmp_path):
    project = personas.project
    import_corpus(project, write_corpus(tmp_path, "v1.jsonl", V1))
    client = Client()
    client.force_login(personas.alice)
    html = upload(client, project, {"kb-1": V1["kb-1"]}, "replace").content.decode()
    key = re.search(r'name="key" value="([^"]+)"', html)[1]
    page = client.post(
        f"/projects/{project.pk}/corpus/preview/", {"key": key, "decision": "cancel"}, follow=True
    )
    assert "Replace cancelled: nothing was stored." in page.content.decode()
    assert CorpusImport.objects.count() == 1
    annotator = Client()
    annotator.force_login(personas.bob)
    assert upload(annotator, project, V1, "replace").status_code == 403
    refused = annotator.post(
        f"/projects/{project.pk}/corpus/preview/", {"key": key, "decision": "confirm"}
    )
    assert refused.status_code == 403
