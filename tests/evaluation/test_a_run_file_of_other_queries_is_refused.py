"""A run-file retriever whose file answers none of the version's queries (another query set,
or ids written another way) would score every query 0 as missing from the run: starting a run
with it is refused, naming the file and both first ids, on the service and the API; one
shared query is enough to run."""

from __future__ import annotations

import pytest

from evaluation.models import EvaluationRun
from evaluation.services.reports import RunInvalid
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create
from tests.evaluation.conftest import make_golden


@pytest.fixture
def golden(personas):
    return make_golden(personas.project, n=3, label="v1")


def _retriever(personas, tmp_path, text: str):
    path = tmp_path / "other.trec"
    path.write_text(text)
    retriever = retriever_save(project=personas.project, name="files", kind="runfile")
    retriever_save(project=personas.project, retriever=retriever, run_file=path)
    return retriever


def test_a_run_file_sharing_no_query_id_is_refused_with_both_first_ids(personas, golden, tmp_path):
    retriever = _retriever(personas, tmp_path, "1 Q0 r1a 1 1.0 x\n2 Q0 r2a 1 1.0 x\n")
    with pytest.raises(RunInvalid) as refused:
        evaluation_run_create(
            project=personas.project, retriever=retriever, version=golden.version, enqueue=False
        )
    message = str(refused.value)
    assert "the run file other.trec shares no query id with version v1" in message
    assert "the file's first: '1', the version's first: 'q1'" in message
    assert not EvaluationRun.objects.exists()


def test_the_api_says_why_with_a_400(personas, golden, tmp_path, api_client_for):
    _retriever(personas, tmp_path, "x1 Q0 r1a 1 1.0 x\n")
    response = api_client_for(personas.alice).post(
        f"/api/v1/projects/{personas.project.pk}/runs/",
        {"retriever": "files", "version": "v1"},
        format="json",
    )
    assert response.status_code == 400, response.content
    assert "shares no query id" in response.content.decode()


def test_one_shared_query_is_enough(personas, golden, tmp_path):
    retriever = _retriever(personas, tmp_path, "q2 Q0 r2a 1 1.0 x\nx9 Q0 r1a 1 1.0 x\n")
    run = evaluation_run_create(
        project=personas.project, retriever=retriever, version=golden.version, enqueue=False
    )
    assert run.total == 3
