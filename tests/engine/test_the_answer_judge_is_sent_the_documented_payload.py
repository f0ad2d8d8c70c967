"""The HTTP answer judge is sent the payload docs/formats.md shows, over a real HTTP server:
question, reference answer, answer type, key facts, response and the judge's model, prompt
version and temperature as configured; only open answers with a response are sent; the auth
header reaches the judge; any text travels as it is (placeholder texts included); requests keep
to the configured concurrency and answers come back in batches."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldsmith.answers.judge import (
    DEFAULT_BODY_TEMPLATE,
    AnswerItem,
    AnswerJudgeConfig,
    AnswerJudgeStub,
    HttpAnswerJudge,
    JudgeIdentity,
    render_request,
)
from goldsmith.answers.model import AnswerKey, Context, KeyFact, StagedQuery
from goldsmith.retrievers.ssrf import Policy

LOCAL = Policy(allow_private=True)
FORMATS = Path(__file__).resolve().parents[2] / "docs" / "formats.md"


def documented() -> tuple[dict, dict]:
    """The request and response JSON examples of the "HTTP answer judge" section."""
    text = FORMATS.read_text()
    section = text.split("## HTTP answer judge", 1)[1].split("\n## ", 1)[0]
    request, response = re.findall(r"```json\n(.*?)```", section, re.S)[:2]
    return json.loads(request), json.loads(response)


@pytest.fixture
def stub():
    server = AnswerJudgeStub(("127.0.0.1", 0), token="t0ken", keep_bodies=True).start()
    yield server
    server.stop()


def test_the_documented_example_is_what_is_sent_and_what_the_stub_answers(stub):
    request, response = documented()
    key = AnswerKey(
        request["query_id"],
        reference_answer=request["reference_answer"],
        answer_type="open",
        facts=tuple(KeyFact(f) for f in request["facts"]),
        query=request["question"],
    )
    run = [
        StagedQuery(
            request["query_id"],
            contexts=tuple(Context(f"c{i}", t) for i, t in enumerate(request["contexts"])),
            response=request["response"],
        )
    ]
    config = AnswerJudgeConfig(
        url=stub.url,
        name="stub",
        model=request["model"],
        prompt_version=request["prompt_version"],
        temperature=request["temperature"],
    )
    with HttpAnswerJudge(
        config, policy=LOCAL, auth_header=("Authorization", "Bearer t0ken")
    ) as judge:
        judged = judge.judge_run([key], run)
    assert stub.bodies == [request]
    (answer,) = judged.answers
    assert (answer.score, answer.reason) == (response["score"], response["reason"])
    assert answer.more == {
        "faithfulness": response["faithfulness"],
        "answer_relevance": response["answer_relevance"],
    }
    assert judged.identity == JudgeIdentity("stub", "m-1", "v2", 0.0)
    assert judged.scorer == "judge:stub"


def test_only_open_answers_with_a_response_are_sent(stub):
    keys = [
        AnswerKey("open", reference_answer="Manufacturing defects.", query="What is covered?"),
        AnswerKey("facts-only", facts=(KeyFact("refunds take 7 days", ("c1",)),)),
        AnswerKey("closed", reference_answer="7 days", answer_type="number"),
        AnswerKey("no-response", reference_answer="Yes."),
        AnswerKey("missing", reference_answer="Yes."),
        AnswerKey("no-answer-key"),
    ]
    run = [
        StagedQuery("open", response="It covers manufacturing defects."),
        StagedQuery("facts-only", response="Refunds take 7 days."),
        StagedQuery("closed", response="7 days"),
        StagedQuery("no-response"),
        StagedQuery("no-answer-key", response="anything"),
    ]
    config = AnswerJudgeConfig(url=stub.url, temperature=None)
    with HttpAnswerJudge(config, policy=LOCAL, auth_header=("Authorization", "Bearer t0ken")) as j:
        judged = j.judge_run(keys, run)
    assert [b["query_id"] for b in stub.bodies] in (
        ["open", "facts-only"],
        ["facts-only", "open"],
    )
    by_id = {b["query_id"]: b for b in stub.bodies}
    assert by_id["open"]["facts"] == [] and by_id["open"]["question"] == "What is covered?"
    assert by_id["facts-only"]["reference_answer"] is None
    assert by_id["facts-only"]["question"] == ""
    assert by_id["facts-only"]["temperature"] is None
    assert [a.query_id for a in judged.answers] == ["open", "facts-only"]
    assert [a.score for a in judged.answers] == [1.0, 1.0]


def test_a_wrong_token_is_refused_by_the_stub_and_reported_per_query(stub):
    keys = [AnswerKey("q1", reference_answer="yes")]
    run = [StagedQuery("q1", response="yes")]
    with HttpAnswerJudge(AnswerJudgeConfig(url=stub.url), policy=LOCAL) as judge:
        (answer,) = judge.judge_run(keys, run).answers
    assert answer.score is None and answer.error == "HTTP 401"


text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40) | st.sampled_from(
    [
        "{query}",
        "{response}",
        "{facts}",
        '"}{',
        "\\",
        "{reference_answer}",
        "{temperature}",
        "{contexts}",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    question=text,
    reference=st.none() | text,
    facts=st.lists(text, max_size=4),
    response=text,
    contexts=st.lists(text, max_size=3),
    model=text,
    temperature=st.none() | st.floats(0, 2, allow_nan=False),
)
def test_any_text_travels_as_it_is(
    question, reference, facts, response, contexts, model, temperature
):
    item = AnswerItem("q", question, reference, "open", tuple(facts), response, tuple(contexts))
    identity = JudgeIdentity("j", model, "v1", temperature)
    body = render_request(json.loads(DEFAULT_BODY_TEMPLATE), item, identity)
    assert json.loads(json.dumps(body)) == {
        "query_id": "q",
        "question": question,
        "reference_answer": reference,
        "answer_type": "open",
        "facts": facts,
        "response": response,
        "contexts": contexts,
        "model": model,
        "prompt_version": "v1",
        "temperature": temperature,
    }
    # Inside longer strings, each placeholder is replaced once, with its value as text.
    inner = render_request({"p": "Q={query} R={response} F={facts}"}, item, identity)
    numbered = "\n".join(f"{i}. {f}" for i, f in enumerate(facts, 1))
    assert inner == {"p": f"Q={question} R={response} F={numbered}"}


def test_requests_keep_to_the_concurrency_and_answers_come_in_batches():
    server = AnswerJudgeStub(("127.0.0.1", 0), delay_ms=20).start()
    try:
        items = [
            AnswerItem(f"q{i}", "", f"answer {i}", "open", (), f"answer {i}") for i in range(40)
        ]
        config = AnswerJudgeConfig(url=server.url, max_concurrency=3, batch_size=7)
        with HttpAnswerJudge(config, policy=LOCAL) as judge:
            batches = [b for b in judge.stream(items, tick=30) if b]
            ordered = judge.judge_many(items)
    finally:
        server.stop()
    assert [len(b) for b in batches] == [7, 7, 7, 7, 7, 5]
    assert sorted(a.query_id for b in batches for a in b) == sorted(i.query_id for i in items)
    assert [a.query_id for a in ordered] == [i.query_id for i in items]
    assert all(a.score == 1.0 for a in ordered)
    assert server.peak == 3 and server.calls == 80
