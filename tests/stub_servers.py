"""The stub HTTP servers of the tests and the benchmark, real servers on a free port of
127.0.0.1: a retriever (`StubRetriever`) and a scripted judge (`ScriptedJudge`).

The retriever: POST /search with ``{"query", "query_id", "top_k"}`` answers
``{"results": [{"id", "score"}]}`` from a fixed table (query id → ranked chunk ids). Latency,
a failure rate (half HTTP 500, half timeouts), queries that always fail, a required auth header
and redirects are configurable.
It counts calls and the highest number of requests it served at once.

The judge answers the n-th request as a function of (n, body bytes, headers) decides, and
records every request's headers and body.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256


def _send(handler: BaseHTTPRequestHandler, status: int, data: bytes) -> None:
    try:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the client gave up (timeout)


class StubRetriever:
    def __init__(
        self,
        answers: Mapping[str, Sequence[str]] | None = None,
        *,
        latency: float = 0.0,
        failure_rate: float = 0.0,
        hang_seconds: float = 3.0,
        always_fail: Sequence[str] = (),
        require_header: tuple[str, str] | None = None,
        seed: int = 0,
    ) -> None:
        self.answers = dict(answers or {})
        self.latency = latency
        self.failure_rate = failure_rate
        self.hang_seconds = hang_seconds
        self.always_fail = set(always_fail)
        self.require_header = require_header
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self.calls = 0
        self.failures = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.seen_headers: list[dict[str, str]] = []
        self.server: _Server | None = None
        self.thread: threading.Thread | None = None

    # -- control ------------------------------------------------------------------------------
    def start(self) -> StubRetriever:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real retrievers do
            disable_nagle_algorithm = True  # no 40 ms delayed-ACK stalls between writes

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                if parts.path == "/redirect":
                    target = parse_qs(parts.query).get("to", ["/"])[0]
                    self.send_response(302)
                    self.send_header("Location", target)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                stub._answer(self, parse_qs(parts.query).get("q", [""])[0], "", 10)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                parts = urlsplit(self.path)
                if parts.path == "/redirect":
                    target = parse_qs(parts.query).get("to", ["/"])[0]
                    self.send_response(307)
                    self.send_header("Location", target)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                stub._answer(
                    self,
                    str(body.get("query", "")),
                    str(body.get("query_id", "")),
                    int(body.get("top_k") or 10),
                )

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    @property
    def url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def config(self, **overrides: Any) -> dict[str, Any]:
        """An HTTP retriever configuration that calls this stub."""
        base = {
            "url": f"{self.url}/search",
            "method": "POST",
            "body_template": '{"query": "{query}", "query_id": "{query_id}", "top_k": "{top_k}"}',
            "results_path": "results",
            "id_field": "id",
            "score_field": "score",
            "timeout": 2.0,
            "max_concurrency": 4,
            "retries": 3,
            "backoff": 0.05,
        }
        base.update(overrides)
        return base

    # -- serving ------------------------------------------------------------------------------
    def _answer(self, handler: BaseHTTPRequestHandler, query: str, qid: str, top_k: int) -> None:
        with self._lock:
            self.calls += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self.seen_headers.append(dict(handler.headers.items()))
            roll = self._rng.random()
        try:
            if self.require_header is not None:
                name, value = self.require_header
                if handler.headers.get(name) != value:
                    self._send(handler, 401, {"error": "unauthorized"})
                    return
            if self.latency:
                time.sleep(self.latency)
            if qid in self.always_fail or roll < self.failure_rate:
                with self._lock:
                    self.failures += 1
                if qid not in self.always_fail and roll < self.failure_rate / 2:
                    time.sleep(self.hang_seconds)  # a timeout for the client
                self._send(handler, 500, {"error": "boom"})
                return
            ids = list(self.answers.get(qid, self.answers.get(query, [])))[:top_k]
            results = [{"id": c, "score": round(1.0 - i / 100, 4)} for i, c in enumerate(ids)]
            self._send(handler, 200, {"results": results})
        finally:
            with self._lock:
                self.in_flight -= 1

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, payload: Any) -> None:
        _send(handler, status, json.dumps(payload).encode())


Reply = tuple[int, bytes]
Script = Callable[[int, bytes, dict[str, str]], Reply]


def json_reply(status: int, payload: Any) -> Reply:
    return status, json.dumps(payload).encode()


class ScriptedJudge(_Server):
    request_queue_size = 64

    def __init__(self, script: Script) -> None:
        self.script = script
        self.calls = 0
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = dict(self.headers.items())
                with server.lock:
                    server.calls += 1
                    n = server.calls
                    server.requests.append((headers, body))
                _send(self, *server.script(n, body, headers))

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/judge"

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
