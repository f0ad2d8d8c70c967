"""A lead registers the keyword judge stub as an HTTP judge (served over real HTTP), runs it
as a Celery job through the broker to a real worker, follows its progress through the API,
and finds one machine grade per candidate, equal to what the stub says; the secret it sends
is never in a response, the task's arguments or the worker's log."""

from __future__ import annotations

import pytest

from annotation.models import Candidate, Judgment, MachineGrade, QueryAgreement
from goldsmith.judges import KeywordJudgeServer, keyword_overlap_grade
from tests.conftest import wait_for
from tests.evaluation.judges import graded_project

SECRET = "judge-s3cret-token-value"


@pytest.fixture
def judge_server():
    server = KeywordJudgeServer(("127.0.0.1", 0), token=SECRET).start()
    yield server
    server.stop()


def test_the_http_judge_grades_every_candidate_through_a_real_worker(
    personas, private_urls, judge_server, celery_worker_process, api_client_for
):
    setup = graded_project(personas, api_client_for)
    human_before = list(Judgment.objects.order_by("pk").values_list("pk", "grade"))
    agreement_before = list(QueryAgreement.objects.order_by("pk").values_list("kappa", "flagged"))
    lead = api_client_for(personas.alice)
    base = f"/api/v1/projects/{setup.project.pk}/judges/"
    created = lead.post(
        base,
        {
            "name": "keyword stub",
            "kind": "http",
            "config": {"url": judge_server.url, "batch_size": 5, "max_concurrency": 2},
            "auth_header_name": "Authorization",
            "auth_header_value": f"Bearer {SECRET}",
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    assert SECRET not in created.content.decode()
    judge = created.json()
    assert judge["has_auth_header"] is True
    started = lead.post(f"{base}{judge['id']}/jobs/", {"scope": "all"}, format="json")
    assert started.status_code == 201, started.content
    job_url = f"{base}{judge['id']}/jobs/{started.json()['id']}/"

    def finished():
        body = lead.get(job_url).json()
        return body if body["state"] in ("succeeded", "failed", "cancelled") else None

    body = wait_for(
        finished,
        timeout=120,
        message=f"the judging job to finish ({celery_worker_process.output()[-3000:]})",
    )
    total = Candidate.objects.filter(query__project=setup.project).count()
    assert body["state"] == "succeeded", body
    assert body["done"] == body["total"] == total and body["failed"] == 0
    assert body["progress"] == 1.0
    assert judge_server.calls == total
    # The judge was sent the query and the chunk, never a person's grade.
    assert all(set(b) == {"query", "query_id", "chunk", "chunk_id"} for b in judge_server.bodies)
    for cand in Candidate.objects.filter(query__project=setup.project).select_related(
        "query", "chunk"
    ):
        stored = MachineGrade.objects.get(judge_id=judge["id"], candidate=cand)
        assert (stored.grade, stored.reason) == keyword_overlap_grade(
            cand.query.text, cand.chunk.text
        )
    # The people's grades and agreement are as they were.
    assert list(Judgment.objects.order_by("pk").values_list("pk", "grade")) == human_before
    assert (
        list(QueryAgreement.objects.order_by("pk").values_list("kappa", "flagged"))
        == agreement_before
    )
    # The secret is in no response and not in the worker's output (task arguments included).
    for url in (base, f"{base}{judge['id']}/", f"{base}{judge['id']}/jobs/", job_url):
        assert SECRET not in lead.get(url).content.decode()
    assert SECRET not in celery_worker_process.output()
