"""A scripted HTTP judge for the answer-judge tests: a real server on a free local port whose
answer to the n-th request is decided by a function of (n, body bytes, headers). It records
every request's headers and body."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, bytes]
Script = Callable[[int, bytes, dict[str, str]], Reply]


def json_reply(status: int, payload: Any) -> Reply:
    return status, json.dumps(payload).encode()


class ScriptedJudge(ThreadingHTTPServer):
    daemon_threads = True
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
                status, data = server.script(n, body, headers)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/judge"

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
