"""A run file that lists an id twice for one query (trec_eval refuses such a file) is stored
with the id once, at its first place in the ranking (as scoring counts it), and the retriever's
page and API say how many copies were left out and where the first is (FILE line N)."""

from __future__ import annotations

from django.test import Client

from evaluation.models import RunFile, RunFileRow
from evaluation.services.retrievers import retriever_save


def test_the_upload_keeps_the_first_copy_and_the_page_and_api_name_the_line(
    personas, tmp_path, api_client_for
):
    path = tmp_path / "prod.trec"
    path.write_text("q1 Q0 a 1 3 x\nq1 Q0 z 2 2 x\nq1 Q0 a 3 1 x\nq2 Q0 c 1 1 x\n")
    retriever = retriever_save(project=personas.project, name="files", kind="runfile")
    retriever_save(project=personas.project, retriever=retriever, run_file=path)
    run_file = RunFile.objects.get()
    assert run_file.row_count == 4 and run_file.repeated_ids == 1
    assert run_file.first_repeat == {"line": 3, "first_line": 1, "query_id": "q1", "id": "a"}
    row = RunFileRow.objects.get(run_file=run_file, query_id="q1")
    assert row.ids == ["a", "z"] and row.scores == [3.0, 2.0]

    client = Client()
    client.force_login(personas.alice)
    page = client.get(f"/projects/{personas.project.pk}/retrievers/{retriever.pk}/")
    text = " ".join(page.content.decode().split())
    assert "1 repeated ids not stored: prod.trec line 3 lists a again for query q1" in text
    assert "(first on line 1)" in text

    api = api_client_for(personas.alice).get(
        f"/api/v1/projects/{personas.project.pk}/retrievers/{retriever.pk}/"
    )
    assert api.json()["run_file"]["repeated_ids"] == 1
    assert api.json()["run_file"]["first_repeat"]["line"] == 3


def test_a_run_file_without_repeats_says_nothing(personas, tmp_path):
    path = tmp_path / "ok.trec"
    path.write_text("q1 Q0 a 1 3 x\nq1 Q0 z 2 2 x\n")
    retriever = retriever_save(project=personas.project, name="files", kind="runfile")
    retriever_save(project=personas.project, retriever=retriever, run_file=path)
    assert RunFile.objects.get().repeated_ids == 0
    assert RunFile.objects.get().first_repeat is None
