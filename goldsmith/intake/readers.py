"""Streaming, strict readers of corpus and query-log files: pure, no Django.

Formats: JSON Lines (one object per line; blank lines are skipped), CSV with a header row (read
with the csv module, so quoted fields may span lines), and for query logs plain text (one query
per line). The format comes from the file name (`.jsonl`/`.ndjson`, `.csv`, `.txt`).

Every problem stops the reader with a `ReadError` whose str is ``FILE:LINE: what is wrong``
(the line where the offending record starts). Callers store nothing of a file that fails.

Corpus files hold either chunks (``id``, ``doc_id``, ``text``, optional ``title``,
``position``, ``start``, ``end``, ``metadata``) or whole documents (``doc_id``, ``title``,
``text``; Goldsmith chunks them). The first record decides which; mixing is an error.
Query logs need ``query`` and may have ``timestamp`` (ISO 8601 or Unix seconds), ``user``,
``session``, ``category``, ``count`` (≥ 1) and ``feedback`` (labels separated by ``;`` in CSV,
a string or a list in JSONL). Columns a reader does not know are kept in ``metadata`` (corpus)
or ignored (query logs).
"""

from __future__ import annotations

import csv
import functools
import json
import queue
import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any, TypeVar

import orjson

from goldsmith.intake.limits import UploadLimits, line_too_long
from goldsmith.intake.tokenizers import has_han
from goldsmith.text import say

T = TypeVar("T")
MAX_LINE_BYTES = UploadLimits.max_line_bytes  # the app passes GOLDSMITH_UPLOAD_MAX_LINE_BYTES
JSONL = "jsonl"
CSV = "csv"
TEXT = "txt"
CORPUS_FORMATS = (JSONL, CSV)
QUERYLOG_FORMATS = (JSONL, CSV, TEXT)
_EXTENSIONS = {
    ".jsonl": JSONL,
    ".ndjson": JSONL,
    ".json": JSONL,
    ".csv": CSV,
    ".txt": TEXT,
    ".log": TEXT,
}
NEGATIVE_FEEDBACK = frozenset(
    {
        "thumbs_down",
        "thumbsdown",
        "dislike",
        "negative",
        "no_click",
        "noclick",
        "escalation",
        "escalated",
        "reformulated",
        "reformulation",
        "abandoned",
        "bad",
    }
)


class ReadError(ValueError):
    """A problem in an input file; ``str()`` is ``FILE:LINE: reason``. `reason` is a
    `goldsmith.text.Text`, so that an app can say it (and where) in its reader's language."""

    def __init__(self, filename: str, line: int | None, reason: str) -> None:
        self.filename = filename
        self.line = line
        self.reason = reason
        where = f"{filename}:{line}" if line is not None else filename
        super().__init__(f"{where}: {reason}")


def detect_format(filename: str, allowed: tuple[str, ...]) -> str:
    lower = filename.lower()
    for ext, fmt in _EXTENSIONS.items():
        if lower.endswith(ext) and fmt in allowed:
            return fmt
    names = ", ".join(ext for ext, fmt in _EXTENSIONS.items() if fmt in allowed)
    raise ReadError(filename, None, say("unknown file type: use one of %(names)s", names=names))


class LineSource:
    """UTF-8 lines of a binary stream with their numbers; counts bytes for progress. No line is
    read further than `max_line_bytes` (newline not counted): a longer one is refused at its
    number, so a reader never holds more than one line of that size."""

    def __init__(
        self, stream: IO[bytes], filename: str, max_line_bytes: int = MAX_LINE_BYTES
    ) -> None:
        self.stream = stream
        self.filename = filename
        self.max_line_bytes = max_line_bytes
        self.bytes_read = 0
        self.line = 0

    def __iter__(self) -> Iterator[str]:
        limit = self.max_line_bytes
        # iter(callable, sentinel) calls readline from C: as fast as iterating the file.
        for raw in iter(functools.partial(self.stream.readline, limit + 1), b""):
            self.line += 1
            self.bytes_read += len(raw)
            if len(raw) > limit and raw[-1:] != b"\n":
                raise ReadError(self.filename, self.line, line_too_long(limit))
            if self.line == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as error:
                if _looks_like_gbk(raw):
                    reason = say(
                        "not valid UTF-8: it looks like Chinese in GBK (GB18030), as Excel and "
                        "older Windows programs save it; convert the file to UTF-8 (iconv -f "
                        'GB18030 -t UTF-8, or in Excel save as "CSV UTF-8") and upload it again'
                    )
                else:
                    reason = say(
                        "not valid UTF-8 (byte 0x%(byte)02x at column %(column)s)",
                        byte=raw[error.start],
                        column=error.start + 1,
                    )
                raise ReadError(self.filename, self.line, reason) from None


def _looks_like_gbk(raw: bytes) -> bool:
    """True when bytes that are not UTF-8 read as GBK holding Chinese: every byte above 0x7f is
    one of a pair of such bytes (as GBK writes common Chinese; Latin-1's "é," is not), and the
    text has Han characters."""
    i, n = 0, len(raw)
    while i < n:
        if raw[i] < 0x80:
            i += 1
        elif i + 1 < n and raw[i + 1] >= 0x80:
            i += 2
        else:
            return False
    try:
        return has_han(raw.decode("gb18030"))
    except UnicodeDecodeError:
        return False


def _json_rows(source: LineSource) -> Iterator[tuple[int, dict[str, Any]]]:
    for text in source:
        if not text.strip():
            continue
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as error:
            raise ReadError(
                source.filename,
                source.line,
                say(
                    "broken JSON: %(error)s (column %(column)s)",
                    error=error.msg,
                    column=error.colno,
                ),
            ) from None
        if not isinstance(value, dict):
            raise ReadError(
                source.filename,
                source.line,
                say("expected a JSON object, got %(type)s", type=type(value).__name__),
            )
        yield source.line, value


def _csv_rows(source: LineSource) -> Iterator[tuple[int, dict[str, Any]]]:
    reader = csv.reader(source, strict=True)
    header: list[str] | None = None
    previous_end = 0
    try:
        for row in reader:
            start = previous_end + 1
            previous_end = reader.line_num
            if header is None:
                header = [name.strip() for name in row]
                if not any(header):
                    raise ReadError(source.filename, start, say("the header row is empty"))
                seen: set[str] = set()
                for name in header:
                    if name in seen:
                        raise ReadError(
                            source.filename, start, say("column %(name)r appears twice", name=name)
                        )
                    seen.add(name)
                continue
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(row) != len(header):
                raise ReadError(
                    source.filename,
                    start,
                    say(
                        "expected %(expected)s fields as in the header, got %(got)s",
                        expected=len(header),
                        got=len(row),
                    ),
                )
            yield start, {name: value for name, value in zip(header, row, strict=True) if name}
    except csv.Error as error:
        raise ReadError(
            source.filename, reader.line_num or 1, say("broken CSV: %(error)s", error=str(error))
        ) from None
    if header is None:
        raise ReadError(source.filename, None, say("the file is empty (a header row is needed)"))


def _rows(
    stream: IO[bytes], filename: str, fmt: str, max_line_bytes: int
) -> Iterator[tuple[int, dict[str, Any]]]:
    source = LineSource(stream, filename, max_line_bytes)
    if fmt == JSONL:
        return _json_rows(source)
    if fmt == CSV:
        return _csv_rows(source)
    raise ReadError(filename, None, say("format %(format)r is not supported here", format=fmt))


# --- corpus ---------------------------------------------------------------------------------


@dataclass(slots=True)
class ChunkRecord:
    line: int
    chunk_id: str
    doc_id: str
    text: str
    title: str = ""
    position: int | None = None
    start: int | None = None
    end: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class DocumentRecord:
    line: int
    doc_id: str
    title: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)


_CHUNK_FIELDS = {"id", "doc_id", "text", "title", "position", "start", "end", "metadata"}
_DOCUMENT_FIELDS = {"doc_id", "title", "text", "metadata"}


class _Fields:
    """Typed access to one record's fields, raising `ReadError` at its line."""

    __slots__ = ("filename", "is_csv", "line", "row")

    def __init__(self, filename: str, line: int, row: dict[str, Any], is_csv: bool) -> None:
        self.filename, self.line, self.row, self.is_csv = filename, line, row, is_csv

    def fail(self, reason: str) -> ReadError:
        return ReadError(self.filename, self.line, reason)

    def identifier(self, name: str) -> str:
        value = self.row.get(name)
        if value is None or value == "":
            raise self.fail(say("missing field %(name)r", name=name))
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise self.fail(say("field %(name)r must be a string or an integer", name=name))
        text = str(value).strip()
        if not text:
            raise self.fail(say("missing field %(name)r", name=name))
        if len(text) > 255:
            raise self.fail(say("field %(name)r is longer than 255 characters", name=name))
        return text

    def text(self, name: str, *, required: bool) -> str:
        value = self.row.get(name)
        if value is None:
            if required:
                raise self.fail(say("missing field %(name)r", name=name))
            return ""
        if not isinstance(value, str):
            raise self.fail(say("field %(name)r must be a string", name=name))
        if "\x00" in value:
            raise self.fail(say("field %(name)r contains a NUL character", name=name))
        return value

    def optional_int(self, name: str, *, minimum: int = 0) -> int | None:
        value = self.row.get(name)
        if value is None or value == "":
            return None
        if isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,18}\s*", value):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(
                say(
                    "field %(name)r must be an integer, got %(value)r",
                    name=name,
                    value=str(value)[:40],
                )
            )
        if value < minimum or value > 2**31 - 1:
            raise self.fail(
                say(
                    "field %(name)r must be between %(minimum)s and 2147483647",
                    name=name,
                    minimum=minimum,
                )
            )
        return value

    def metadata(self, known: set[str]) -> dict[str, Any]:
        value = self.row.get("metadata")
        result: dict[str, Any]
        if value is None or value == "":
            result = {}
        elif isinstance(value, dict):
            result = dict(value)
        elif isinstance(value, str) and self.is_csv:
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                raise self.fail(say("field 'metadata' must be a JSON object")) from None
            if not isinstance(parsed, dict):
                raise self.fail(say("field 'metadata' must be a JSON object"))
            result = parsed
        else:
            raise self.fail(say("field 'metadata' must be a JSON object"))
        for name, extra in self.row.items():
            if name not in known:
                result.setdefault(name, extra)
        return result


def read_corpus(
    stream: IO[bytes], filename: str, fmt: str | None = None, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[ChunkRecord | DocumentRecord]:
    """Chunk or document records, checked; duplicate ids are errors."""
    fmt = fmt or detect_format(filename, CORPUS_FORMATS)
    mode: str | None = None
    seen: set[str] = set()
    for line, row in _rows(stream, filename, fmt, max_line_bytes):
        f = _Fields(filename, line, row, fmt == CSV)
        row_mode = "chunks" if "id" in row else "documents"
        if mode is None:
            mode = row_mode
        elif row_mode != mode:
            raise f.fail(
                say("mixes chunks and whole documents: the first record had an 'id' (chunks)")
                if mode == "chunks"
                else say(
                    "mixes chunks and whole documents: the first record had no 'id' (documents)"
                )
            )
        if mode == "chunks":
            chunk_id = f.identifier("id")
            if chunk_id in seen:
                raise f.fail(say("duplicate chunk id %(id)r", id=chunk_id))
            seen.add(chunk_id)
            start, end = f.optional_int("start"), f.optional_int("end")
            if (start is None) != (end is None):
                raise f.fail(say("'start' and 'end' come together"))
            if start is not None and end is not None and end < start:
                raise f.fail(
                    say("'end' (%(end)s) is before 'start' (%(start)s)", end=end, start=start)
                )
            yield ChunkRecord(
                line=line,
                chunk_id=chunk_id,
                doc_id=f.identifier("doc_id"),
                text=f.text("text", required=True),
                title=f.text("title", required=False),
                position=f.optional_int("position"),
                start=start,
                end=end,
                metadata=f.metadata(_CHUNK_FIELDS),
            )
        else:
            doc_id = f.identifier("doc_id")
            if doc_id in seen:
                raise f.fail(say("duplicate document id %(id)r", id=doc_id))
            seen.add(doc_id)
            yield DocumentRecord(
                line=line,
                doc_id=doc_id,
                title=f.text("title", required=False),
                text=f.text("text", required=True),
                metadata=f.metadata(_DOCUMENT_FIELDS),
            )
    if mode is None:
        raise ReadError(filename, None, say("the file holds no records"))


# --- query logs -----------------------------------------------------------------------------


@dataclass(slots=True)
class LogRecord:
    line: int
    query: str
    timestamp: float | None = None  # Unix seconds
    user: str = ""
    session: str = ""
    category: str = ""
    count: int = 1
    feedback: tuple[str, ...] = ()


_MAX_SECONDS = 253402300800.0  # 10000-01-01
# The longest query a log may hold by default (the app passes GOLDSMITH_QUERY_MAX_CHARS): longer
# "queries" are pasted documents or prompts, not what people type into a search box.
MAX_QUERY_CHARS = 2000


def parse_timestamp(value: object) -> float | None:
    """Unix seconds from ISO 8601 (naive means UTC) or from Unix seconds; None for empty;
    ValueError otherwise. Seconds, not datetimes: comparing floats keeps imports fast."""
    if value is None or value == "":
        return None
    if type(value) is int or type(value) is float:
        seconds = float(value)
    elif type(value) is str:
        text = value.strip()
        if _EPOCH_RE.fullmatch(text):
            seconds = float(text)
        else:
            if text.endswith(("Z", "z")):
                text = text[:-1] + "+00:00"
            moment = datetime.fromisoformat(text)
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
            seconds = moment.timestamp()
    else:
        raise ValueError("not a timestamp")
    if not 0 <= seconds < _MAX_SECONDS:
        raise ValueError("out of range")
    return seconds


_EPOCH_RE = re.compile(r"\d{9,10}(\.\d+)?")


_FEEDBACK_CACHE: dict[str, tuple[str, ...]] = {}


def _feedback_labels(value: object, f: _Fields) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if type(value) is str:
        cached = _FEEDBACK_CACHE.get(value)
        if cached is not None:
            return cached
        items: list[object] = list(value.split(";"))
    elif isinstance(value, list):
        items = value
    else:
        raise f.fail(say("field 'feedback' must be a string or a list of strings"))
    labels = []
    for item in items:
        if not isinstance(item, str):
            raise f.fail(say("field 'feedback' must be a string or a list of strings"))
        label = re.sub(r"[\s\-]+", "_", item.strip().lower())[:40]
        if label:
            labels.append(label)
    result = tuple(labels)
    if type(value) is str and len(_FEEDBACK_CACHE) < 10_000:
        _FEEDBACK_CACHE[value] = result
    return result


def _short(value: object, name: str, f: _Fields, limit: int = 255) -> str:
    if type(value) is str:
        return value.strip()[:limit]
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise f.fail(say("field %(name)r must be a string", name=name))
    return str(value).strip()[:limit]


def too_long(length: int, max_chars: int) -> str:
    return say(
        "%(length)s characters long; a query may have at most %(max)s (GOLDSMITH_QUERY_MAX_CHARS)",
        length=f"{length:,}",
        max=f"{max_chars:,}",
    )


def _log_record(
    filename: str, line: int, row: dict[str, Any], is_csv: bool, max_chars: int
) -> LogRecord:
    # The common shapes (a non-empty string query, numeric or absent timestamp and count,
    # string ids) are taken on a fast path; anything else goes through the checks that name
    # what is wrong. A million lines pass here.
    f = _Fields(filename, line, row, is_csv)
    get = row.get
    query = get("query")
    if query is None:
        raise f.fail(say("missing field %(name)r", name="query"))
    if type(query) is not str:
        raise f.fail(say("field %(name)r must be a string", name="query"))
    if not query or query.isspace():
        raise f.fail(say("field 'query' is empty"))
    if len(query) > max_chars:
        raise f.fail(say("field 'query' is %(too_long)s", too_long=too_long(len(query), max_chars)))
    if "\x00" in query:
        raise f.fail(say("field %(name)r contains a NUL character", name="query"))
    raw_time = get("timestamp")
    kind = type(raw_time)
    if raw_time is None:
        timestamp = None
    elif (kind is int or kind is float) and 0 <= raw_time < _MAX_SECONDS:
        timestamp = float(raw_time)
    else:
        try:
            timestamp = parse_timestamp(raw_time)
        except (ValueError, OverflowError, OSError):
            value = str(raw_time)[:40]
            raise f.fail(say("field 'timestamp' is not a date: %(value)r", value=value)) from None
    raw_count = get("count")
    if raw_count is None:
        count = 1
    elif type(raw_count) is int and 1 <= raw_count <= 2**31 - 1:
        count = raw_count
    else:
        count = f.optional_int("count", minimum=1) or 1
    user, session, category = get("user"), get("session"), get("category")
    return LogRecord(
        line,
        query,
        timestamp,
        user.strip()[:255] if type(user) is str else _short(user, "user", f),
        session.strip()[:255] if type(session) is str else _short(session, "session", f),
        category.strip()[:120] if type(category) is str else _short(category, "category", f, 120),
        count,
        _feedback_labels(get("feedback"), f),
    )


def read_querylog(
    stream: IO[bytes],
    filename: str,
    fmt: str | None = None,
    source: list[LineSource] | None = None,
    max_query_chars: int = MAX_QUERY_CHARS,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[LogRecord]:
    """Query-log records, checked. Pass `source=[]` to get the `LineSource` (for progress).

    A query longer than `max_query_chars` (as written in the file, before scrubbing) refuses
    the file at its line: cutting it would store a query nobody typed, and leaving the line
    out would make the counts lie; a query log is imported whole or not at all."""
    fmt = fmt or detect_format(filename, QUERYLOG_FORMATS)
    lines = LineSource(stream, filename, max_line_bytes)
    if source is not None:
        source.append(lines)
    any_record = False
    if fmt == TEXT:
        for text in lines:
            query = text.strip()
            if not query:
                continue
            if "\x00" in query:
                raise ReadError(filename, lines.line, say("the line contains a NUL character"))
            if len(query) > max_query_chars:
                reason = say(
                    "the query is %(too_long)s", too_long=too_long(len(query), max_query_chars)
                )
                raise ReadError(filename, lines.line, reason)
            any_record = True
            yield LogRecord(line=lines.line, query=query)
    else:
        rows = _json_rows(lines) if fmt == JSONL else _csv_rows(lines)
        is_csv = fmt == CSV
        for line, row in rows:
            any_record = True
            yield _log_record(filename, line, row, is_csv, max_query_chars)
    if not any_record:
        raise ReadError(filename, None, say("the file holds no queries"))


def read_ahead(items: Iterable[T], *, batch: int = 500, depth: int = 8) -> Iterator[T]:
    """The items of `items`, produced by a thread of their own up to `depth` batches ahead,
    so that parsing the next records overlaps with the caller's database writes (which wait
    on the network and release the GIL). An exception in the producer (a ReadError) is raised
    here, at the place it would have been raised without the thread; stopping early (an
    exception in the caller, or closing this generator) stops the producer."""
    done = object()
    out: queue.Queue[Any] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(value: Any) -> bool:
        while not stop.is_set():
            try:
                out.put(value, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        chunk: list[T] = []
        try:
            for item in items:
                chunk.append(item)
                if len(chunk) >= batch:
                    if not put(chunk):
                        return
                    chunk = []
            if chunk and not put(chunk):
                return
            put(done)
        except BaseException as error:  # handed to the consumer
            put(error)

    thread = threading.Thread(target=produce, name="read-ahead", daemon=True)
    thread.start()
    try:
        while True:
            got = out.get()
            if got is done:
                return
            if isinstance(got, BaseException):
                raise got
            yield from got
    finally:
        stop.set()
        thread.join()
