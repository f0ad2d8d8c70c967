"""Retrievers, machine judges and answer judges are called through one concurrency loop
(`goldsmith.retrievers.http.stream_calls`): against one slow endpoint, each keeps exactly its
configured number of requests in flight, answers every item (in the items' order where it
returns a list), and hands a bug in a call back to the caller instead of losing it."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from goldsmith.answers.judge import AnswerItem, AnswerJudgeConfig, HttpAnswerJudge
from goldsmith.judges import HttpJudgeClient, HttpJudgeConfig, JudgeItem
from goldsmith.retrievers.http import HttpRetrieverClient, HttpRetrieverConfig, stream_calls
from goldsmith.retrievers.ssrf import Policy

POLICY = Policy(allow_private=True)
N, CONCURRENCY = 12, 3


class SlowEndpoint(ThreadingHTTPServer):
    """Answers every kind's request after 50 ms, counting the most requests in flight."""

    daemon_threads = True

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.in_flight = self.peak = 0
        super().__init__(("127.0.0.1", 0), _Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/call"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: SlowEndpoint

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.server.lock:
            self.server.in_flight += 1
            self.server.peak = max(self.server.peak, self.server.in_flight)
        time.sleep(0.05)
        with self.server.lock:
            self.server.in_flight -= 1
        echo = str(body.get("query_id", ""))
        data = json.dumps(
            {"results": [{"id": echo}], "grade": 1, "reason": echo, "score": 0.5}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def endpoint():
    server = SlowEndpoint()
    yield server
    server.shutdown()
    server.server_close()


def _retriever(url: str) -> list[str]:
    config = HttpRetrieverConfig(
        url=url,
        body_template='{"query": "{query}", "query_id": "{query_id}"}',
        max_concurrency=CONCURRENCY,
    )
    with HttpRetrieverClient(config, policy=POLICY) as client:
        found = [o for batch in client.stream([(f"q{i}", "x") for i in range(N)], 5) for o in batch]
    assert all(not o.error for o in found)
    return sorted((o.hits[0].id for o in found), key=lambda q: int(q[1:]))


def _machine_judge(url: str) -> list[str]:
    config = HttpJudgeConfig(url=url, max_concurrency=CONCURRENCY)
    items = [JudgeItem(i, f"q{i}", "x", "c", "y") for i in range(N)]
    with HttpJudgeClient(config, policy=POLICY) as client:
        verdicts = client.judge_many(items)
    assert [v.key for v in verdicts] == list(range(N)) and all(v.grade == 1 for v in verdicts)
    return [v.reason for v in verdicts]


def _answer_judge(url: str) -> list[str]:
    config = AnswerJudgeConfig(url=url, max_concurrency=CONCURRENCY, batch_size=5)
    items = [AnswerItem(f"q{i}", "x", None, "open", ("f",), "r") for i in range(N)]
    with HttpAnswerJudge(config, policy=POLICY) as judge:
        batches = list(judge.stream(items))
        answers = judge.judge_many(items)
    assert all(len(b) <= 5 for b in batches) and sum(map(len, batches)) == N
    assert all(a.score == 0.5 for a in answers)
    return [a.reason for a in answers]


@pytest.mark.parametrize("call", [_retriever, _machine_judge, _answer_judge])
def test_each_kind_keeps_its_concurrency_and_answers_every_item(endpoint, call):
    assert call(endpoint.url) == [f"q{i}" for i in range(N)]
    assert endpoint.peak == CONCURRENCY


def test_a_bug_in_a_call_reaches_the_caller():
    def call(item: int) -> int:
        if item == 3:
            raise RuntimeError("a bug")
        return item

    with pytest.raises(RuntimeError, match="a bug"):
        list(stream_calls(call, range(10), 2))
