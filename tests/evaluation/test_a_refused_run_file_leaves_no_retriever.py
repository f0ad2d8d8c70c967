"""A retriever and its run file are saved together or not at all (`retriever_save`): when the
run file is refused, the retriever page stores no retriever, says what is wrong with the file
by the name it was uploaded under, and the corrected form goes through; an edit whose run file
is refused changes nothing. The same holds for the API and the `add_retriever` command."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from evaluation.models import Retriever, RunFile
from evaluation.services.retrievers import RetrieverInvalid, retriever_save

BAD_RUN = b"q1 Q0 c1 1 0.9 r\nq1 Q0 c2 2 0.8 r\nq1 Q0 c3 three 0.7 r\n"
GOOD_RUN = b"q1 Q0 c1 1 0.9 r\nq1 Q0 c2 2 0.8 r\nq2 Q0 c3 1 0.7 r\n"
# What the browser sends with a run file: the HTTP fields hold their initial values.
FORM = {
    "kind": "runfile",
    "schedule": "",
    "method": "POST",
    "id_field": "id",
    "timeout": "10",
    "max_concurrency": "4",
    "retries": "3",
}


def _text(response) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())


@pytest.fixture
def page(personas) -> Client:
    client = Client()
    client.force_login(personas.alice)
    return client


@pytest.mark.django_db
def test_a_refused_run_file_leaves_no_retriever_and_the_corrected_form_goes_through(personas, page):
    url = f"/projects/{personas.project.pk}/retrievers/"
    response = page.post(
        url, {**FORM, "name": "prod", "run_file": SimpleUploadedFile("prod 评测.trec", BAD_RUN)}
    )
    assert response.status_code == 200
    text = _text(response)
    assert "prod 评测.trec:3:" in text, text[-2000:]
    assert "/tmp" not in text and str(settings.VAR_DIR) not in text
    assert not Retriever.objects.exists() and not RunFile.objects.exists()
    assert 'value="prod"' in response.content.decode()  # the form keeps what was typed

    response = page.post(
        url, {**FORM, "name": "prod", "run_file": SimpleUploadedFile("prod 评测.trec", GOOD_RUN)}
    )
    retriever = Retriever.objects.get()
    assert response.status_code == 302, _text(response)[-2000:]
    assert response["Location"] == f"{url}{retriever.pk}/"
    assert "Retriever prod added." in _text(page.get(response["Location"]))
    run_file = retriever.run_files.get()
    assert (run_file.filename, run_file.query_count, run_file.row_count) == ("prod 评测.trec", 2, 3)


@pytest.mark.django_db
def test_a_refused_run_file_changes_nothing_on_the_edit_page(personas, page):
    retriever = retriever_save(
        project=personas.project,
        name="prod",
        kind="runfile",
        run_file=SimpleUploadedFile("first.trec", GOOD_RUN),
    )
    url = f"/projects/{personas.project.pk}/retrievers/{retriever.pk}/edit/"
    response = page.post(
        url, {**FORM, "schedule": "nightly", "run_file": SimpleUploadedFile("next.trec", BAD_RUN)}
    )
    assert "next.trec:3:" in _text(response)
    retriever.refresh_from_db()
    assert retriever.schedule == ""
    assert [f.filename for f in retriever.run_files.all()] == ["first.trec"]

    response = page.post(
        url, {**FORM, "schedule": "nightly", "run_file": SimpleUploadedFile("next.trec", GOOD_RUN)}
    )
    assert response.status_code == 302, _text(response)[-2000:]
    retriever.refresh_from_db()
    assert retriever.schedule == "nightly"
    assert retriever.run_files.first().filename == "next.trec"


@pytest.mark.django_db
def test_a_refused_run_file_keeps_the_previous_one_through_the_api(personas, api_client_for):
    retriever = retriever_save(
        project=personas.project,
        name="prod",
        kind="runfile",
        run_file=SimpleUploadedFile("first.trec", GOOD_RUN),
    )
    api = api_client_for(personas.alice)
    response = api.post(
        f"/api/v1/projects/{personas.project.pk}/retrievers/{retriever.pk}/run-file/",
        {"file": SimpleUploadedFile("next.trec", BAD_RUN)},
        format="multipart",
    )
    assert response.status_code == 400
    assert "next.trec:3:" in response.json()["detail"]
    assert [f.filename for f in retriever.run_files.all()] == ["first.trec"]


@pytest.mark.django_db
def test_the_command_adds_nothing_when_the_run_file_is_refused(personas, tmp_path):
    bad = tmp_path / "bad.trec"
    bad.write_bytes(BAD_RUN)
    with pytest.raises(CommandError, match=r"bad.trec:3:"):
        call_command(
            "add_retriever",
            project=personas.project.name,
            name="prod",
            kind="runfile",
            run_file=str(bad),
        )
    assert not Retriever.objects.exists()


@pytest.mark.django_db
def test_a_run_file_is_refused_before_anything_is_written_for_another_kind(personas):
    with pytest.raises(RetrieverInvalid, match="only run-file retrievers take a run file"):
        retriever_save(
            project=personas.project,
            name="bm25",
            kind="bm25",
            run_file=SimpleUploadedFile("run.trec", GOOD_RUN),
        )
    assert not Retriever.objects.exists()


@pytest.mark.django_db
def test_a_retrievers_name_and_kind_do_not_change(personas):
    retriever = retriever_save(project=personas.project, name="prod", kind="bm25")
    with pytest.raises(RetrieverInvalid, match="kind cannot change"):
        retriever_save(project=personas.project, retriever=retriever, kind="tfidf")
    with pytest.raises(RetrieverInvalid, match="name cannot change"):
        retriever_save(project=personas.project, retriever=retriever, name="other")
    retriever.refresh_from_db()
    assert (retriever.name, retriever.kind) == ("prod", "bm25")
