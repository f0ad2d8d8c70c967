"""Migration evaluation 0010 gives the three endpoints (retrievers, machine judges, answer
judges) one abstract model for their auth header fields. An auth header saved before it, as
the app then stored it (encrypted, or named by an exposed environment variable), reads back
after it and still authenticates against a real endpoint that checks it."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from evaluation import credentials
from goldsmith.answers.judge import AnswerJudgeStub
from goldsmith.judges import JudgeItem, KeywordJudgeServer
from goldsmith.retrievers.http import HttpRetrieverClient, HttpRetrieverConfig
from tests.stub_servers import StubRetriever

BEFORE = [("evaluation", "0009_run_corpus_version")]
AFTER = [("evaluation", "0010_endpoint_auth_header_fields")]
TOKEN = "tok-before-0010"


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_every_endpoints_stored_header_authenticates_after_the_migration(
    personas, settings, monkeypatch
):
    from annotation.models import MachineJudge

    settings.GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS = True
    monkeypatch.setenv("GOLDSMITH_SECRET_JUDGE", f"Bearer {TOKEN}")
    retriever_stub = StubRetriever(
        {"q1": ["c1", "c2"]}, require_header=("Authorization", f"Bearer {TOKEN}")
    ).start()
    judge_stub = KeywordJudgeServer(("127.0.0.1", 0), token=TOKEN).start()
    answer_stub = AnswerJudgeStub(("127.0.0.1", 0), token=TOKEN).start()
    try:
        old = _migrate(BEFORE)
        stored = credentials.encrypt(f"Bearer {TOKEN}")
        retriever = old.get_model("evaluation", "Retriever").objects.create(
            project_id=personas.project.pk,
            name="r",
            kind="http",
            config=retriever_stub.config(),
            auth_header_name="Authorization",
            auth_header_encrypted=stored,
        )
        machine = MachineJudge.objects.create(project=personas.project, name="m", kind="http")
        old.get_model("evaluation", "JudgeEndpoint").objects.create(
            judge_id=machine.pk,
            config={"url": judge_stub.url},
            auth_header_name="Authorization",
            auth_header_env="GOLDSMITH_SECRET_JUDGE",
        )
        answer = old.get_model("evaluation", "AnswerJudge").objects.create(
            project_id=personas.project.pk,
            name="a",
            config={"url": answer_stub.url},
            auth_header_name="Authorization",
            auth_header_encrypted=stored,
        )

        _migrate(AFTER)

        from evaluation.models import AnswerJudge, JudgeEndpoint, Retriever
        from evaluation.services.answer_judges import answer_judge_test_call
        from evaluation.services.endpoints import auth_header, ssrf_policy
        from evaluation.services.judges import _client

        after = Retriever.objects.get(pk=retriever.pk)
        assert after.auth_header_encrypted == stored and after.auth_header_source == "stored"
        header = auth_header(after)
        assert header == ("Authorization", f"Bearer {TOKEN}")
        config = HttpRetrieverConfig(**after.config)
        with HttpRetrieverClient(config, policy=ssrf_policy(), auth_header=header) as client:
            outcome = client.search("q1", "question", 10)
        assert outcome.error == "" and [h.id for h in outcome.hits] == ["c1", "c2"]

        endpoint = JudgeEndpoint.objects.get(judge=machine)
        assert endpoint.auth_header_source == "env" and endpoint.has_auth_header
        with _client(machine) as judge:
            (verdict,) = judge.judge_many([JudgeItem(1, "q1", "warranty", "c1", "warranty")])
        assert verdict.error == "" and verdict.grade == 2 and judge_stub.calls == 1

        judged = answer_judge_test_call(judge=AnswerJudge.objects.get(pk=answer.pk))
        assert judged.error == "" and judged.score == 1.0 and answer_stub.calls == 1
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())  # as it was
        retriever_stub.stop()
        judge_stub.stop()
        answer_stub.stop()
