"""Calling a team's retriever over HTTP: request templates, response extraction, retries.

Pure module (urllib3 and the standard library; no Django). One :class:`HttpRetrieverClient`
serves one batch: it checks the URL against the SSRF policy once per host and then connects to
the checked address only (DNS pinning), follows at most five redirects re-checking each, sends
the auth header to the configured origin only, runs at most ``concurrency`` requests at a time
and retries temporary failures (HTTP 429 and 5xx, timeouts, connection errors) with exponential
backoff and jitter. A query that still fails is reported with its error, never raised.

The request body is a JSON template whose string values may hold ``{query}``, ``{query_id}``
and ``{top_k}``; a value that is exactly ``"{top_k}"`` becomes a number. The URL may hold the
same placeholders (URL-encoded). The ranked list is found in the JSON response by a dotted
path (``data.hits``; empty for the top level; integers index lists), and each item's chunk id,
score, document id and text by dotted paths inside the item. A RAG pipeline's other stages
are read, when their paths are set, from the same response: the first-stage candidates (items
as the results'), the contexts given to the model (items with an id and a text) and the
generated response (a string).
"""

from __future__ import annotations

import json
import queue
import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from typing import Any, Generic, TypeVar, get_type_hints
from urllib.parse import quote, urljoin

import orjson
import urllib3
from urllib3.exceptions import HTTPError, NewConnectionError, TimeoutError

from goldsmith.retrievers.ssrf import (
    Policy,
    Resolver,
    Target,
    UnsafeURL,
    check_url,
    system_resolver,
)

PLACEHOLDERS = ("{query}", "{query_id}", "{top_k}")
MAX_REDIRECTS = 5
MAX_BACKOFF = 5.0
METHODS = ("GET", "POST", "PUT")


@dataclass(frozen=True)
class HttpSetting:
    """One setting of :class:`HttpRetrieverConfig` as a person gives it. The retriever page's
    form, the API's input and the ``add_retriever`` command are all made from
    :data:`HTTP_SETTINGS`, so that none keeps a list of its own.

    ``name``, ``value_type`` (str, int, float, or dict for the headers) and ``default`` (None:
    required) come from the dataclass field; the rest is written beside it."""

    label: str
    help: str = ""
    minimum: float | None = None
    maximum: float | None = None
    unit: str = ""
    choices: tuple[str, ...] = ()
    lines: bool = False  # a text of several lines (a JSON template, headers)
    name: str = ""
    value_type: type = str
    default: Any = None


def how(label: str, help: str = "", **more: Any) -> dict[str, HttpSetting]:
    return {"setting": HttpSetting(label, help, **more)}


@dataclass(frozen=True)
class HttpRetrieverConfig:
    """How to call one retriever. Holds no secret: the auth header travels separately."""

    url: str = field(metadata=how("URL", "may hold {query}, {query_id}, {top_k}"))
    method: str = field(default="POST", metadata=how("method", choices=METHODS))
    body_template: str = field(
        default='{"query": "{query}", "top_k": "{top_k}"}',
        metadata=how(
            "body template",
            'JSON whose strings may hold {query}, {query_id}, {top_k} ("{top_k}" alone '
            "becomes a number); not sent with GET",
            lines=True,
        ),
    )
    results_path: str = field(
        default="results",
        metadata=how(
            "results path", "dotted path of the ranked list in the response ('' for the top level)"
        ),
    )
    id_field: str = field(
        default="id", metadata=how("chunk id field", "in each result (dotted path)")
    )
    score_field: str = field(
        default="score", metadata=how("score field", "in each result (dotted path; optional)")
    )
    doc_id_field: str = field(
        default="", metadata=how("document id field", "in each result (dotted path; optional)")
    )
    text_field: str = field(
        default="", metadata=how("text field", "in each result (dotted path; optional)")
    )
    candidates_path: str = field(
        default="",
        metadata=how(
            "candidates path",
            "dotted path of the first-stage list before reranking (optional; its items have "
            "the fields of the results)",
        ),
    )
    contexts_path: str = field(
        default="",
        metadata=how(
            "contexts path",
            "dotted path of the contexts given to the model (optional; a list of items with "
            "an id and a text)",
        ),
    )
    context_id_field: str = field(
        default="id", metadata=how("context id field", "in each context (dotted path)")
    )
    context_text_field: str = field(
        default="text", metadata=how("context text field", "in each context (dotted path)")
    )
    response_path: str = field(
        default="",
        metadata=how("response path", "dotted path of the generated answer (optional; a string)"),
    )
    timeout: float = field(
        default=10.0,
        metadata=how("timeout", "per request", minimum=0.1, maximum=300, unit="seconds"),
    )
    max_concurrency: int = field(
        default=4,
        metadata=how("maximum concurrency", "requests at once", minimum=1, maximum=256),
    )
    retries: int = field(
        default=3,
        metadata=how(
            "retries",
            "of a request that failed for a while (429, 5xx, timeout)",
            minimum=0,
            maximum=10,
        ),
    )
    backoff: float = field(
        default=0.2,
        metadata=how(
            "backoff",
            "the first wait before a retry, doubled at each retry",
            minimum=0,
            maximum=60,
            unit="seconds",
        ),
    )
    headers: Mapping[str, str] = field(
        default_factory=dict,
        metadata=how(
            "headers",
            "more request headers, one per line as Name: value (a credential goes in the auth "
            "header, stored encrypted)",
            lines=True,
        ),
    )

    def problems(self) -> list[str]:
        """What is wrong with this configuration (empty when it is usable)."""
        out: list[str] = []
        if self.method.upper() not in METHODS:
            out.append(f"method must be one of {', '.join(METHODS)}")
        if not self.url.lower().startswith(("http://", "https://")):
            out.append("the URL must start with http:// or https://")
        if self.method.upper() != "GET":
            try:
                json.loads(self.body_template)
            except ValueError as error:
                out.append(f"the body template is not JSON: {error}")
            if "{query}" not in self.body_template and "{query}" not in self.url:
                out.append("the body template or URL must contain {query}")
        elif "{query}" not in self.url:
            out.append("a GET URL must contain {query}")
        if not self.id_field.strip():
            out.append("the chunk id field is required")
        if self.contexts_path and not (
            self.context_id_field.strip() and self.context_text_field.strip()
        ):
            out.append("with a contexts path, the context id and text fields are required")
        return out + limit_problems(self, HTTP_SETTINGS)

    def snapshot(self) -> dict[str, Any]:
        return {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in asdict(self).items()}


def settings_of(config: type) -> tuple[HttpSetting, ...]:
    """The settings of a configuration dataclass: each field written with :func:`_how`
    (others are left out), its name, type and default read from the field."""
    hints = get_type_hints(config)
    out = []
    for f in fields(config):
        if "setting" not in f.metadata:
            continue
        hint = hints[f.name]
        default = (
            f.default
            if f.default is not MISSING
            else f.default_factory()
            if f.default_factory is not MISSING
            else None
        )
        out.append(
            replace(
                f.metadata["setting"],
                name=f.name,
                value_type=hint if hint in (str, int, float) else dict,
                default=default,
            )
        )
    return tuple(out)


def limit_problems(config: Any, settings: Iterable[HttpSetting]) -> list[str]:
    """The settings of `config` outside their bounds, one sentence each."""
    out: list[str] = []
    for s in settings:
        low, high = s.minimum, s.maximum
        if low is not None and high is not None and not low <= getattr(config, s.name) <= high:
            unit = f" {s.unit}" if s.unit else ""
            out.append(f"{s.label} must be between {low:g} and {high:g}{unit}")
    return out


HTTP_SETTINGS = settings_of(HttpRetrieverConfig)


@dataclass(frozen=True)
class Hit:
    id: str
    score: float | None = None
    doc_id: str | None = None
    text: str | None = None


@dataclass(frozen=True)
class Stages:
    """What a RAG pipeline returned besides its final list: the first-stage ``candidates``,
    the ``contexts`` given to the model as (id, text) pairs and the ``response``; None where
    the retriever gave none (or is not configured to)."""

    candidates: tuple[Hit, ...] | None = None
    contexts: tuple[tuple[str, str], ...] | None = None
    response: str | None = None


@dataclass(frozen=True)
class Outcome:
    """The answer for one query: its ranked hits (and the other stages), or an error after
    ``attempts`` tries. ``latency_ms`` is the duration of the last attempt."""

    query_id: str
    hits: tuple[Hit, ...] = ()
    latency_ms: float | None = None
    attempts: int = 0
    error: str = ""
    stages: Stages = Stages()


T = TypeVar("T")


@dataclass(frozen=True)
class Answer(Generic[T]):
    """What :meth:`HttpRetrieverClient.call` got: the parsed value, or None and the error."""

    value: T | None
    latency_ms: float
    attempts: int
    error: str = ""


class TemporaryFailure(Exception):
    """Worth retrying: 429/5xx, timeout, connection error."""


class PermanentFailure(Exception):
    """Not worth retrying: a refused URL, 4xx, a response without the expected shape."""


# --------------------------------------------------------------------------------------------
# Templates and extraction


def render(value: Any, query: str, query_id: str, top_k: int) -> Any:
    """Fill the placeholders of a parsed JSON template."""
    if isinstance(value, str):
        if value == "{top_k}":
            return top_k
        return (
            value.replace("{query_id}", query_id)
            .replace("{top_k}", str(top_k))
            .replace("{query}", query)
        )
    if isinstance(value, list):
        return [render(v, query, query_id, top_k) for v in value]
    if isinstance(value, dict):
        return {k: render(v, query, query_id, top_k) for k, v in value.items()}
    return value


def render_url(url: str, query: str, query_id: str, top_k: int) -> str:
    return (
        url.replace("{query_id}", quote(query_id, safe=""))
        .replace("{top_k}", str(top_k))
        .replace("{query}", quote(query, safe=""))
    )


_MISSING = object()


def dig(value: Any, path: str) -> Any:
    """Follow a dotted path (``a.b.0.c``); an empty path is the value itself."""
    if not path:
        return value
    for part in path.split("."):
        if isinstance(value, dict):
            if part not in value:
                return _MISSING
            value = value[part]
        elif isinstance(value, list) and part.lstrip("-").isdigit():
            index = int(part)
            if not -len(value) <= index < len(value):
                return _MISSING
            value = value[index]
        else:
            return _MISSING
    return value


def _opt_str(value: Any) -> str | None:
    if value is _MISSING or value is None:
        return None
    return str(value)


def extract_hits(
    payload: Any, config: HttpRetrieverConfig, path: str | None = None, what: str = "result"
) -> tuple[Hit, ...]:
    """The ranked hits of a decoded response (at ``path``, by default the results path);
    raises PermanentFailure on an unexpected shape."""
    path = config.results_path if path is None else path
    items = dig(payload, path)
    if items is _MISSING:
        raise PermanentFailure(f"the response has no {path!r}")
    if not isinstance(items, list):
        raise PermanentFailure(f"{path or 'the response'!r} is not a list")
    hits: list[Hit] = []
    for i, item in enumerate(items):
        raw_id = item if isinstance(item, str | int) and not isinstance(item, bool) else None
        if isinstance(item, dict):
            raw_id = dig(item, config.id_field)
        if raw_id is _MISSING or raw_id is None or isinstance(raw_id, bool | dict | list):
            raise PermanentFailure(f"{what} {i} has no usable {config.id_field!r}")
        score: float | None = None
        if isinstance(item, dict) and config.score_field:
            raw_score = dig(item, config.score_field)
            if raw_score is not _MISSING and raw_score is not None:
                try:
                    score = float(raw_score)
                except (TypeError, ValueError):
                    raise PermanentFailure(f"{what} {i} has a non-numeric score") from None
        doc_id = text = None
        if isinstance(item, dict):
            doc_id = _opt_str(dig(item, config.doc_id_field)) if config.doc_id_field else None
            text = _opt_str(dig(item, config.text_field)) if config.text_field else None
        hits.append(Hit(id=str(raw_id), score=score, doc_id=doc_id, text=text))
    return tuple(hits)


def extract_stages(payload: Any, config: HttpRetrieverConfig) -> Stages:
    """The stages a decoded response carries at the configured paths (each optional: a path
    left empty is not read; a configured path the response lacks, or whose value is null,
    gives None). A value of the wrong shape raises PermanentFailure naming the path."""
    candidates: tuple[Hit, ...] | None = None
    if config.candidates_path:
        value = dig(payload, config.candidates_path)
        if value is not _MISSING and value is not None:
            candidates = extract_hits(payload, config, config.candidates_path, "candidate")
    contexts: tuple[tuple[str, str], ...] | None = None
    if config.contexts_path:
        value = dig(payload, config.contexts_path)
        if value is not _MISSING and value is not None:
            if not isinstance(value, list):
                raise PermanentFailure(f"{config.contexts_path!r} is not a list")
            found: list[tuple[str, str]] = []
            for i, item in enumerate(value):
                if not isinstance(item, dict):
                    raise PermanentFailure(f"context {i} is not an object")
                raw_id = dig(item, config.context_id_field)
                if raw_id is _MISSING or raw_id is None or isinstance(raw_id, bool | dict | list):
                    raise PermanentFailure(f"context {i} has no usable {config.context_id_field!r}")
                text = dig(item, config.context_text_field)
                if not isinstance(text, str):
                    raise PermanentFailure(
                        f"context {i} has no text string at {config.context_text_field!r}"
                    )
                found.append((str(raw_id), text))
            contexts = tuple(found)
    response: str | None = None
    if config.response_path:
        value = dig(payload, config.response_path)
        if value is not _MISSING and value is not None:
            if not isinstance(value, str):
                raise PermanentFailure(f"{config.response_path!r} is not a string")
            response = value
    return Stages(candidates, contexts, response)


def extract_outcome(payload: Any, config: HttpRetrieverConfig) -> tuple[tuple[Hit, ...], Stages]:
    """The ranked hits and the other stages of a decoded response."""
    return extract_hits(payload, config), extract_stages(payload, config)


# --------------------------------------------------------------------------------------------
# Transport: pinned connection pools

REDIRECTS = frozenset({301, 302, 303, 307, 308})


def _ca_bundle() -> str | None:
    try:
        import certifi
    except ImportError:  # the system's store
        return None
    return certifi.where()


def connection_pool(
    target: Target, timeout: urllib3.Timeout, *, maxsize: int = 1
) -> urllib3.HTTPConnectionPool:
    """A pool of connections to the checked address of `target` only; for HTTPS the TLS server
    name and the certificate check use the host name. No retries, no redirects: the caller
    does both (redirects re-checked)."""
    common: dict[str, Any] = {
        "port": target.port,
        "timeout": timeout,
        "maxsize": maxsize,
        "block": True,
        "retries": False,
    }
    if target.scheme == "https":
        return urllib3.HTTPSConnectionPool(
            str(target.address),
            server_hostname=target.host,
            assert_hostname=target.host,
            cert_reqs="CERT_REQUIRED",
            ca_certs=_ca_bundle(),
            **common,
        )
    return urllib3.HTTPConnectionPool(str(target.address), **common)


def send(
    pool: urllib3.HTTPConnectionPool,
    method: str,
    path: str,
    data: bytes | None,
    headers: dict[str, str],
) -> urllib3.BaseHTTPResponse:
    """One request on a pinned pool; transport problems become TemporaryFailure."""
    try:
        return pool.urlopen(
            method,
            path,
            body=data,
            headers=headers,
            redirect=False,
            retries=False,
            assert_same_host=False,
        )
    except NewConnectionError:  # a subclass of ConnectTimeoutError, but not a timeout
        raise TemporaryFailure("connection error: NewConnectionError") from None
    except TimeoutError:
        raise TemporaryFailure(f"timeout after {pool.timeout.read_timeout:g}s") from None
    except HTTPError as error:
        raise TemporaryFailure(f"connection error: {type(error).__name__}") from None


def decode_json(data: bytes) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        try:  # what orjson refuses and Python's json takes (NaN, huge integers)
            return json.loads(data)
        except ValueError:
            raise PermanentFailure("the response is not JSON") from None


# --------------------------------------------------------------------------------------------
# The client


class HttpRetrieverClient:
    """Calls one retriever; thread-safe. Use as a context manager or call :meth:`close`."""

    def __init__(
        self,
        config: HttpRetrieverConfig,
        *,
        policy: Policy,
        auth_header: tuple[str, str] | None = None,
        resolver: Resolver = system_resolver,
        sleep: Callable[[float], None] = time.sleep,
        concurrency: int | None = None,
    ) -> None:
        self.config = config
        self.policy = policy
        self._auth = auth_header
        self._resolver = resolver
        self._sleep = sleep
        self.concurrency = max(1, concurrency or config.max_concurrency)
        self._template = json.loads(config.body_template) if config.method != "GET" else None
        self._targets: dict[tuple[str, str, int], Target] = {}
        self._lock = threading.Lock()
        self._origin: tuple[str, str, int] | None = None
        # One connection pool per checked address (and TLS server name), at most `concurrency`
        # connections each. urllib3 reads no proxy from the environment, which would bypass
        # the address pinning, and costs half the CPU of httpx per call.
        self._pools: dict[tuple[str, str, int, str], urllib3.HTTPConnectionPool] = {}
        self._timeout = urllib3.Timeout(connect=config.timeout, read=config.timeout)

    def __enter__(self) -> HttpRetrieverClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            pool.close()

    def _pool(self, target: Target) -> urllib3.HTTPConnectionPool:
        key = (target.scheme, str(target.address), target.port, target.host)
        with self._lock:
            pool = self._pools.get(key)
            if pool is None:
                pool = self._pools[key] = connection_pool(
                    target, self._timeout, maxsize=self.concurrency
                )
        return pool

    def __repr__(self) -> str:  # never show the auth header
        return f"HttpRetrieverClient({self.config.url!r})"

    def _target(self, url: str) -> Target:
        """Check `url`; each host is resolved and checked once per client (then pinned)."""
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        key = (parts.scheme.lower(), (parts.hostname or "").lower(), parts.port or 0)
        with self._lock:
            cached = self._targets.get(key)
        if cached is None:
            cached = check_url(url, self.policy, self._resolver)
            with self._lock:
                self._targets[key] = cached
        path = parts.path or "/"
        if parts.query:
            path = f"{path}?{parts.query}"
        return Target(cached.scheme, cached.host, cached.port, cached.address, path)

    def _send_once(self, url: str, body: Any) -> Any:
        """One attempt, following redirects (each re-checked); the decoded JSON payload."""
        method = self.config.method.upper()
        first: tuple[str, str, int] | None = None
        for _hop in range(MAX_REDIRECTS + 1):
            try:
                target = self._target(url)
            except UnsafeURL as error:
                raise PermanentFailure(str(error)) from None
            first = first or target.origin
            headers = {"Host": target.host_header, "Accept": "application/json"}
            headers.update(self.config.headers)
            if self._auth is not None and target.origin == first:
                headers[self._auth[0]] = self._auth[1]  # never to another origin
            data = None
            if method != "GET" and body is not None:
                data = orjson.dumps(body)
                headers["Content-Type"] = "application/json"
            response = send(self._pool(target), method, target.path, data, headers)
            if response.status in REDIRECTS:
                location = response.headers.get("location", "")
                if not location:
                    raise PermanentFailure(f"HTTP {response.status} without Location")
                url = urljoin(url, location)
                if response.status == 303 or (response.status in (301, 302) and method != "GET"):
                    method, body = "GET", None
                continue
            if response.status == 429 or response.status >= 500:
                raise TemporaryFailure(f"HTTP {response.status}")
            if response.status >= 400:
                raise PermanentFailure(f"HTTP {response.status}")
            return decode_json(response.data)
        raise PermanentFailure(f"more than {MAX_REDIRECTS} redirects")

    def call(self, url: str, body: Any, parse: Callable[[Any], T]) -> Answer[T]:
        """Send one request (``body`` already rendered; None for GET) and ``parse`` its decoded
        JSON, retrying temporary failures with backoff; a permanent failure, or a temporary
        one after the last retry, is returned as the answer's error, never raised. ``parse``
        raises :class:`PermanentFailure` on a response of the wrong shape. Retrievers and
        machine judges (``goldsmith.judges``) both call through here."""
        attempts = 0
        while True:
            attempts += 1
            started = time.perf_counter()
            try:
                value = parse(self._send_once(url, body))
                return Answer(value, (time.perf_counter() - started) * 1000.0, attempts)
            except PermanentFailure as error:
                latency = (time.perf_counter() - started) * 1000.0
                return Answer(None, latency, attempts, str(error))
            except TemporaryFailure as error:
                latency = (time.perf_counter() - started) * 1000.0
                if attempts > self.config.retries:
                    return Answer(None, latency, attempts, f"{error} ({attempts} tries)")
                delay = min(MAX_BACKOFF, self.config.backoff * 2 ** (attempts - 1))
                self._sleep(delay * random.uniform(0.5, 1.5))

    def search(self, query_id: str, query: str, top_k: int) -> Outcome:
        """Ask for the top ``top_k`` of one query, retrying temporary failures."""
        url = render_url(self.config.url, query, query_id, top_k)
        body = (
            render(self._template, query, query_id, top_k) if self._template is not None else None
        )
        answer = self.call(url, body, lambda payload: extract_outcome(payload, self.config))
        hits, stages = answer.value or ((), Stages())
        return Outcome(query_id, hits, answer.latency_ms, answer.attempts, answer.error, stages)

    def stream(
        self, items: Iterable[tuple[str, str]], top_k: int, *, tick: float = 1.0
    ) -> Iterator[list[Outcome]]:
        """Search every (query_id, query) with at most ``concurrency`` in flight; yields the
        outcomes finished so far at least every ``tick`` seconds (possibly an empty list), so
        that the caller can save them, renew its lease or stop. Stopping (closing the
        generator) cancels the queries not yet started."""
        return stream_calls(
            lambda item: self.search(item[0], item[1], top_k),
            items,
            self.concurrency,
            tick=tick,
            name="retriever",
        )


Item = TypeVar("Item")


def stream_calls(
    call: Callable[[Item], T],
    items: Iterable[Item],
    concurrency: int,
    *,
    tick: float = 1.0,
    batch_size: int | None = None,
    name: str = "endpoint",
) -> Iterator[list[T]]:
    """``call`` every item with at most ``concurrency`` calls in flight: the one concurrency
    loop of every endpoint (retrievers, machine judges, answer judges). Yields the results in
    the order they finished: without ``batch_size``, as soon as some are finished; with it,
    in batches of ``batch_size`` (the last may be shorter); in either case what is finished
    so far at least every ``tick`` seconds (possibly an empty list), so that the caller can
    save them, renew a lease or stop. Closing the generator stops the items not yet started;
    an exception raised by ``call`` (a bug, not a failed request) is raised to the caller."""
    # `concurrency` threads take the next item from one shared iterator and put results on
    # one queue (futures and `wait` over them cost as much CPU as the HTTP call).
    source = iter(items)
    source_lock = threading.Lock()
    results: queue.SimpleQueue[tuple[T] | BaseException | None] = queue.SimpleQueue()
    stop = threading.Event()

    def work() -> None:
        try:
            while not stop.is_set():
                with source_lock:
                    nxt = next(source, _MISSING)
                if nxt is _MISSING:
                    break
                results.put((call(nxt),))  # type: ignore[arg-type]
        except BaseException as error:
            results.put(error)
        finally:
            results.put(None)  # this thread is done

    threads = [
        threading.Thread(target=work, name=f"{name}-{i}", daemon=True)
        for i in range(max(1, concurrency))
    ]
    for thread in threads:
        thread.start()
    running = len(threads)
    full = batch_size or 0
    batch: list[T] = []
    try:
        deadline = time.monotonic() + tick
        while running:
            try:
                got = results.get(timeout=max(0.0, deadline - time.monotonic()))
                while True:
                    if got is None:
                        running -= 1
                    elif isinstance(got, BaseException):
                        raise got
                    else:
                        batch.append(got[0])
                    if full and len(batch) >= full:
                        break
                    got = results.get_nowait()
            except queue.Empty:
                pass
            if (
                (batch and not full)
                or (full and len(batch) >= full)
                or (time.monotonic() >= deadline)
            ):
                out, batch = batch, []
                deadline = time.monotonic() + tick
                yield out
        if batch:
            yield batch
    finally:
        stop.set()


def call_all(call: Callable[[Item], T], items: Sequence[Item], concurrency: int) -> list[T]:
    """Every item's result, in the items' order, at most ``concurrency`` calls at a time."""
    if not items:
        return []
    out: list[Any] = [None] * len(items)

    def indexed(pair: tuple[int, Item]) -> tuple[int, T]:
        return pair[0], call(pair[1])

    for batch in stream_calls(indexed, enumerate(items), concurrency, batch_size=len(items)):
        for i, result in batch:
            out[i] = result
    return out


def post_json(url: str, payload: Any, *, policy: Policy, timeout: float = 10.0) -> int:
    """POST ``payload`` to a webhook URL (checked and pinned like a retriever; redirects are not
    followed). Returns the HTTP status; raises TemporaryFailure or PermanentFailure."""
    try:
        target = check_url(url, policy)
    except UnsafeURL as error:
        raise PermanentFailure(str(error)) from None
    pool = connection_pool(target, urllib3.Timeout(connect=timeout, read=timeout))
    try:
        response = send(
            pool,
            "POST",
            target.path,
            orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS),
            {
                "Host": target.host_header,
                "User-Agent": "Goldsmith",
                "Content-Type": "application/json",
            },
        )
    finally:
        pool.close()
    if response.status == 429 or response.status >= 500:
        raise TemporaryFailure(f"HTTP {response.status}")
    return response.status
