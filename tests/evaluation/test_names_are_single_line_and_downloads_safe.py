"""Names are one line of text, refused on input with a clear error when they hold a line
break or another control character; download file names are built safely from whatever is
stored. The probe: a retriever named with CR/LF was accepted, and then report.csv and
report.json answered 500 for every member (the name went raw into Content-Disposition)."""

from __future__ import annotations

import io

import pytest
from django.test import Client

from annotation.models import PoolSource, Project
from annotation.services.projects import project_setup
from evaluation.models import Retriever
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from tests.evaluation.conftest import make_golden

BAD_NAMES = ["evil\r\nX-Injected: 1", "two\nlines", "tab\tbed", "bell\x07", "sep\u2028arated"]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_the_api_refuses_a_retriever_name_that_is_not_one_line(personas, api_client_for, name):
    response = api_client_for(personas.alice).post(
        f"/api/v1/projects/{personas.project.pk}/retrievers/",
        {"name": name, "kind": "bm25"},
        format="json",
    )
    assert response.status_code == 400, response.content
    assert "one line" in str(response.json())
    assert not Retriever.objects.exists()


def test_the_page_refuses_it_with_a_readable_error(personas, client):
    client.force_login(personas.alice)
    response = client.post(
        f"/projects/{personas.project.pk}/retrievers/",
        {"name": "evil\r\nname", "kind": "bm25", "method": "GET", "id_field": "id",
         "timeout": 5, "max_concurrency": 1, "retries": 0},
    )  # fmt: skip
    assert response.status_code in (200, 400)
    assert "one line" in response.content.decode()
    assert not Retriever.objects.exists()


def test_other_names_are_single_line_too(personas, api_client_for, client, tmp_path):
    with pytest.raises(ValueError, match="one line"):
        project_setup(name="Acme\r\nSupport 2", leads=["alice"])
    assert Project.objects.count() == 1

    alice = api_client_for(personas.alice)
    run = io.BytesIO(b"1 Q0 doc-0#0 1 1.0 run\n")
    run.name = "run.txt"
    response = alice.post(
        f"/api/v1/projects/{personas.project.pk}/pools/runs/",
        {"name": "prod\r\nrun", "file": run},
        format="multipart",
    )
    assert response.status_code == 400 and "one line" in str(response.json())
    assert not PoolSource.objects.exists()

    response = alice.post("/api/v1/tokens/", {"name": "ci\nbot"}, format="json")
    assert response.status_code == 400 and "one line" in str(response.json())


def test_names_in_any_script_with_spaces_are_fine(personas, api_client_for):
    response = api_client_for(personas.alice).post(
        f"/api/v1/projects/{personas.project.pk}/retrievers/",
        {"name": "生产 BM25 — v2 (prod)", "kind": "bm25"},
        format="json",
    )
    assert response.status_code == 201, response.content


def test_downloads_work_with_a_bad_name_already_stored(personas, private_urls, stub_factory):
    golden = make_golden(personas.project, n=4)
    stub = stub_factory(golden.answers)
    retriever = Retriever.objects.create(  # stored before names were checked
        project=personas.project,
        name='evil\r\nSet-Cookie: x=1; "quoted" ünï/../名\x7f',
        kind="http",
        config=stub.config(),
    )
    run = evaluation_run_create(
        project=personas.project, retriever=retriever, version=golden.version, enqueue=False
    )
    run = evaluation_run_execute_inline(run_id=run.pk)
    assert run.state == "succeeded", run.error
    for user in (personas.alice, personas.bob, personas.victor):
        browser = Client(raise_request_exception=False)
        browser.force_login(user)
        for fmt in ("csv", "json"):
            response = browser.get(f"/projects/{personas.project.pk}/runs/{run.pk}/report.{fmt}")
            assert response.status_code == 200, (user, fmt, response.status_code)
            disposition = response["Content-Disposition"]
            assert disposition.startswith("attachment; filename")
            assert not any(c in disposition for c in "\r\n\x7f")
            assert "Set-Cookie" not in response.headers or "x=1" not in response["Set-Cookie"]
            assert f".{fmt}" in disposition and f"run-{run.pk}" in disposition
    browser = Client(raise_request_exception=False)
    browser.force_login(personas.victor)
    odd = browser.get(f"/projects/{personas.project.pk}/runs/{run.pk}/report.csv%0D%0Ax")
    assert odd.status_code == 404
