"""A run of the RAG stub that asks a registered HTTP answer judge (the engine's stub judge,
scoring by key-fact overlap) goes through a real worker: the worker that finishes the run
sends the open answers with a response to the judge, the run keeps what the judge answered
(its identity and every score and reason), and the report's correctness of open answers is
the judge's, closed answers keeping the rules' exact match. The quadrants then equal the hand
computation below, which differs from the rules' in one query (q3). The retriever page's run
form offers the project's answer judges."""

from __future__ import annotations

import pytest
from django.test import Client

from evaluation.models import EvaluationRun, RunState
from evaluation.services.answer_judges import answer_judge_register
from evaluation.services.retrievers import retriever_save
from tests.conftest import wait_for
from tests.evaluation.rag_stub import RagStub, make_rag_golden, rag_table, replace_stage

# q3 now answers in other words: the rules find only fact 2 ("exceptions need a manager
# approval": 3 of its 4 terms, at the 0.75 overlap) and not fact 1 (its number 7 is missing):
# correctness 0.5, low. The stub judge counts a fact stated when half of its content words
# are in the response (refund, period; exceptions, need, approval): 2 of 2 facts, 1.0, high.
Q3_ANSWER = "The refund period lasts a week, and exceptions need approval."
EXPECTED = {
    "low_recall_low_correctness": ["q4"],  # the judge: 0 facts of "Nobody knows."
    "low_recall_high_correctness": ["q2", "q6"],  # q2 judged 1.0; q6 boolean: the rules' 1
    "high_recall_low_correctness": ["q5"],  # q5 number: the rules' 0 (q8, no response: unplaced)
    "high_recall_high_correctness": ["q1", "q3"],  # both judged 1.0
}


@pytest.fixture
def rag_stub():
    table = rag_table()
    table["q3"] = replace_stage(table["q3"], table["q3"].contexts, Q3_ANSWER)
    stub = RagStub(table).start()
    yield stub
    stub.stop()


def test_the_judge_scores_the_open_answers_of_a_run_on_the_worker(
    personas, private_urls, rag_stub, answer_judge_stub, worker_factory, api_client_for
):
    golden = make_rag_golden(personas.project)
    judge_server = answer_judge_stub(token="judge-token")
    judge = answer_judge_register(
        project=personas.project,
        name="overlap",
        url=judge_server.url,
        model="stub-1",
        prompt_version="p3",
        temperature=0.0,
        config={"retries": 1, "timeout": 5},
        auth_header_name="Authorization",
        auth_header_value="Bearer judge-token",
    )
    worker = worker_factory(concurrency=2)
    retriever = retriever_save(
        project=personas.project, name="rag", kind="http", config=rag_stub.config()
    )
    client = api_client_for(personas.alice)
    base = f"/api/v1/projects/{personas.project.pk}/runs/"
    made = client.post(
        base,
        {"retriever": "rag", "version": golden.version.label, "answer_judge": "overlap"},
        format="json",
    )
    assert made.status_code == 201, made.content
    url = f"{base}{made.json()['id']}/"

    def finished():
        body = client.get(url).json()
        return body if body["state"] in ("succeeded", "failed", "cancelled") else None

    body = wait_for(finished, timeout=120, message=f"the run to finish ({worker.output()[-3000:]})")
    assert body["state"] == RunState.SUCCEEDED, body

    run = EvaluationRun.objects.get(pk=body["id"])
    assert run.answer_judge_id == judge.pk and run.retriever_id == retriever.pk
    kept = run.judge_results
    assert kept["judge"]["name"] == "overlap" and kept["judge"]["model"] == "stub-1"
    judged = {a["query_id"]: a for a in kept["answers"]}
    # Every response, closed answers too (q5 to q7), since the run is scored on faithfulness
    # and answer relevance; only the open answers' correctness is the judge's.
    assert sorted(judged) == ["q1", "q2", "q3", "q4", "q5", "q6", "q7"]
    assert judged["q3"]["score"] == 1.0 and judged["q4"]["score"] == 0.0
    assert len(judge_server.bodies) >= 1
    assert "judge-token" not in str(run.report) and "judge-token" not in str(kept)

    report = client.get(url + "report/").json()
    answers = report["answers"]
    assert answers["per_query"]["q3"]["answer_correctness"] == 1.0
    assert answers["per_query"]["q3"]["fact_coverage"] == 0.5  # the rules' own, kept apart
    assert answers["per_query"]["q5"]["answer_correctness"] == 0.0  # closed: the rules'
    assert answers["scorer"]["metrics"]["answer_correctness"].startswith("judge")
    # The stub judge also answers faithfulness (the rules' own) and answer relevance.
    assert answers["scorer"]["metrics"]["faithfulness"] == "judge:overlap"
    assert answers["per_query"]["q5"]["faithfulness"] == 0.0  # says 14 days, contexts 7
    assert answers["scored_by"]["q5"]["answer_relevance"] == "judge:overlap"
    assert answers["aggregate"]["answer_relevance"]["n"] == 7
    assert report["quadrants"] == {q: len(v) for q, v in EXPECTED.items()}
    assert {q: sorted(v) for q, v in answers["diagnosis"]["queries"].items()} == EXPECTED
    # The run page says which judge scored the open answers, as configured.
    page = Client()
    page.force_login(personas.victor)
    html = page.get(f"/projects/{personas.project.pk}/runs/{run.pk}/").content.decode()
    assert 'id="answer-judge"' in html
    assert "overlap" in html and "stub-1" in html and "p3" in html


@pytest.mark.django_db
def test_the_run_form_offers_the_projects_answer_judges(
    personas, private_urls, answer_judge_stub, tmp_path
):
    from evaluation.services.retrievers import retriever_save as save
    from tests.evaluation.test_a_jsonl_run_file_keeps_every_stage import rag_run_file

    golden = make_rag_golden(personas.project)
    path = tmp_path / "rag.jsonl"
    path.write_bytes(rag_run_file())
    retriever = save(project=personas.project, name="rag", kind="runfile", run_file=path)
    page = Client()
    page.force_login(personas.alice)
    url = f"/projects/{personas.project.pk}/retrievers/{retriever.pk}/"
    assert 'name="answer_judge"' not in page.get(url).content.decode()  # no judge yet
    judge = answer_judge_register(
        project=personas.project, name="overlap", url=answer_judge_stub().url
    )
    html = page.get(url).content.decode()
    assert 'name="answer_judge"' in html and "overlap" in html
    form = {
        "version": golden.version.pk,
        "ks": "5 10",
        "relevance_threshold": 2,
        "gain": "linear",
        "matching": "chunk",
        "answer_judge": judge.pk,
    }
    response = page.post(url, form)
    assert response.status_code == 302, response.content.decode()[-2000:]
    assert EvaluationRun.objects.get().answer_judge_id == judge.pk
