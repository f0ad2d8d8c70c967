"""The runs page's compare form starts with two runs of one golden-set version (a comparison
of two versions is refused), and says so plainly when no two runs share a version."""

from __future__ import annotations

import re

import pytest

from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from tests.conftest import PASSWORD
from tests.evaluation.conftest import make_golden


@pytest.fixture
def retriever(personas, private_urls, stub_factory):
    golden = make_golden(personas.project, n=6, label="v1")
    stub = stub_factory(golden.answers)
    return retriever_save(
        project=personas.project, name="stub", kind="http", config=stub.config()
    ), golden.version


def run_on(project, retriever, version):
    run = evaluation_run_create(
        project=project, retriever=retriever, version=version, enqueue=False
    )
    return evaluation_run_execute_inline(run_id=run.pk)


def selected(page: str, select_id: str) -> str | None:
    block = re.search(rf'<select id="{select_id}".*?</select>', page, re.S)
    assert block is not None
    found = re.search(r'<option value="(\d+)" selected>', block.group(0))
    return found.group(1) if found else None


@pytest.mark.django_db
def test_the_form_starts_with_the_newest_pair_of_one_version(personas, retriever, client):
    project = personas.project
    stub, v1 = retriever
    v2 = make_golden(project, n=6, label="v2").version
    older = run_on(project, stub, v1)
    newer = run_on(project, stub, v1)
    newest = run_on(project, stub, v2)  # alone on v2: before, B was preselected from it
    assert client.login(username="victor", password=PASSWORD)
    page = client.get(f"/projects/{project.pk}/runs/").content.decode()
    assert selected(page, "cmp-a") == str(older.pk)
    assert selected(page, "cmp-b") == str(newer.pk)
    assert '<optgroup label="golden set v2">' in page and '<optgroup label="golden set v1">' in page
    assert f"#{newest.pk}" in page
    # The preselected pair compares.
    compare = client.get(f"/projects/{project.pk}/runs/compare/?a={older.pk}&b={newer.pk}")
    assert compare.status_code == 200 and "Worse in B" in compare.content.decode()


@pytest.mark.django_db
def test_without_two_runs_of_one_version_it_says_so_instead(personas, retriever, client):
    project = personas.project
    stub, v1 = retriever
    v2 = make_golden(project, n=6, label="v2").version
    run_on(project, stub, v1)
    run_on(project, stub, v2)
    assert client.login(username="victor", password=PASSWORD)
    page = client.get(f"/projects/{project.pk}/runs/").content.decode()
    assert "No two succeeded runs share a golden-set version" in page
    assert "a comparison needs two runs of the same version" in page
    assert 'id="cmp-a"' not in page and " selected>" not in page


@pytest.mark.django_db
def test_with_one_run_it_asks_for_two_of_one_version(personas, retriever, client):
    stub, v1 = retriever
    run_on(personas.project, stub, v1)
    assert client.login(username="victor", password=PASSWORD)
    page = client.get(f"/projects/{personas.project.pk}/runs/").content.decode()
    assert "Two succeeded runs on the same golden-set version are needed." in page
