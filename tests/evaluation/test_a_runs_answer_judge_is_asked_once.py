"""A run that asks an answer judge has it judged by one worker only: while another worker holds
the judging (the watchdog calls the finishing step again every 30 s, and judging may take
longer), the run is left to it and the judge is not called a second time. A judge whose secret
cannot be read is sent nothing; the run still succeeds with its retrieval report and the rules'
answer metrics, its open answers unscored with the reason."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from evaluation.models import EvaluationRun, RunState
from evaluation.services.answer_judges import answer_judge_register
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import (
    evaluation_run_create,
    evaluation_run_execute_inline,
    evaluation_run_finish,
)
from tests.evaluation.rag_stub import RagStub, make_rag_golden, rag_table


@pytest.fixture
def rag_stub():
    stub = RagStub(rag_table()).start()
    yield stub
    stub.stop()


def _judged_run(personas, rag_stub, **judge):
    golden = make_rag_golden(personas.project)
    answer_judge = answer_judge_register(project=personas.project, name="overlap", **judge)
    retriever = retriever_save(
        project=personas.project, name="rag", kind="http", config=rag_stub.config()
    )
    return evaluation_run_create(
        project=personas.project,
        retriever=retriever,
        version=golden.version,
        answer_judge=answer_judge,
        enqueue=False,
    )


def test_a_second_finisher_leaves_the_judging_to_the_first(
    personas, private_urls, rag_stub, answer_judge_stub
):
    judge_server = answer_judge_stub()
    run = _judged_run(personas, rag_stub, url=judge_server.url)
    lease = f"goldsmith:judging-run:{run.pk}"
    assert cache.add(lease, 1, timeout=60)  # another worker is judging this run
    left = evaluation_run_execute_inline(run_id=run.pk)
    assert left.state == RunState.RUNNING and not left.judge_results
    assert judge_server.calls == 0

    cache.delete(lease)  # that worker is gone: the next finisher judges, once
    done = evaluation_run_finish(run_id=run.pk)
    assert done.state == RunState.SUCCEEDED, done.error
    asked = judge_server.calls
    assert asked > 0 and len(done.judge_results["answers"]) == asked
    assert cache.get(lease) is None
    assert evaluation_run_finish(run_id=run.pk).state == RunState.SUCCEEDED
    assert judge_server.calls == asked  # finished: never judged again


def test_a_judge_whose_secret_cannot_be_read_leaves_open_answers_unscored(
    personas, private_urls, rag_stub, answer_judge_stub, monkeypatch
):
    judge_server = answer_judge_stub(token="judge-token")
    monkeypatch.setenv("GOLDSMITH_SECRET_ANSWER_JUDGE", "Bearer judge-token")
    run = _judged_run(
        personas,
        rag_stub,
        url=judge_server.url,
        auth_header_name="Authorization",
        auth_header_env="GOLDSMITH_SECRET_ANSWER_JUDGE",
    )
    monkeypatch.delenv("GOLDSMITH_SECRET_ANSWER_JUDGE")  # gone from the worker
    done = evaluation_run_execute_inline(run_id=run.pk)
    assert done.state == RunState.SUCCEEDED, done.error
    assert judge_server.calls == 0
    answers = EvaluationRun.objects.get(pk=run.pk).report["answers"]
    failures = answers["judge_failures"]
    assert failures and all("GOLDSMITH_SECRET_ANSWER_JUDGE" in e for e in failures.values())
    assert "recall@5" in done.report["aggregate"]  # the retrieval report stands
    assert answers["aggregate"]["fact_coverage"]["n"] > 0  # so do the rules' answer metrics
