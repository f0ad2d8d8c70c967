"""The HTTP judge client goes through the retriever client: temporary failures (HTTP 500) are
retried, a permanent one is reported for its candidate, never raised; an answer without a
grade 0, 1 or 2 fails its candidate; the auth header reaches the judge; a cloud-metadata
address is refused before any request; verdicts keep the items' order under concurrency."""

from __future__ import annotations

import pytest

from goldsmith.judges import HttpJudgeClient, HttpJudgeConfig, JudgeItem, KeywordJudgeServer
from goldsmith.retrievers.ssrf import Policy
from tests.stub_servers import ScriptedJudge, json_reply

LOCAL = Policy(allow_private=True)


def items(n: int) -> list[JudgeItem]:
    return [
        JudgeItem(key=i, query_id=f"q{i}", query="install python", chunk_id=f"c{i}",
                  chunk="run the installer to install python" if i % 2 else "cats")
        for i in range(n)
    ]  # fmt: skip


@pytest.fixture
def flaky():
    servers = []

    def make(fail_first: int, answer: dict) -> ScriptedJudge:
        def script(n: int, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
            return (
                json_reply(500, {"error": "busy"}) if n <= fail_first else json_reply(200, answer)
            )

        servers.append(ScriptedJudge(script))
        return servers[-1]

    yield make
    for s in servers:
        s.stop()


def test_a_temporary_failure_is_retried(flaky):
    server = flaky(2, {"verdict": {"grade": "2"}, "why": "ok"})
    config = HttpJudgeConfig(
        url=server.url, grade_path="verdict.grade", reason_path="why", retries=3, backoff=0.01
    )
    with HttpJudgeClient(config, policy=LOCAL) as client:
        (verdict,) = client.judge_many(items(1))
    assert (verdict.grade, verdict.reason, verdict.attempts) == (2, "ok", 3)


def test_a_failure_after_the_last_retry_fails_only_its_candidate(flaky):
    server = flaky(10, {"grade": 1})
    config = HttpJudgeConfig(url=server.url, retries=1, backoff=0.01)
    with HttpJudgeClient(config, policy=LOCAL) as client:
        (verdict,) = client.judge_many(items(1))
    assert verdict.grade is None and "HTTP 500" in verdict.error and verdict.attempts == 2


@pytest.mark.parametrize("answer", [{"grade": 3}, {"grade": "high"}, {"other": 1}, {"grade": True}])
def test_an_answer_without_a_grade_fails_its_candidate(flaky, answer):
    server = flaky(0, answer)
    with HttpJudgeClient(HttpJudgeConfig(url=server.url), policy=LOCAL) as client:
        (verdict,) = client.judge_many(items(1))
    assert verdict.grade is None and "not a grade 0, 1 or 2" in verdict.error


def test_the_stub_answers_in_order_and_checks_the_auth_header():
    server = KeywordJudgeServer(("127.0.0.1", 0), token="t0ken").start()
    try:
        config = HttpJudgeConfig(url=server.url, max_concurrency=4)
        with HttpJudgeClient(
            config, policy=LOCAL, auth_header=("Authorization", "Bearer t0ken")
        ) as c:
            verdicts = c.judge_many(items(20))
        assert [v.key for v in verdicts] == list(range(20))
        assert [v.grade for v in verdicts] == [0, 2] * 10
        with HttpJudgeClient(config, policy=LOCAL) as c:
            (refused,) = c.judge_many(items(1))
        assert refused.grade is None and "HTTP 401" in refused.error
        assert "t0ken" not in repr(c)
    finally:
        server.stop()


def test_a_metadata_address_is_refused_before_any_request():
    config = HttpJudgeConfig(url="http://169.254.169.254/latest/meta-data/")
    with HttpJudgeClient(config, policy=LOCAL) as client:
        (verdict,) = client.judge_many(items(1))
    assert verdict.grade is None and verdict.attempts == 1
    assert "169.254.169.254" in verdict.error or "metadata" in verdict.error


def test_the_configuration_says_what_is_wrong():
    bad = HttpJudgeConfig(url="ftp://x", method="GET", body_template="{", batch_size=0)
    problems = " | ".join(bad.problems())
    for part in ("POST or PUT", "http://", "not JSON", "{query}", "batch size"):
        assert part in problems
    assert HttpJudgeConfig(url="https://judge.example/grade").problems() == []
