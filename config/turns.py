"""Reads take turns, writes go first: the middleware that keeps grade saves quick under load.

A web process runs Python on one core at a time (the GIL), however many threads it has. When
several page renders run in one process at once, each takes several times longer, and a grade
save arriving among them waits its turn at the GIL after each of its database calls: under the
quick-start benchmark (16 annotators at once, each opening a query and saving a grade, no pause)
saves took as long as the pages. Here the reads (GET and HEAD, after WhiteNoise has served the
static files) of one process run one at a time, while writes (POST, PUT, PATCH, DELETE) never
wait for them: a save shares the process with at most one render. Reads lose nothing in
throughput, since the process could not run two of them at once anyway, only their order.
A read that has waited MAX_WAIT seconds runs anyway, so a slow page can never stall the others
for long; the health check never waits.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

READS = frozenset({"GET", "HEAD"})
MAX_WAIT = 10.0  # seconds
NEVER_WAIT = frozenset({"/healthz"})


class ReadsTakeTurns:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.turn = threading.Lock()  # one per process: each process builds its own middleware

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method not in READS or request.path in NEVER_WAIT:
            return self.get_response(request)
        has_turn = self.turn.acquire(timeout=MAX_WAIT)
        try:
            return self.get_response(request)
        finally:
            if has_turn:
                self.turn.release()
