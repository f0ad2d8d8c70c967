"""Machine judges: programs that grade (query, chunk) candidates 0/1/2 with a reason, measured
against people like annotators (``goldsmith.agreement.kappa_interval``).

Pure module (no Django). Three pieces:

- :func:`keyword_overlap_grade`, the judge stub: grades by how many of the query's words the
  chunk holds. It needs no language model, so tests and the demo show the whole flow with it.
- :class:`HttpJudgeClient`, a judge behind an HTTP endpoint, called the way an HTTP retriever
  is (``goldsmith.retrievers.http``): the same address guard (SSRF policy, DNS pinning,
  redirects re-checked), auth header sent to the configured origin only, at most
  ``max_concurrency`` requests at a time, temporary failures retried with backoff. One request
  per candidate: the JSON body template's strings may hold ``{query}``, ``{query_id}``,
  ``{chunk}`` and ``{chunk_id}``; the grade and the reason are read from the response by dotted
  paths (``grade``, ``reason`` by default). The caller sends candidates in batches
  (``batch_size``), saving each batch's grades before it asks for the next.
- :func:`read_machine_grades`, a file of machine grades (JSONL or CSV: ``query_id`` or
  ``query``, ``chunk_id``, ``grade``, ``reason``), every problem reported with the file, line
  and field.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import IO, Any, Generic, Self, TypeVar

from goldsmith.intake.readers import CSV, JSONL, ReadError, _Fields, _rows, detect_format
from goldsmith.intake.readers import MAX_LINE_BYTES as _MAX_LINE_BYTES
from goldsmith.retrievers.http import (
    HttpRetrieverClient,
    HttpRetrieverConfig,
    PermanentFailure,
    call_all,
    dig,
    how,
    limit_problems,
    settings_of,
)
from goldsmith.retrievers.ssrf import Policy, Resolver, system_resolver

GRADES = (0, 1, 2)

# --------------------------------------------------------------------------------------------
# The stub: keyword overlap

_WORD = re.compile(r"\w+", re.UNICODE)
# Words that say nothing about a topic: left out of the overlap.
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "the",
        "this",
        "to",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
        "you",
        "your",
        "my",
        "me",
        "we",
        "our",
    ]
)
RELEVANT_SHARE = 0.5  # at least half the query's words in the chunk: grade 2
PARTIAL_SHARE = 0.2  # at least a fifth: grade 1


def content_words(text: str) -> list[str]:
    """The distinct lower-cased words of `text` that are not stopwords, in first-seen order."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word not in STOPWORDS and word not in seen:
            seen[word] = None
    return list(seen)


def keyword_overlap_grade(query: str, chunk: str) -> tuple[int, str]:
    """(grade, reason) by keyword overlap: the share s of the query's content words (distinct,
    lower-cased, stopwords left out) found among the chunk's. Grade 2 when s ≥ 0.5, 1 when
    s ≥ 0.2, else 0; a query without content words gets 0. The reason names the shared words.
    A stub for tests and the demo, not a judge to trust."""
    wanted = content_words(query)
    have = set(content_words(chunk))
    shared = [w for w in wanted if w in have]
    if not wanted:
        return 0, "the query has no content words"
    share = len(shared) / len(wanted)
    grade = 2 if share >= RELEVANT_SHARE else 1 if share >= PARTIAL_SHARE else 0
    if not shared:
        return grade, f"none of the {len(wanted)} query words is in the chunk"
    return grade, f"{len(shared)} of {len(wanted)} query words in the chunk: {', '.join(shared)}"


class JsonStubServer(ThreadingHTTPServer):
    """A stub judge over HTTP, the part the keyword judge and the answer judge share: POST (or
    PUT) a JSON body to any path, get the JSON :meth:`answer` makes of it after ``delay_ms``
    (HTTP 400 with the error when it raises ValueError). With ``token``, requests must carry
    ``Authorization: Bearer <token>`` (HTTP 401 otherwise). Counts the requests it answered in
    ``calls`` and the most in flight at once in ``peak``; keeps the bodies in ``bodies`` when
    ``keep_bodies``."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(
        self,
        address: tuple[str, int],
        *,
        token: str | None = None,
        delay_ms: float = 0.0,
        keep_bodies: bool = False,
    ) -> None:
        self.token = token
        self.delay = max(0.0, delay_ms) / 1000.0
        self.keep_bodies = keep_bodies
        self.calls = 0
        self.peak = 0
        self._in_flight = 0
        self.bodies: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        super().__init__(address, _JsonStubHandler)

    def answer(self, body: bytes) -> tuple[Any, dict[str, Any]]:
        """(the decoded request, the reply) for a request's body; ValueError when malformed."""
        raise NotImplementedError

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/judge"

    def start(self) -> Self:
        threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _JsonStubHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # no 40 ms delayed-ACK stall between headers and body
    server: JsonStubServer

    def log_message(self, *args: Any) -> None:  # quiet: bodies are not logged
        pass

    def _send(self, code: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        stub = self.server
        with stub.lock:
            stub._in_flight += 1
            stub.peak = max(stub.peak, stub._in_flight)
        try:
            if stub.delay:
                time.sleep(stub.delay)
            token = stub.token
            if token is not None and self.headers.get("Authorization") != f"Bearer {token}":
                self._send(401, {"error": "unauthorized"})
                return
            try:
                payload, reply = stub.answer(body)
            except ValueError as error:
                self._send(400, {"error": str(error)})
                return
            with stub.lock:
                stub.calls += 1
                if stub.keep_bodies:
                    stub.bodies.append(payload)
            self._send(200, reply)
        finally:
            with stub.lock:
                stub._in_flight -= 1

    do_PUT = do_POST


class KeywordJudgeServer(JsonStubServer):
    """The keyword stub as an HTTP judge (``goldsmith judge-stub``; tests run it too): POST a
    JSON object holding ``query`` and ``chunk`` to any path, get ``{"grade", "reason"}``
    (:class:`JsonStubServer` says the rest); keeps the bodies unless told not to."""

    def __init__(
        self, address: tuple[str, int], *, token: str | None = None, keep_bodies: bool = True
    ) -> None:
        super().__init__(address, token=token, keep_bodies=keep_bodies)

    def answer(self, body: bytes) -> tuple[Any, dict[str, Any]]:
        try:
            payload = json.loads(body or b"{}")
            query, chunk = str(payload["query"]), str(payload["chunk"])
        except (ValueError, KeyError, TypeError):
            raise ValueError("send a JSON object with query and chunk") from None
        grade, reason = keyword_overlap_grade(query, chunk)
        return payload, {"grade": grade, "reason": reason}


# --------------------------------------------------------------------------------------------
# A judge behind an HTTP endpoint


@dataclass(frozen=True, kw_only=True)
class JudgeCall:
    """How an HTTP judge is called, the settings machine judges and answer judges share: the
    web forms, the API and the checks all read their bounds and defaults from
    :data:`JUDGE_SETTINGS`. Holds no secret: the auth header travels separately."""

    url: str
    body_template: str
    method: str = "POST"
    timeout: float = field(default=30.0, metadata=how("timeout", minimum=0.1, maximum=300))
    max_concurrency: int = field(
        default=4, metadata=how("max concurrency", "requests at once", minimum=1, maximum=64)
    )
    retries: int = field(
        default=3,
        metadata=how(
            "retries", "after a timeout, HTTP 429 or a server error", minimum=0, maximum=10
        ),
    )
    backoff: float = field(default=0.2, metadata=how("backoff", minimum=0, maximum=60))
    batch_size: int = field(
        default=50,
        metadata=how("batch size", "handed back and saved together", minimum=1, maximum=1000),
    )
    headers: Mapping[str, str] = field(default_factory=dict)

    def call_problems(
        self, *, sent: str, placeholders: Sequence[str], score_path: tuple[str, str]
    ) -> list[str]:
        """What is wrong with how the judge is called (method, URL, JSON body template holding
        ``placeholders``, the path of its answer and :data:`JUDGE_SETTINGS`' bounds); `sent`
        says what a request carries, `score_path` is (its name, its value)."""
        out: list[str] = []
        url, template = self.url, self.body_template
        if self.method.upper() not in ("POST", "PUT"):
            out.append(f"method must be POST or PUT (a judge is sent {sent})")
        if not url.lower().startswith(("http://", "https://")):
            out.append("the URL must start with http:// or https://")
        try:
            json.loads(template)
        except ValueError as error:
            out.append(f"the body template is not JSON: {error}")
        for needed in placeholders:
            if needed not in template:
                out.append(f"the body template must contain {needed}")
        if not score_path[1].strip():
            out.append(f"the {score_path[0]} is required")
        return out + limit_problems(self, JUDGE_SETTINGS.values())

    def snapshot(self) -> dict[str, Any]:
        """The settings as a JSON-ready dictionary (no secret is in them)."""
        return {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in asdict(self).items()}

    def transport(self) -> HttpRetrieverConfig:
        """The retriever client's settings that carry this judge's requests."""
        return HttpRetrieverConfig(
            url=self.url,
            method="PUT" if self.method.upper() == "PUT" else "POST",
            body_template=self.body_template,
            timeout=self.timeout,
            max_concurrency=self.max_concurrency,
            retries=self.retries,
            backoff=self.backoff,
            headers=dict(self.headers),
        )


JUDGE_SETTINGS = {s.name: s for s in settings_of(JudgeCall)}  # name → its setting


@dataclass(frozen=True)
class HttpJudgeConfig(JudgeCall):
    """How to call one machine judge."""

    url: str
    body_template: str = (
        '{"query": "{query}", "query_id": "{query_id}", "chunk": "{chunk}", '
        '"chunk_id": "{chunk_id}"}'
    )
    grade_path: str = "grade"
    reason_path: str = "reason"

    def problems(self) -> list[str]:
        """What is wrong with this configuration (empty when it is usable)."""
        return self.call_problems(
            sent="the chunk's text", placeholders=("{query}", "{chunk}"),
            score_path=("grade path", self.grade_path),
        )  # fmt: skip


@dataclass(frozen=True)
class JudgeItem:
    """One candidate to grade: ``key`` is the caller's (e.g. the candidate's row id)."""

    key: int
    query_id: str
    query: str
    chunk_id: str
    chunk: str


@dataclass(frozen=True)
class Verdict:
    """A judge's answer for one item: its grade and reason, or None and the error."""

    key: int
    grade: int | None
    reason: str = ""
    attempts: int = 0
    error: str = ""


def render_item(value: Any, item: JudgeItem) -> Any:
    """Fill the placeholders of a parsed JSON template with one item's values."""
    if isinstance(value, str):
        return (
            value.replace("{query_id}", item.query_id)
            .replace("{chunk_id}", item.chunk_id)
            .replace("{query}", item.query)
            .replace("{chunk}", item.chunk)
        )
    if isinstance(value, list):
        return [render_item(v, item) for v in value]
    if isinstance(value, dict):
        return {k: render_item(v, item) for k, v in value.items()}
    return value


def parse_verdict(payload: Any, config: HttpJudgeConfig) -> tuple[int, str]:
    """(grade, reason) from a decoded response; PermanentFailure when the grade is missing or
    not 0, 1 or 2 (an integer, or a string holding one)."""
    raw = dig(payload, config.grade_path)
    if isinstance(raw, str) and raw.strip() in ("0", "1", "2"):
        raw = int(raw.strip())
    if isinstance(raw, bool) or not isinstance(raw, int | float) or raw not in GRADES:
        raise PermanentFailure(f"the response's {config.grade_path!r} is not a grade 0, 1 or 2")
    reason = dig(payload, config.reason_path) if config.reason_path else ""
    text = reason if isinstance(reason, str) else "" if reason is None else json.dumps(reason)
    return int(raw), text[:2000]


Config = TypeVar("Config", bound=JudgeCall)


class JudgeClient(Generic[Config]):
    """What the clients of both HTTP judges share: the retriever client that carries their
    requests (the same address guard and DNS pinning, the auth header to the configured origin
    only, retries) and the parsed body template. Thread-safe; use as a context manager."""

    def __init__(
        self,
        config: Config,
        *,
        policy: Policy,
        auth_header: tuple[str, str] | None = None,
        resolver: Resolver = system_resolver,
    ) -> None:
        self.config = config
        self._client = HttpRetrieverClient(
            config.transport(), policy=policy, auth_header=auth_header, resolver=resolver
        )
        self._template = json.loads(config.body_template)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    @property
    def concurrency(self) -> int:
        return self._client.concurrency

    def __repr__(self) -> str:  # never show the auth header
        return f"{type(self).__name__}({self.config.url!r})"


class HttpJudgeClient(JudgeClient[HttpJudgeConfig]):
    """Grades items through one machine judge endpoint."""

    def judge(self, item: JudgeItem) -> Verdict:
        answer = self._client.call(
            self.config.url,
            render_item(self._template, item),
            lambda payload: parse_verdict(payload, self.config),
        )
        if answer.value is None:
            return Verdict(item.key, None, attempts=answer.attempts, error=answer.error)
        grade, reason = answer.value
        return Verdict(item.key, grade, reason, answer.attempts)

    def judge_many(self, items: Sequence[JudgeItem]) -> list[Verdict]:
        """Every item's verdict, in the items' order, at most ``max_concurrency`` at a time."""
        return call_all(self.judge, items, self.concurrency)


# --------------------------------------------------------------------------------------------
# A file of machine grades


@dataclass(frozen=True)
class MachineGradeRow:
    """One line of a machine-grades file: the query by id (``query_id``) or by its text
    (``query``), the chunk by id, the grade and the judge's reason."""

    line: int
    query_id: str | None
    query: str | None
    chunk_id: str
    grade: int
    reason: str


MACHINE_GRADE_FIELDS = {"query_id", "query", "chunk_id", "grade", "reason"}


def read_machine_grades(
    stream: IO[bytes], filename: str, fmt: str | None = None, max_line_bytes: int = _MAX_LINE_BYTES
) -> Iterator[MachineGradeRow]:
    """Rows of a JSONL or CSV file of machine grades (format from the file name unless given).
    Raises ReadError (``FILE:LINE: field 'grade' …``) at the first bad line; an unknown field
    is refused, so that a misspelt column is not silently dropped."""
    fmt = fmt or detect_format(filename, (JSONL, CSV))
    for line, row in _rows(stream, filename, fmt, max_line_bytes):
        f = _Fields(filename, line, row, fmt == CSV)
        unknown = sorted(set(row) - MACHINE_GRADE_FIELDS)
        if unknown:
            raise f.fail(
                f"unknown field {unknown[0]!r} (use query_id or query, chunk_id, grade, reason)"
            )
        query_id = query = None
        if row.get("query_id") not in (None, ""):
            query_id = f.identifier("query_id")
        elif row.get("query") not in (None, ""):
            query = f.text("query", required=True).strip()
        else:
            raise f.fail("missing field 'query_id' (or 'query', the query's text)")
        chunk_id = f.identifier("chunk_id")
        raw = row.get("grade")
        if raw is None or raw == "":
            raise f.fail("missing field 'grade'")
        if isinstance(raw, str) and raw.strip() in ("0", "1", "2"):
            raw = int(raw.strip())
        if isinstance(raw, bool) or raw not in GRADES or not isinstance(raw, int | float):
            raise f.fail(f"field 'grade' must be 0, 1 or 2, got {str(raw)[:40]!r}")
        reason = f.text("reason", required=False)
        yield MachineGradeRow(line, query_id, query, chunk_id, int(raw), reason[:2000])


__all__ = [
    "GRADES",
    "HttpJudgeClient",
    "HttpJudgeConfig",
    "JudgeItem",
    "MachineGradeRow",
    "ReadError",
    "Verdict",
    "keyword_overlap_grade",
    "read_machine_grades",
]
