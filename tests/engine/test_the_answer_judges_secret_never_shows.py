"""The answer judge's auth header reaches the judge and nowhere else: not in the configuration's
snapshot, the client's repr, an error (even from a judge that echoes the header back in a
malformed answer), the report, or what ``goldsmith eval --judge-header-env`` prints, whether
it succeeds or refuses a malformed header."""

from __future__ import annotations

import json

import pytest

from goldsmith.answers import report as AR
from goldsmith.answers.judge import (
    AnswerItem,
    AnswerJudgeConfig,
    HttpAnswerJudge,
    parse_auth_header,
)
from goldsmith.answers.model import AnswerKey, StagedQuery
from goldsmith.cli import main
from goldsmith.retrievers.ssrf import Policy
from tests.stub_servers import ScriptedJudge

LOCAL = Policy(allow_private=True)
SECRET = "s3cr3t-Tok3n-9f8e7d"
HEADER = ("Authorization", f"Bearer {SECRET}")


def echo_headers(n, body, headers):
    """A judge that repeats what it got, headers included, in every kind of wrong answer."""
    got = headers.get("Authorization", "")
    replies = [
        (200, json.dumps({"score": got, "reason": got}).encode()),
        (200, json.dumps({"score": {"auth": got}}).encode()),
        (200, f"not json {got}".encode()),
        (500, got.encode()),
        (401, got.encode()),
    ]
    return replies[json.loads(body)["query_id"].count("x") % len(replies)]


@pytest.fixture
def echo():
    server = ScriptedJudge(echo_headers)
    yield server
    server.stop()


def test_the_secret_reaches_the_judge_and_no_error_or_repr(echo):
    cfg = AnswerJudgeConfig(url=echo.url, retries=1, backoff=0.0, name="j")
    items = [AnswerItem("q" + "x" * i, "q", "a", "open", (), "r") for i in range(5)]
    with HttpAnswerJudge(cfg, policy=LOCAL, auth_header=HEADER) as judge:
        answers = judge.judge_many(items)
        shown = repr(judge) + str(judge.__dict__)
    assert all(h["Authorization"] == f"Bearer {SECRET}" for h, _ in echo.requests)
    assert all(a.score is None and a.error for a in answers)
    errors = [a.error for a in answers]
    assert errors[2] == "the response is not JSON" and errors[3] == "HTTP 500 (2 tries)"
    for text in [*errors, *(repr(a) for a in answers), shown, json.dumps(cfg.snapshot())]:
        assert SECRET not in text


def test_the_report_holds_no_secret(echo):
    keys = [AnswerKey("q", reference_answer="Two years."), AnswerKey("qx", reference_answer="Y")]
    run = [StagedQuery("q", response="Two years."), StagedQuery("qx", response="Yes")]
    cfg = AnswerJudgeConfig(url=echo.url, retries=0, name="j")
    with HttpAnswerJudge(cfg, policy=LOCAL, auth_header=HEADER) as judge:
        results = judge.judge_run(keys, run)
    doc = AR.answer_report(keys, run, ["answer_correctness"], judge=results, samples=0)
    assert set(doc["judge_failures"]) == {"q", "qx"}
    assert SECRET not in json.dumps(doc) and SECRET not in repr(results)


@pytest.mark.parametrize(
    "raw", [f"Bearer {SECRET}", f"Bad Name: {SECRET}", f"Authorization: a\r\nX: {SECRET}"]
)
def test_a_malformed_header_is_refused_without_its_value(raw):
    with pytest.raises(ValueError) as caught:
        parse_auth_header(raw, source="--judge-header-env JUDGE_AUTH")
    assert "--judge-header-env JUDGE_AUTH" in str(caught.value)
    assert SECRET not in str(caught.value)


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def test_goldsmith_eval_prints_no_secret(tmp_path, echo, capsys, monkeypatch):
    qrels = write(
        tmp_path / "q.jsonl", [{"query_id": "q", "judgments": [], "reference_answer": "Y"}]
    )
    run = write(tmp_path / "r.jsonl", [{"query_id": "q", "results": [], "response": "Yes"}])
    args = ["eval", qrels, run, "-m", "answer_correctness", "--judge-url", echo.url]
    monkeypatch.setenv("JUDGE_AUTH", f"Authorization: Bearer {SECRET}")
    for fmt in ("table", "json"):
        assert main([*args, "--judge-header-env", "JUDGE_AUTH", "--format", fmt]) == 0
        out, err = capsys.readouterr()
        assert "gave no score for 1 of 1 answers" in err
        assert SECRET not in out + err
    monkeypatch.setenv("JUDGE_AUTH", SECRET)  # no "Name:"
    assert main([*args, "--judge-header-env", "JUDGE_AUTH"]) == 2
    out, err = capsys.readouterr()
    assert "--judge-header-env JUDGE_AUTH must hold one header as 'Name: value'" in err
    assert SECRET not in out + err
    assert main([*args, "--judge-header-env", "NOT_SET_ANYWHERE_42"]) == 2
    assert "NOT_SET_ANYWHERE_42: the environment variable is not set" in capsys.readouterr().err
