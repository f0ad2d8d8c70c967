"""A real HTTP answer judge that fails: HTTP 5xx and 429 are retried with backoff; a judge still
failing after the last retry, a 4xx, or an answer without a usable score (not JSON, no score,
out of [0, 1], true, NaN, a text) fails that query only, with an error naming the score's path
and what came; the other queries are scored. A cloud-metadata address is refused before any
request. Only finite numbers from 0 to 1 are scores (a property test)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goldsmith.answers.judge import (
    AnswerItem,
    AnswerJudgeConfig,
    HttpAnswerJudge,
    parse_judgement,
)
from goldsmith.retrievers.http import PermanentFailure
from goldsmith.retrievers.ssrf import Policy
from tests.stub_servers import ScriptedJudge, json_reply

LOCAL = Policy(allow_private=True)


def items(n: int) -> list[AnswerItem]:
    return [AnswerItem(f"q{i}", "question", "answer", "open", (), f"resp {i}") for i in range(n)]


@pytest.fixture
def judge_server():
    servers: list[ScriptedJudge] = []

    def make(script) -> ScriptedJudge:
        servers.append(ScriptedJudge(script))
        return servers[-1]

    yield make
    for s in servers:
        s.stop()


def config(url: str, **more) -> AnswerJudgeConfig:
    return AnswerJudgeConfig(url=url, retries=3, backoff=0.01, **more)


@pytest.mark.parametrize("status", [500, 502, 503, 429])
def test_a_temporary_failure_is_retried(judge_server, status):
    server = judge_server(
        lambda n, body, h: (
            json_reply(status, {"error": "busy"})
            if n <= 2
            else json_reply(200, {"score": 0.75, "reason": "mostly right"})
        )
    )
    with HttpAnswerJudge(config(server.url), policy=LOCAL) as judge:
        (answer,) = judge.judge_many(items(1))
    assert (answer.score, answer.reason, answer.attempts, answer.error) == (
        0.75,
        "mostly right",
        3,
        "",
    )


def test_a_judge_failing_past_the_last_retry_fails_only_that_query(judge_server):
    def script(n, body, headers):
        if json.loads(body)["response"] == "resp 1":
            return json_reply(500, {"error": "boom"})
        return json_reply(200, {"score": 1, "reason": "ok"})

    server = judge_server(script)
    with HttpAnswerJudge(config(server.url, max_concurrency=2), policy=LOCAL) as judge:
        answers = judge.judge_many(items(3))
    assert [a.score for a in answers] == [1.0, None, 1.0]
    assert answers[1].error == "HTTP 500 (4 tries)" and answers[1].attempts == 4
    assert server.calls == 2 + 4


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ((200, b"<html>oops</html>"), "the response is not JSON"),
        ((200, b'{"reason": "no score"}'), "'score' is not a score from 0 to 1 (got nothing)"),
        ((200, b'{"score": 1.5}'), "'score' is not a score from 0 to 1 (got 1.5)"),
        ((200, b'{"score": -0.1}'), "'score' is not a score from 0 to 1 (got -0.1)"),
        ((200, b'{"score": "high"}'), "'score' is not a score from 0 to 1 (got a text)"),
        ((200, b'{"score": "7"}'), "'score' is not a score from 0 to 1 (got 7.0)"),
        ((200, b'{"score": true}'), "'score' is not a score from 0 to 1 (got true or false)"),
        ((200, b'{"score": NaN}'), "'score' is not a score from 0 to 1 (got nan)"),
        ((200, b'{"score": [1]}'), "'score' is not a score from 0 to 1 (got a list)"),
        ((200, b'{"score": null}'), "'score' is not a score from 0 to 1 (got null)"),
        ((200, b"[0.5]"), "'score' is not a score from 0 to 1 (got nothing)"),
        ((400, b'{"error": "bad"}'), "HTTP 400"),
        ((404, b"{}"), "HTTP 404"),
    ],
)
def test_garbage_fails_its_query_with_a_clear_error(judge_server, reply, error):
    server = judge_server(lambda n, body, h: reply)
    with HttpAnswerJudge(config(server.url), policy=LOCAL) as judge:
        (answer,) = judge.judge_many(items(1))
    assert answer.score is None
    assert error in answer.error
    assert answer.attempts == 1  # not worth retrying


def test_scores_and_reasons_are_read_at_their_paths(judge_server):
    server = judge_server(
        lambda n, body, h: json_reply(200, {"out": [{"s": "0.25", "why": {"missing": [2]}}]})
    )
    cfg = config(server.url, score_path="out.0.s", reason_path="out.0.why")
    with HttpAnswerJudge(cfg, policy=LOCAL) as judge:
        (answer,) = judge.judge_many(items(1))
    assert (answer.score, answer.reason) == (0.25, '{"missing": [2]}')


def test_a_metadata_address_is_refused_before_any_request():
    cfg = AnswerJudgeConfig(url="http://169.254.169.254/latest/meta-data/")
    with HttpAnswerJudge(cfg, policy=LOCAL) as judge:
        (answer,) = judge.judge_many(items(1))
    assert answer.score is None and answer.attempts == 1
    assert "169.254.169.254" in answer.error or "metadata" in answer.error


def test_a_bad_configuration_says_what_is_wrong():
    bad = AnswerJudgeConfig(
        url="ftp://x",
        name="two words",
        method="GET",
        body_template='{"q": "{query}"}',
        temperature=-1,
        max_concurrency=0,
    )
    problems = " | ".join(bad.problems())
    for part in ("without spaces", "temperature", "POST or PUT", "http://", "{response}"):
        assert part in problems
    assert "max concurrency must be between 1 and 64" in problems
    with pytest.raises(ValueError, match="the URL must start"):
        HttpAnswerJudge(bad, policy=LOCAL)
    assert AnswerJudgeConfig(url="https://judge.example/score").problems() == []


numbers = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-5, 5)


@given(value=numbers | st.booleans() | st.none() | st.text(max_size=8))
def test_only_finite_numbers_from_0_to_1_are_scores(value):
    cfg = AnswerJudgeConfig(url="http://judge.example/")
    number = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    expected = number is not None and 0.0 <= number <= 1.0  # NaN compares false
    try:
        score, reason = parse_judgement({"score": value, "reason": "r"}, cfg)
    except PermanentFailure as error:
        assert not expected
        assert "not a score from 0 to 1" in str(error)
    else:
        assert expected and score == number and reason == "r"
