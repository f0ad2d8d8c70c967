"""A whole run of a RAG pipeline travels through the broker to a real worker that calls a real
HTTP stub returning first-stage candidates, a reranked list, the contexts and the answers: every
stage is stored per query, and the report (through the API) has the first stage beside the
final list, the answer metrics with their reasons, and the four quadrants as worked out by
hand in tests/evaluation/rag_stub.py."""

from __future__ import annotations

import pytest

from evaluation.models import QueryResult, RunState
from evaluation.services.retrievers import evaluation_settings_update, retriever_save
from evaluation.services.runs import evaluation_run_create
from tests.conftest import wait_for
from tests.evaluation.rag_stub import EXPECTED_QUADRANTS, RagStub, make_rag_golden, rag_table


@pytest.fixture
def rag_stub():
    stub = RagStub(rag_table()).start()
    yield stub
    stub.stop()


def test_a_real_worker_stores_every_stage_and_the_report_places_the_quadrants(
    personas, private_urls, rag_stub, worker_factory, api_client_for
):
    golden = make_rag_golden(personas.project)
    worker = worker_factory(concurrency=2)
    retriever = retriever_save(
        project=personas.project, name="rag", kind="http", config=rag_stub.config()
    )
    run = evaluation_run_create(
        project=personas.project, retriever=retriever, version=golden.version, batch_size=3
    )
    client = api_client_for(personas.victor)
    url = f"/api/v1/projects/{personas.project.pk}/runs/{run.pk}/"

    def finished():
        body = client.get(url).json()
        return body if body["state"] in ("succeeded", "failed", "cancelled") else None

    body = wait_for(finished, timeout=120, message=f"the run to finish ({worker.output()[-3000:]})")
    assert body["state"] == RunState.SUCCEEDED, body

    # Every stage is stored per query.
    q2 = QueryResult.objects.get(run=run, query_id="q2")
    assert q2.ranked_ids[:2] == ["r2a", "u2-0"]
    assert len(q2.candidates) == 20 and q2.candidates[8] == "r2a"
    assert q2.candidate_scores[0] == 1.0
    assert q2.contexts == [
        {"id": "r2a", "text": "The refund period is 7 days from delivery."},
        {"id": "u2-0", "text": "Unrelated text."},
    ]
    assert q2.response.startswith("The refund period is 7 days.")
    assert QueryResult.objects.get(run=run, query_id="q8").response is None

    report = client.get(url + "report/").json()
    answers = report["answers"]
    agg = answers["aggregate"]
    # The first stage beside the final list: r{i}a is 9th and r{i}b 15th of 20 candidates.
    assert agg["first_stage:recall@5"]["mean"] == 0.0
    assert agg["first_stage:recall@10"]["mean"] == 0.5
    assert agg["first_stage:recall@20"]["mean"] == 1.0
    assert report["aggregate"]["recall@5"]["mean"] == 0.75  # q1, q3, q5, q8 keep both
    # The answer metrics, each with its reason per query.
    assert agg["context_recall@5"]["n"] == 7  # q7 has no key facts
    assert answers["per_query"]["q2"]["context_recall@5"] == 0.5
    assert answers["per_query"]["q5"]["exact_match"] == 0.0
    assert answers["per_query"]["q6"]["exact_match"] == 1.0
    assert answers["per_query"]["q1"]["answer_correctness"] == 1.0
    assert "14" in answers["reasons"]["q5"]["answer_correctness"]
    assert "answer_correctness" not in answers["reasons"]["q8"]  # no response: not scored
    assert answers["responses"] == {"queries": 7, "with_response": 6}
    assert answers["reasons"]["q2"]["context_recall@5"]
    # The quadrants equal the hand computation (thresholds: the pass threshold 0.7).
    expected_counts = {q: len(v) for q, v in EXPECTED_QUADRANTS.items()}
    assert report["quadrants"] == expected_counts
    assert answers["quadrants"] == expected_counts
    diagnosis = answers["diagnosis"]
    assert {q: sorted(v) for q, v in diagnosis["queries"].items()} == EXPECTED_QUADRANTS
    assert diagnosis["recall_threshold"] == diagnosis["correctness_threshold"] == 0.7
    # q7: no answer key, neither score; q8: no response, no correctness: neither is placed.
    assert diagnosis["unplaced"] == ["q7", "q8"]
    assert diagnosis["by_category"]["refunds"]["high_recall_low_correctness"] == 2  # q3, q5
    assert diagnosis["by_category"]["policy"]["low_recall_high_correctness"] == 2  # q2, q6
    assert "chunking" in diagnosis["advice"]["low_recall_low_correctness"]

    # Editing the thresholds places the stored per-query values again, without a new run:
    # correctness 0.5 high (q2: 1.0 stays high); recall 0.5 high moves q2 to high/high.
    evaluation_settings_update(project=personas.project, quadrant_recall_threshold=0.5)
    again = client.get(url + "report/").json()
    assert again["quadrants"]["high_recall_high_correctness"] == 2
    assert again["quadrants"]["low_recall_high_correctness"] == 1
    # ... and a request may ask for its own.
    asked = client.get(url + "report/?recall_threshold=1&correctness_threshold=1").json()
    assert asked["answers"]["diagnosis"]["recall_threshold"] == 1.0
    assert asked["quadrants"]["high_recall_high_correctness"] == 1
