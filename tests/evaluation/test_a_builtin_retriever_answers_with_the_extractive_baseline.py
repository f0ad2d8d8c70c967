"""A built-in BM25 retriever set to answer with the extractive baseline gives the whole answer
report with no language model: each query's response is the best-matching sentence of its top
chunks (the engine's extractive answerer), its contexts (the top K chunks' texts) are stored,
and the report scores correctness and places every query with an answer key in a quadrant."""

from __future__ import annotations

import pytest

from evaluation.models import QueryResult
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from goldsmith.answers.extractive import extractive_answer
from goldsmith.answers.model import Context
from tests.evaluation.rag_stub import make_rag_golden


@pytest.mark.django_db
def test_a_builtin_retriever_answers_with_the_extractive_baseline(personas, client, api_client_for):
    golden = make_rag_golden(personas.project, with_corpus=True)
    retriever = retriever_save(
        project=personas.project, name="bm25 answers", kind="bm25", answerer="extractive"
    )
    run = evaluation_run_create(
        project=personas.project, retriever=retriever, version=golden.version, enqueue=False
    )
    assert run.retriever_snapshot["answerer"] == "extractive"
    run = evaluation_run_execute_inline(run_id=run.pk)
    assert run.state == "succeeded", run.error

    q5 = QueryResult.objects.get(run=run, query_id="q5")
    assert len(q5.contexts) == 5  # the headline K's chunks, with their corpus texts
    assert q5.contexts[0]["id"] in ("r5a", "r5b", "n5")
    expected = extractive_answer(
        "how long is the echo refund period?",
        [Context(c["id"], c["text"]) for c in q5.contexts],
    )
    assert q5.response == expected == "The echo refund period is 7 days from delivery."
    assert q5.candidates is None  # BM25 has no first stage

    answers = run.report["answers"]
    assert answers["stages_given"]["response"] == 8
    assert answers["per_query"]["q5"]["exact_match"] == 1.0  # "7 days", as the reference
    assert answers["per_query"]["q6"]["exact_match"] == 0.0  # says neither yes nor no
    placed = sum(answers["quadrants"].values())
    assert placed == 7 and answers["diagnosis"]["unplaced"] == ["q7"]
    # The extractive answer states fact A (the refund period) but not fact B: coverage 1/2.
    assert answers["per_query"]["q1"]["fact_coverage"] == 0.5
    assert "fact 2" in answers["reasons"]["q1"]["fact_coverage"]

    client.force_login(personas.victor)
    page = client.get(f"/projects/{personas.project.pk}/runs/{run.pk}/").content.decode()
    assert 'id="run-answerer"' in page and "answered by the extractive baseline" in page
    page = client.get(f"/projects/{personas.project.pk}/retrievers/{retriever.pk}/").content
    assert "The extractive baseline (no language model)" in page.decode()

    # The API reads and sets it; an unknown answerer is refused.
    api = api_client_for(personas.alice)
    url = f"/api/v1/projects/{personas.project.pk}/retrievers/{retriever.pk}/"
    assert api.get(url).json()["answerer"] == "extractive"
    assert api.patch(url, {"answerer": "oracle"}, format="json").status_code == 400
    assert api.patch(url, {"answerer": ""}, format="json").json()["answerer"] == ""
