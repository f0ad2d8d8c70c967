"""Readers and writers of Goldsmith's file formats (see docs/formats.md).

Pure module: numpy and the standard library, no Django.

- TREC qrels ``qid iter docno grade`` and TREC run ``qid Q0 docno rank score runid``
  (whitespace-separated; lines whose first token starts with ``#`` are comments).
- JSONL run: one ``{"query_id": ..., "results": [{"id": ..., "score": ...}, ...]}`` per line.
- JSONL qrels: one ``{"query_id": ..., "judgments": [{"id": ..., "grade": ...}, ...]}`` per line.
- Native golden set (``goldsmith.goldset``): a header line, then one line per golden query.

Parsers are strict and stream; every problem raises :class:`FormatError` whose text is
``FILE:LINE: what is wrong``. TREC files are parsed in large blocks with numpy (token
boundaries, numbers and ids are extracted without a Python object per line); a block that is not
plain and valid (comments, blank lines, a bad field) is re-read line by line, which is also how
the offending line is found and reported.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal, TypeVar

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import NDArray

from goldsmith.metrics import JudgmentColumns, RankingColumns, id_hash, pair_hash

GOLDSET_FORMAT = "goldsmith.goldset"
GOLDSET_FORMAT_VERSION = 1
FileFormat = Literal["trec", "jsonl", "goldset"]

_BLOCK = 1 << 22  # bytes per TREC block (a few are in flight, each with ~6x temporaries)
_MAX_SIMPLE_DIGITS = 15  # decimal mantissas this short convert exactly (see _floats)
_POW10 = np.array([float(10**k) for k in range(23)])
_WORKERS = 2 if (os.cpu_count() or 1) > 1 else 1
_T = TypeVar("_T")
_CONTROL = frozenset(range(32)) - {9, 10, 13}
_NUL_FREE = "ids may not contain NUL characters"


class FormatError(ValueError):
    """A malformed input file; ``str()`` is ``FILE:LINE: message``.

    FILE is the path the reader was given (``ZIP:MEMBER`` for a file inside a zip) until
    :meth:`named` puts the name a person knows the file by in its place: an upload is read from
    a server-side temporary copy, whose path is never shown (``annotation.uploads``)."""

    def __init__(self, path: str | Path, line: int, message: str) -> None:
        self.path, self.line, self.message = str(path), line, message
        super().__init__(f"{self.path}:{line}: {message}")

    def named(self, path: str | Path, name: str) -> FormatError:
        """This error with the file at `path` shown as `name` (a zip's member kept:
        ``beir.zip:qrels/test.tsv``), in its message too; itself when it names another file."""
        at = str(path)
        own = self.path == at or self.path.startswith(at + ":")
        if not own and at not in self.message:
            return self
        shown = name + self.path[len(at) :] if own else self.path
        return FormatError(shown, self.line, self.message.replace(at, name))


# --------------------------------------------------------------------------------------------
# Format detection


def detect_format(path: str | Path) -> FileFormat:
    """``goldset`` if the first non-blank line is a goldset header, ``jsonl`` if it starts with
    ``{``, otherwise ``trec``."""
    with open(path, "rb") as f:
        for raw in f:
            line = raw.strip()
            if not line:
                continue
            if not line.startswith(b"{"):
                return "trec"
            try:
                head = json.loads(line)
            except (ValueError, RecursionError):
                return "jsonl"
            is_goldset = isinstance(head, dict) and head.get("format") == GOLDSET_FORMAT
            return "goldset" if is_goldset else "jsonl"
    return "trec"


def read_qrels(path: str | Path, fmt: FileFormat | None = None) -> JudgmentColumns:
    """Judgments from a TREC qrels, JSONL qrels or goldset file (detected when ``fmt`` is None)."""
    fmt = fmt or detect_format(path)
    if fmt == "trec":
        return read_trec_qrels(path)
    if fmt == "jsonl":
        return read_jsonl_qrels(path)
    return goldset_judgments(read_goldset(path))


def read_run(
    path: str | Path, fmt: Literal["trec", "jsonl"] | None = None, *, require_scores: bool = False
) -> RankingColumns:
    """Ranked results from a TREC or JSONL run (detected when ``fmt`` is None)."""
    if fmt is None:
        detected = detect_format(path)
        if detected == "goldset":
            raise FormatError(path, 1, "this is a golden set, not a run")
        fmt = detected
    return read_trec_run(path) if fmt == "trec" else read_jsonl_run(path, require_scores)


# --------------------------------------------------------------------------------------------
# TREC: fast block scanner


def _blocks(path: str | Path) -> Iterator[tuple[bytes, int]]:
    """Blocks of whole lines with the 1-based number of their first line."""
    line = 1
    with open(path, "rb") as f:
        while True:
            block = f.read(_BLOCK)
            if not block:
                return
            if not block.endswith(b"\n"):
                block += f.readline()
            yield block, line
            line += block.count(b"\n")


Span = tuple[NDArray[np.int64], NDArray[np.int64]]


def _scan(block: bytes, ncols: int) -> tuple[NDArray[np.uint8], list[Span]] | None:
    """The block as a zero-padded byte array and (starts, ends) of each column, if every line
    has exactly ``ncols`` tokens and the block has no comment, control character or invalid
    UTF-8; otherwise None (the caller then re-reads the block line by line)."""
    n_nl = block.count(b"\n")
    n_lines = n_nl + (not block.endswith(b"\n"))
    if not block or n_lines == 0:
        return None
    if not block.isascii():
        try:
            block.decode("utf-8")
        except UnicodeDecodeError:
            return None
    a = np.frombuffer(block, dtype=np.uint8)
    low = a < 32
    if np.count_nonzero(low) != n_nl + block.count(b"\t") + block.count(b"\r"):
        return None  # a control character
    ws = np.empty(len(a) + 2, dtype=bool)
    ws[0] = ws[-1] = True
    np.logical_or(low, a == 32, out=ws[1:-1])
    edges = np.flatnonzero(ws[1:] != ws[:-1])
    if len(edges) != 2 * ncols * n_lines:
        return None
    # With ncols tokens per line on average, every line has exactly ncols when each line's
    # last token is followed by its newline: there are exactly n_lines newlines to go round.
    last_end = edges[2 * ncols - 1 :: 2 * ncols]
    padded = np.zeros(len(a) + 72, dtype=np.uint8)
    padded[: len(a)] = a
    after = padded[last_end]
    ok = (after == 10) | ((after == 13) & (padded[last_end + 1] == 10))
    if not block.endswith(b"\n"):
        ok[-1] = True
    if not bool(ok.all()) and not _lines_ok(a, edges, ncols, n_lines):
        return None
    starts = edges[0 :: 2 * ncols]
    if bool((padded[starts] == 35).any()):  # '#': a comment line
        return None
    return padded, [
        (edges[2 * j :: 2 * ncols], edges[2 * j + 1 :: 2 * ncols]) for j in range(ncols)
    ]


def _lines_ok(a: NDArray[np.uint8], edges: NDArray[np.int64], ncols: int, n_lines: int) -> bool:
    """Slower check (lines with trailing blanks): each line's tokens lie between its newlines."""
    newlines = np.flatnonzero(a == 10)
    if len(newlines) < n_lines:
        newlines = np.append(newlines, len(a))
    prev = np.concatenate(([-1], newlines[:-1]))
    return bool((edges[0 :: 2 * ncols] > prev).all()) and bool(
        (edges[2 * ncols - 1 :: 2 * ncols] <= newlines).all()
    )


def _gather(padded: NDArray[np.uint8], span: Span) -> NDArray[np.uint8]:
    """Tokens as a zero-padded ``uint8[n, width]`` matrix (one fancy-indexing copy of a
    sliding-window view; ``padded`` has at least 72 spare bytes at the end)."""
    s, e = span
    lengths = e - s
    width = max(int(lengths.max()), 1) if len(s) else 1
    if width > 72:
        padded = np.concatenate((padded, np.zeros(width, dtype=np.uint8)))
    m = sliding_window_view(padded, width)[s]
    if len(s) and int(lengths.min()) < width:  # clear the bytes past each shorter token
        for j in range(int(lengths.min()), width):
            m[:, j] *= lengths > j
    return m


def _as_bytes(m: NDArray[np.uint8]) -> NDArray[np.bytes_]:
    return np.ascontiguousarray(m).view(f"S{m.shape[1]}").reshape(len(m))


def _ints(m: NDArray[np.uint8]) -> NDArray[np.int64] | None:
    """Parse ``-?[0-9]+`` tokens (≤ 18 characters); None if any token is not one."""
    n, width = m.shape
    if width > 18:
        return None
    neg = m[:, 0] == 45
    v = np.zeros(n, dtype=np.int64)
    ok = np.ones(n, dtype=bool)
    n_digits = np.zeros(n, dtype=np.int64)
    for j in range(width):
        c = m[:, j]
        d = c - np.uint8(48)  # wraps for bytes below '0'
        is_digit = d <= 9
        if j == 0:
            is_digit &= ~neg
            ok &= is_digit | neg
        else:
            ok &= is_digit | (c == 0)
        v = np.where(is_digit, v * 10 + d, v)
        n_digits += is_digit
    ok &= n_digits > 0
    if not bool(ok.all()):
        return None
    return np.where(neg, -v, v)


def _floats(m: NDArray[np.uint8]) -> NDArray[np.float64] | None:
    """Parse finite decimal numbers; None if any token is not one.

    Plain ``-?digits[.digits]`` with at most 15 digits is converted as integer mantissa / 10^f:
    both are exact doubles, and IEEE division rounds correctly, so the result equals
    ``float(token)``. Other tokens (exponents, long mantissas) go through ``float()``."""
    n, width = m.shape
    neg = m[:, 0] == 45
    mant = np.zeros(n, dtype=np.int64)
    n_digits = np.zeros(n, dtype=np.int64)
    frac = np.zeros(n, dtype=np.int64)
    dots = np.zeros(n, dtype=np.int64)
    bad = np.zeros(n, dtype=bool)
    for j in range(width):
        c = m[:, j]
        d = c - np.uint8(48)
        is_digit = d <= 9
        is_dot = c == 46
        other = ~is_digit & ~is_dot & (c != 0)
        if j == 0:
            other &= ~neg
        bad |= other
        mant = np.where(is_digit, mant * 10 + d, mant)
        n_digits += is_digit
        frac += is_digit & (dots > 0)
        dots += is_dot
    bad |= (dots > 1) | (n_digits == 0) | (n_digits > _MAX_SIMPLE_DIGITS)
    out = mant / _POW10[np.minimum(frac, 22)]
    np.negative(out, out=out, where=neg)
    for i in np.flatnonzero(bad):
        x = _float_text(bytes(m[i]).rstrip(b"\x00").decode("utf-8"))
        if x is None:
            return None
        out[i] = x
    return out


def _float_text(text: str) -> float | None:
    """``float(text)`` for plain ASCII finite numbers (no '_', no nan/inf), else None."""
    if not text.isascii() or "_" in text:
        return None
    try:
        x = float(text)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def _heads(col: NDArray[np.bytes_]) -> tuple[list[bytes], NDArray[np.int64]]:
    """Runs of equal adjacent values: (value of each run, run lengths). Lines of a query are
    usually adjacent, so only one id per run needs a dictionary look-up."""
    if len(col) == 0:
        return [], np.zeros(0, dtype=np.int64)
    heads = np.concatenate(([0], np.flatnonzero(col[1:] != col[:-1]) + 1))
    return [bytes(col[h]) for h in heads], np.diff(np.append(heads, len(col)))


class _Interner:
    """Query ids → dense indices, in order of first appearance."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, qid: str) -> int:
        return self.index.setdefault(qid, len(self.index))

    def codes(self, heads: list[bytes], runs: NDArray[np.int64]) -> NDArray[np.int64]:
        codes = [self(h.decode("utf-8")) for h in heads]
        return np.repeat(np.array(codes, dtype=np.int64), runs)


def _in_threads(
    blocks: Iterator[tuple[bytes, int]], work: Callable[[bytes], _T]
) -> Iterator[tuple[bytes, int, _T]]:
    """``work`` on each block in a small thread pool (numpy releases the GIL), results in file
    order, with at most a few blocks in memory."""
    with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
        pending: deque[tuple[bytes, int, Future[_T]]] = deque()
        for block, first in blocks:
            pending.append((block, first, pool.submit(work, block)))
            if len(pending) > _WORKERS:
                b, f, fut = pending.popleft()
                yield b, f, fut.result()
        while pending:
            b, f, fut = pending.popleft()
            yield b, f, fut.result()


def _check_line(path: str | Path, lineno: int, raw: bytes) -> list[bytes] | None:
    """Tokens of one line, None for blank and comment lines; raises on bad bytes."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FormatError(path, lineno, f"invalid UTF-8 at byte {e.start + 1}") from None
    if any(b in _CONTROL for b in raw):
        raise FormatError(path, lineno, "control character in line")
    toks = raw.split()
    if not toks or toks[0].startswith(b"#"):
        return None
    return toks


def _slow_lines(block: bytes, first_line: int) -> Iterator[tuple[int, bytes]]:
    lines = block.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for i, raw in enumerate(lines):
        yield first_line + i, raw


def _parse_int(path: str | Path, lineno: int, what: str, tok: bytes) -> int:
    text = tok.decode("utf-8")
    body = text[1:] if text.startswith("-") else text
    if not body.isascii() or not body.isdigit() or len(text) > 18:
        raise FormatError(path, lineno, f"{what} {text!r} is not an integer")
    return int(text)


def _parse_float(path: str | Path, lineno: int, what: str, tok: bytes) -> float:
    text = tok.decode("utf-8")
    x = _float_text(text)
    if x is None:
        raise FormatError(path, lineno, f"{what} {text!r} is not a finite number")
    return x


def _cat(parts: list[NDArray[Any]], dtype: Any) -> NDArray[Any]:
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


class _Column:
    """An append-only column in one preallocated array (grown 1.5x when the size estimate
    was short), so a large file is not held twice while blocks are joined."""

    def __init__(self, dtype: Any) -> None:
        self.buf: NDArray[Any] = np.zeros(0, dtype=dtype)
        self.n = 0

    def add(self, part: NDArray[Any], expected_total: int) -> None:
        need = self.n + len(part)
        wider = part.dtype.kind == "S" and part.dtype.itemsize > self.buf.dtype.itemsize
        if need > len(self.buf) or wider:
            size = max(
                need, expected_total, int(len(self.buf) * 1.5) if need > len(self.buf) else 0
            )
            size = max(size, len(self.buf))
            dtype = part.dtype if wider else self.buf.dtype
            grown = np.zeros(size, dtype=dtype)
            grown[: self.n] = self.buf[: self.n]
            self.buf = grown
        self.buf[self.n : need] = part
        self.n = need

    def result(self) -> NDArray[Any]:
        out = self.buf[: self.n]
        return out.copy() if len(self.buf) > 1.1 * self.n + 1024 else out


def _bytes_array(items: list[bytes]) -> NDArray[np.bytes_]:
    return np.array(items, dtype=np.bytes_) if items else np.zeros(0, dtype="S1")


@dataclass
class _QrelsBlock:
    heads: list[bytes]
    runs: NDArray[np.int64]
    ids: NDArray[np.bytes_]
    grades: NDArray[np.int64]


def _fast_qrels(block: bytes) -> _QrelsBlock | None:
    scanned = _scan(block, 4)
    if scanned is None:
        return None
    padded, spans = scanned
    grades = _ints(_gather(padded, spans[3]))
    if grades is None:
        return None
    heads, runs = _heads(_as_bytes(_gather(padded, spans[0])))
    return _QrelsBlock(heads, runs, _as_bytes(_gather(padded, spans[2])), grades)


def read_trec_qrels(path: str | Path) -> JudgmentColumns:
    """TREC qrels ``qid iter docno grade``; the second column is ignored, grades are integers
    (negative allowed, as trec_eval), (qid, docno) must be unique."""
    intern = _Interner()
    qidx: list[NDArray[np.int64]] = []
    ids: list[NDArray[np.bytes_]] = []
    grades: list[NDArray[np.int64]] = []
    lines: list[NDArray[np.int64]] = []
    for block, first, fast in _in_threads(_blocks(path), _fast_qrels):
        if fast is not None:
            qidx.append(intern.codes(fast.heads, fast.runs))
            ids.append(fast.ids)
            grades.append(fast.grades)
            lines.append(first + np.arange(len(fast.grades), dtype=np.int64))
            continue
        q: list[int] = []
        d: list[bytes] = []
        g: list[int] = []
        ln: list[int] = []
        for lineno, raw in _slow_lines(block, first):
            toks = _check_line(path, lineno, raw)
            if toks is None:
                continue
            if len(toks) != 4:
                msg = f"expected 4 columns (qid iter docno grade), found {len(toks)}"
                raise FormatError(path, lineno, msg)
            g.append(_parse_int(path, lineno, "grade", toks[3]))
            q.append(intern(toks[0].decode("utf-8")))
            d.append(toks[2])
            ln.append(lineno)
        qidx.append(np.array(q, dtype=np.int64))
        ids.append(_bytes_array(d))
        grades.append(np.array(g, dtype=np.int64))
        lines.append(np.array(ln, dtype=np.int64))
    qrels = JudgmentColumns(
        query_ids=tuple(intern.index),
        qidx=_cat(qidx, np.int64),
        ids=_cat(ids, "S1"),
        grades=_cat(grades, np.int64),
    )
    if len(qrels.qidx) == 0:
        raise FormatError(path, 1, "no judgments in file")
    _check_unique(path, qrels, _cat(lines, np.int64))
    return qrels


def _check_unique(path: str | Path, qrels: JudgmentColumns, lines: NDArray[np.int64]) -> None:
    keys = pair_hash(qrels.qidx, qrels.ids)
    order = np.argsort(keys, kind="stable")
    same = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    dups = []
    for i in same:  # hash-equal neighbours: compare the real pairs
        x, y = order[i], order[i + 1]
        if qrels.qidx[x] == qrels.qidx[y] and qrels.ids[x] == qrels.ids[y]:
            dups.append((max(lines[x], lines[y]), min(lines[x], lines[y]), x))
    if dups:
        line, first, x = min(dups)
        qid = qrels.query_ids[qrels.qidx[x]]
        doc = bytes(qrels.ids[x]).decode("utf-8")
        msg = f"duplicate judgment for query {qid!r}, docno {doc!r} (first on line {first})"
        raise FormatError(path, int(line), msg)


@dataclass
class _RunBlock:
    heads: list[bytes]
    runs: NDArray[np.int64]
    ids: NDArray[np.bytes_]
    scores: NDArray[np.float64]
    ranks: NDArray[np.int64]
    id_hash: NDArray[np.uint64]
    run_id: str


def _fast_run(block: bytes) -> _RunBlock | None:
    scanned = _scan(block, 6)
    if scanned is None:
        return None
    padded, spans = scanned
    ranks = _ints(_gather(padded, spans[3]))
    scores = _floats(_gather(padded, spans[4])) if ranks is not None else None
    if ranks is None or scores is None:
        return None
    heads, runs = _heads(_as_bytes(_gather(padded, spans[0])))
    ids = _as_bytes(_gather(padded, spans[2]))
    s, e = spans[5][0][0], spans[5][1][0]
    return _RunBlock(heads, runs, ids, scores, ranks, id_hash(ids), block[s:e].decode("utf-8"))


def read_trec_run(path: str | Path) -> RankingColumns:
    """TREC run ``qid Q0 docno rank score runid``; the second column is ignored, rank must be an
    integer and score a finite number. Duplicate docnos are kept (scoring drops later copies)."""
    intern = _Interner()
    cols = {
        "qidx": _Column(np.int64),
        "ids": _Column("S1"),
        "scores": _Column(np.float64),
        "ranks": _Column(np.int64),
        "hashes": _Column(np.uint64),
    }
    run_id: str | None = None
    size, seen_bytes = max(os.path.getsize(path), 1), 0
    for block, first, fast in _in_threads(_blocks(path), _fast_run):
        if fast is not None:
            part = {
                "qidx": intern.codes(fast.heads, fast.runs),
                "ids": fast.ids,
                "scores": fast.scores,
                "ranks": fast.ranks,
                "hashes": fast.id_hash,
            }
            run_id = run_id or fast.run_id
        else:
            q: list[int] = []
            d: list[bytes] = []
            sc: list[float] = []
            rk: list[int] = []
            for lineno, raw in _slow_lines(block, first):
                toks = _check_line(path, lineno, raw)
                if toks is None:
                    continue
                if len(toks) != 6:
                    msg = f"expected 6 columns (qid Q0 docno rank score runid), found {len(toks)}"
                    raise FormatError(path, lineno, msg)
                rk.append(_parse_int(path, lineno, "rank", toks[3]))
                sc.append(_parse_float(path, lineno, "score", toks[4]))
                q.append(intern(toks[0].decode("utf-8")))
                d.append(toks[2])
                run_id = run_id or toks[5].decode("utf-8")
            ids = _bytes_array(d)
            part = {
                "qidx": np.array(q, dtype=np.int64),
                "ids": ids,
                "scores": np.array(sc, dtype=np.float64),
                "ranks": np.array(rk, dtype=np.int64),
                "hashes": id_hash(ids),
            }
        seen_bytes += len(block)
        # Size the columns for the whole file from the rows per byte seen so far.
        expected = int((cols["qidx"].n + len(part["qidx"])) * size / seen_bytes * 1.02) + 64
        for name, col in cols.items():
            col.add(part[name], expected)
    return RankingColumns(
        query_ids=tuple(intern.index),
        qidx=cols["qidx"].result(),
        ids=cols["ids"].result(),
        scores=cols["scores"].result(),
        ranks=cols["ranks"].result(),
        run_id=run_id,
        id_hash=cols["hashes"].result(),
    )


# --------------------------------------------------------------------------------------------
# JSON lines


def _json_lines(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) of every non-blank line."""
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, 1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise FormatError(path, lineno, f"invalid UTF-8 at byte {e.start + 1}") from None
            if not text.strip():
                continue
            try:
                yield lineno, json.loads(text, parse_constant=_no_constant)
            except RecursionError:
                raise FormatError(path, lineno, "JSON nested too deeply") from None
            except json.JSONDecodeError as e:
                raise FormatError(
                    path, lineno, f"invalid JSON: {e.msg} (column {e.colno})"
                ) from None
            except ValueError as e:  # e.g. an integer literal over Python's digit limit
                raise FormatError(path, lineno, f"invalid JSON: {e}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


class _Line:
    """Field checks for one JSON object, raising FormatError at its line."""

    def __init__(self, path: str | Path, lineno: int) -> None:
        self.path, self.lineno = path, lineno

    def fail(self, message: str) -> FormatError:
        return FormatError(self.path, self.lineno, message)

    def obj(self, value: Any, what: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(f"{what} must be a JSON object")
        return value

    def keys(self, obj: dict[str, Any], required: set[str], allowed: set[str], what: str) -> None:
        missing = sorted(required - obj.keys())
        if missing:
            raise self.fail(f"{what} is missing {', '.join(map(repr, missing))}")
        extra = sorted(obj.keys() - allowed)
        if extra:
            raise self.fail(f"{what} has unknown key {extra[0]!r}")

    def ident(self, value: Any, what: str) -> str:
        """A non-empty string id (integers are accepted and turned into strings)."""
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str) or not value:
            raise self.fail(f"{what} must be a non-empty string")
        if "\x00" in value:
            raise self.fail(f"{what}: {_NUL_FREE}")
        return value

    def opt_str(self, value: Any, what: str) -> str | None:
        if value is not None and not isinstance(value, str):
            raise self.fail(f"{what} must be a string or null")
        return value

    def int_(self, value: Any, what: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(f"{what} {value!r} is not an integer")
        return value

    def opt_int(self, value: Any, what: str) -> int | None:
        return None if value is None else self.int_(value, what)

    def number(self, value: Any, what: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(f"{what} {value!r} is not a number")
        x = float(value)
        if not math.isfinite(x):
            raise self.fail(f"{what} {value!r} is not a finite number")
        return x

    def array(self, value: Any, what: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(f"{what} must be a JSON array")
        return value


def read_jsonl_run(path: str | Path, require_scores: bool = False) -> RankingColumns:
    """JSONL run: ``{"query_id", "results": [{"id", "score"?}, ...]}`` per line, best first.
    Extra keys are ignored (retriever output often carries text); a query may appear once."""
    qids: list[str] = []
    seen: set[str] = set()
    counts: list[int] = []
    ids: list[bytes] = []
    scores: list[float] = []
    for lineno, value in _json_lines(path):
        chk = _Line(path, lineno)
        obj = chk.obj(value, "line")
        chk.keys(obj, {"query_id", "results"}, set(obj), "line")
        qid = chk.ident(obj["query_id"], "query_id")
        if qid in seen:
            raise chk.fail(f"query {qid!r} appears twice")
        seen.add(qid)
        results = chk.array(obj["results"], "results")
        for i, item in enumerate(results):
            res = chk.obj(item, f"results[{i}]")
            chk.keys(res, {"id"}, set(res), f"results[{i}]")
            ids.append(chk.ident(res["id"], f"results[{i}].id").encode("utf-8"))
            if "score" in res and res["score"] is not None:
                scores.append(chk.number(res["score"], f"results[{i}].score"))
            elif require_scores:
                raise chk.fail(f"results[{i}] has no score (needed to order by score)")
            else:
                scores.append(math.nan)
        qids.append(qid)
        counts.append(len(results))
    n = len(ids)
    sizes = np.array(counts, dtype=np.int64)
    ranks = np.arange(n, dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes) + 1
    return RankingColumns(
        query_ids=tuple(qids),
        qidx=np.repeat(np.arange(len(qids), dtype=np.int64), counts),
        ids=_bytes_array(ids),
        scores=np.array(scores, dtype=np.float64),
        ranks=ranks.astype(np.int64),
    )


def read_jsonl_qrels(path: str | Path) -> JudgmentColumns:
    """JSONL qrels: ``{"query_id", "judgments": [{"id", "grade"}, ...]}`` per line. A query with
    an empty list is still a golden query (it has no relevant chunk)."""
    qids: list[str] = []
    seen: set[str] = set()
    counts: list[int] = []
    ids: list[bytes] = []
    grades: list[int] = []
    for lineno, value in _json_lines(path):
        chk = _Line(path, lineno)
        obj = chk.obj(value, "line")
        chk.keys(obj, {"query_id", "judgments"}, {"query_id", "judgments"}, "line")
        qid = chk.ident(obj["query_id"], "query_id")
        if qid in seen:
            raise chk.fail(f"query {qid!r} appears twice")
        seen.add(qid)
        docs: set[str] = set()
        items = chk.array(obj["judgments"], "judgments")
        for i, item in enumerate(items):
            j = chk.obj(item, f"judgments[{i}]")
            chk.keys(j, {"id", "grade"}, {"id", "grade"}, f"judgments[{i}]")
            doc = chk.ident(j["id"], f"judgments[{i}].id")
            if doc in docs:
                raise chk.fail(f"duplicate judgment for query {qid!r}, id {doc!r}")
            docs.add(doc)
            ids.append(doc.encode("utf-8"))
            grades.append(chk.int_(j["grade"], "grade"))
        qids.append(qid)
        counts.append(len(items))
    if not qids:
        raise FormatError(path, 1, "no judgments in file")
    return JudgmentColumns(
        query_ids=tuple(qids),
        qidx=np.repeat(np.arange(len(qids), dtype=np.int64), counts),
        ids=_bytes_array(ids),
        grades=np.array(grades, dtype=np.int64),
    )


# --------------------------------------------------------------------------------------------
# Native golden set


@dataclass(frozen=True)
class GoldsetHeader:
    """First line of a goldset file. ``content_hash`` is ``sha256:<hex>`` of the query lines
    (see :func:`goldset_content_hash`); ``extra`` keeps any other header keys."""

    project: str
    label: str
    content_hash: str
    goldsmith_version: str = "0.1.0"
    format_version: int = GOLDSET_FORMAT_VERSION
    created_at: str | None = None
    query_count: int | None = None
    judgment_count: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "goldsmith_version": self.goldsmith_version,
            "format": GOLDSET_FORMAT,
            "format_version": self.format_version,
            "project": self.project,
            "label": self.label,
            "content_hash": self.content_hash,
            "created_at": self.created_at,
            "query_count": self.query_count,
            "judgment_count": self.judgment_count,
        }
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class GoldJudgment:
    """One graded chunk of a golden query; ``start``/``end`` are character offsets of the
    chunk in its document (for span matching after re-chunking), ``provenance`` how the grade
    was reached (``unanimous``, ``majority``, ``adjudicated``, ...)."""

    chunk_id: str
    grade: int
    doc_id: str | None = None
    start: int | None = None
    end: int | None = None
    provenance: str | None = None
    text: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id,
            "doc_id": self.doc_id,
            "start": self.start,
            "end": self.end,
            "grade": self.grade,
            "provenance": self.provenance,
            "text": self.text,
        }


@dataclass(frozen=True)
class GoldenQuery:
    query_id: str
    query: str
    judgments: tuple[GoldJudgment, ...] = ()
    category: str | None = None
    stratum: str | None = None
    weight: float = 1.0
    split: str | None = None
    reference_answer: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "query_id": self.query_id,
            "query": self.query,
            "category": self.category,
            "stratum": self.stratum,
            "weight": self.weight,
            "split": self.split,
            "judgments": [j.to_json() for j in self.judgments],
            "reference_answer": self.reference_answer,
        }


@dataclass(frozen=True)
class GoldSet:
    header: GoldsetHeader
    queries: tuple[GoldenQuery, ...]


def _canonical(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def goldset_content_hash(queries: Iterable[GoldenQuery]) -> str:
    """``sha256:`` + hex digest of the canonical JSON (sorted keys, no spaces, UTF-8) of every
    query, one per line (``\\n``-terminated), in query_id order. Independent of header fields,
    key order and whitespace, so equal content gives equal hashes."""
    h = hashlib.sha256()
    for q in sorted(queries, key=lambda q: q.query_id):
        h.update(_canonical(q.to_json()) + b"\n")
    return "sha256:" + h.hexdigest()


_HEADER_KEYS = {"goldsmith_version", "format", "format_version", "project", "label", "content_hash"}
_QUERY_KEYS = {
    "query_id", "query", "category", "stratum", "weight", "split", "judgments", "reference_answer",
}  # fmt: skip
_JUDGMENT_KEYS = {"chunk_id", "doc_id", "start", "end", "grade", "provenance", "text"}


def iter_goldset(path: str | Path) -> Iterator[GoldsetHeader | GoldenQuery]:
    """Stream a goldset file: the header first, then each query (validated). The content hash
    is checked at the end (a mismatch is reported against line 1)."""
    lines = _json_lines(path)
    first = next(lines, None)
    if first is None:
        raise FormatError(path, 1, "empty file: expected a goldset header")
    header = _header(_Line(path, first[0]), first[1])
    yield header
    seen: set[str] = set()
    qs: list[GoldenQuery] = []
    for lineno, value in lines:
        q = _query(_Line(path, lineno), value)
        if q.query_id in seen:
            raise FormatError(path, lineno, f"query {q.query_id!r} appears twice")
        seen.add(q.query_id)
        qs.append(q)
        yield q
    if header.query_count is not None and header.query_count != len(qs):
        msg = f"header says {header.query_count} queries, file has {len(qs)}"
        raise FormatError(path, first[0], msg)
    actual = goldset_content_hash(qs)
    if header.content_hash != actual:
        msg = f"content_hash {header.content_hash!r} does not match the queries ({actual})"
        raise FormatError(path, first[0], msg)


def read_goldset(path: str | Path) -> GoldSet:
    items = iter(iter_goldset(path))
    header = next(items)
    assert isinstance(header, GoldsetHeader)
    return GoldSet(header, tuple(q for q in items if isinstance(q, GoldenQuery)))


def _header(chk: _Line, value: Any) -> GoldsetHeader:
    obj = chk.obj(value, "header")
    if obj.get("format") != GOLDSET_FORMAT:
        raise chk.fail(f'first line must be a header with "format": "{GOLDSET_FORMAT}"')
    chk.keys(obj, _HEADER_KEYS, set(obj), "header")
    version = chk.int_(obj["format_version"], "format_version")
    if version != GOLDSET_FORMAT_VERSION:
        raise chk.fail(f"unsupported format_version {version} (this reader knows 1)")
    known = _HEADER_KEYS | {"created_at", "query_count", "judgment_count"}
    return GoldsetHeader(
        project=chk.ident(obj["project"], "project"),
        label=chk.ident(obj["label"], "label"),
        content_hash=chk.ident(obj["content_hash"], "content_hash"),
        goldsmith_version=chk.ident(obj["goldsmith_version"], "goldsmith_version"),
        format_version=version,
        created_at=chk.opt_str(obj.get("created_at"), "created_at"),
        query_count=chk.opt_int(obj.get("query_count"), "query_count"),
        judgment_count=chk.opt_int(obj.get("judgment_count"), "judgment_count"),
        extra={k: v for k, v in obj.items() if k not in known},
    )


def _query(chk: _Line, value: Any) -> GoldenQuery:
    obj = chk.obj(value, "query line")
    chk.keys(obj, {"query_id", "query", "judgments"}, _QUERY_KEYS, "query line")
    qid = chk.ident(obj["query_id"], "query_id")
    query = obj["query"]
    if not isinstance(query, str):
        raise chk.fail("query must be a string")
    weight = chk.number(obj.get("weight", 1.0), "weight")
    if weight <= 0:
        raise chk.fail(f"weight {weight} must be positive")
    judgments: list[GoldJudgment] = []
    chunks: set[str] = set()
    for i, item in enumerate(chk.array(obj["judgments"], "judgments")):
        what = f"judgments[{i}]"
        j = chk.obj(item, what)
        chk.keys(j, {"chunk_id", "grade"}, _JUDGMENT_KEYS, what)
        cid = chk.ident(j["chunk_id"], f"{what}.chunk_id")
        if cid in chunks:
            raise chk.fail(f"duplicate judgment for query {qid!r}, chunk {cid!r}")
        chunks.add(cid)
        start = chk.opt_int(j.get("start"), f"{what}.start")
        end = chk.opt_int(j.get("end"), f"{what}.end")
        if start is not None and end is not None and not 0 <= start <= end:
            raise chk.fail(f"{what}: span {start}..{end} is not 0 <= start <= end")
        doc = j.get("doc_id")
        judgments.append(
            GoldJudgment(
                chunk_id=cid,
                grade=chk.int_(j["grade"], "grade"),
                doc_id=None if doc is None else chk.ident(doc, f"{what}.doc_id"),
                start=start,
                end=end,
                provenance=chk.opt_str(j.get("provenance"), f"{what}.provenance"),
                text=chk.opt_str(j.get("text"), f"{what}.text"),
            )
        )
    return GoldenQuery(
        query_id=qid,
        query=query,
        judgments=tuple(judgments),
        category=chk.opt_str(obj.get("category"), "category"),
        stratum=chk.opt_str(obj.get("stratum"), "stratum"),
        weight=weight,
        split=chk.opt_str(obj.get("split"), "split"),
        reference_answer=chk.opt_str(obj.get("reference_answer"), "reference_answer"),
    )


def goldset_judgments(gs: GoldSet) -> JudgmentColumns:
    """Judgments of a golden set by chunk id; queries without judgments stay golden queries."""
    qids = tuple(q.query_id for q in gs.queries)
    counts = [len(q.judgments) for q in gs.queries]
    ids = [j.chunk_id.encode("utf-8") for q in gs.queries for j in q.judgments]
    return JudgmentColumns(
        query_ids=qids,
        qidx=np.repeat(np.arange(len(qids), dtype=np.int64), counts),
        ids=_bytes_array(ids),
        grades=np.array([j.grade for q in gs.queries for j in q.judgments], dtype=np.int64),
    )


# --------------------------------------------------------------------------------------------
# Writers


def _token(value: str, what: str) -> str:
    if not value or any(c.isspace() for c in value) or "\x00" in value or value.startswith("#"):
        raise ValueError(f"{what} {value!r} cannot be written to a TREC file")
    return value


def write_trec_qrels(out: IO[str], rows: Iterable[tuple[str, str, int]]) -> None:
    """Write ``(qid, docno, grade)`` rows as ``qid 0 docno grade``."""
    for qid, doc, grade in rows:
        out.write(f"{_token(qid, 'qid')} 0 {_token(doc, 'docno')} {int(grade)}\n")


def write_trec_run(
    out: IO[str], rows: Iterable[tuple[str, str, int, float]], run_id: str = "goldsmith"
) -> None:
    """Write ``(qid, docno, rank, score)`` rows as ``qid Q0 docno rank score run_id``; scores
    are written with ``repr`` so they read back bit-identical."""
    tag = _token(run_id, "run id")
    for qid, doc, rank, score in rows:
        if not math.isfinite(score):
            raise ValueError(f"score {score!r} cannot be written to a TREC run")
        out.write(f"{_token(qid, 'qid')} Q0 {_token(doc, 'docno')} {int(rank)} {score!r} {tag}\n")


def in_trec_eval_order(ids: Sequence[str], scores: Sequence[float | None]) -> bool:
    """Whether trec_eval, which sorts a query's results by score descending and breaks ties by
    docno descending (``strcmp``, i.e. bytewise on UTF-8), keeps ``ids`` in the given order:
    every score is present and finite, and each (score, id) comes strictly before the next."""
    if len(scores) < len(ids):
        return False
    previous: tuple[float, bytes] | None = None
    for doc, score in zip(ids, scores, strict=False):
        if score is None or not math.isfinite(score):
            return False
        key = doc.encode("utf-8")
        if previous is not None and (
            score > previous[0] or (score == previous[0] and key >= previous[1])
        ):
            return False
        previous = (score, key)
    return True


@dataclass(frozen=True)
class TrecList:
    """One ranked list ready for a TREC run: ``rows`` as ``(qid, docno, rank, score)``."""

    rows: list[tuple[str, str, int, float]]
    scores_kept: bool  # False: the score column is 1/rank (see trec_list_in_order)
    original: list[tuple[str, float | None]]  # (docno, score given) after dropping duplicates
    duplicates: int  # later copies of an id, dropped


def trec_list_in_order(
    qid: str, ids: Sequence[str], scores: Sequence[float | None] = ()
) -> TrecList:
    """The TREC run rows of one ranked list, in the order given (the order a run report
    scores), written so that trec_eval ranks them in that same order.

    A later copy of an id is dropped (a report counts an id once, at its first place). When
    trec_eval would order the given scores differently (equal scores whose ids are not in
    descending order, scores that rise along the list, a missing score), every score of the
    list is written as 1/rank instead, which trec_eval orders as listed; ``scores_kept`` is then
    False and ``original`` holds the scores the retriever gave."""
    given = list(scores) + [None] * (len(ids) - len(scores))
    first: dict[str, float | None] = {}
    for doc, score in zip(ids, given, strict=False):
        if doc not in first:
            first[doc] = None if score is None else float(score)
    docs, kept = list(first), list(first.values())
    numbers = [s for s in kept if s is not None]
    keep = len(numbers) == len(docs) and in_trec_eval_order(docs, numbers)
    written = numbers if keep else [1.0 / r for r in range(1, len(docs) + 1)]
    rows = [(qid, d, r, s) for r, (d, s) in enumerate(zip(docs, written, strict=True), 1)]
    return TrecList(rows, keep, list(first.items()), len(ids) - len(docs))


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


def write_jsonl_run(
    out: IO[str], queries: Iterable[tuple[str, Iterable[tuple[str, float | None]]]]
) -> None:
    """Write ``(query_id, [(id, score), ...])`` as JSONL run lines (score None is omitted)."""
    for qid, results in queries:
        items = [{"id": i} if s is None else {"id": i, "score": s} for i, s in results]
        out.write(_dumps({"query_id": qid, "results": items}) + "\n")


def write_jsonl_qrels(
    out: IO[str], queries: Iterable[tuple[str, Iterable[tuple[str, int]]]]
) -> None:
    for qid, judged in queries:
        items = [{"id": i, "grade": int(g)} for i, g in judged]
        out.write(_dumps({"query_id": qid, "judgments": items}) + "\n")


def write_goldset(
    out: IO[str], project: str, label: str, queries: Iterable[GoldenQuery], **header: Any
) -> GoldsetHeader:
    """Write a goldset (header with computed hash and counts, then queries by query_id).
    Extra keyword arguments become header fields (``created_at``, ``goldsmith_version`` ...)."""
    qs = sorted(queries, key=lambda q: q.query_id)
    if len({q.query_id for q in qs}) != len(qs):
        raise ValueError("query ids must be unique")
    known = {k: header.pop(k) for k in ("goldsmith_version", "created_at") if k in header}
    head = GoldsetHeader(
        project=project,
        label=label,
        content_hash=goldset_content_hash(qs),
        query_count=len(qs),
        judgment_count=sum(len(q.judgments) for q in qs),
        extra=header,
        **known,
    )
    out.write(_dumps(head.to_json()) + "\n")
    for q in qs:
        out.write(_dumps(q.to_json()) + "\n")
    return head


def dumps_goldset(project: str, label: str, queries: Iterable[GoldenQuery], **header: Any) -> str:
    buf = io.StringIO()
    write_goldset(buf, project, label, queries, **header)
    return buf.getvalue()


# --------------------------------------------------------------------------------------------
# Annotation labels (CSV)


@dataclass(frozen=True)
class LabelRow:
    """One annotator's label for one item; ``group`` (e.g. the query) is optional."""

    item: str
    annotator: str
    label: int
    group: str | None = None


def read_labels_csv(path: str | Path) -> list[LabelRow]:
    """CSV with a header naming ``item``, ``annotator``, ``label`` and optionally ``group``
    (other columns are ignored). Labels are integers; (group, item, annotator) is unique."""
    rows: list[LabelRow] = []
    seen: dict[tuple[str | None, str, str], int] = {}

    def lines() -> Iterator[str]:
        with open(path, "rb") as f:
            for lineno, raw in enumerate(f, 1):
                try:
                    yield raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
                except UnicodeDecodeError as e:
                    raise FormatError(
                        path, lineno, f"invalid UTF-8 at byte {e.start + 1}"
                    ) from None

    reader = csv.reader(lines(), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise FormatError(path, 1, "empty file: expected a header item,annotator,label")
        cols = [h.strip().lower() for h in header]
        for need in ("item", "annotator", "label"):
            if need not in cols:
                raise FormatError(path, 1, f"missing column {need!r} in the header")
        if len(set(cols)) != len(cols):
            raise FormatError(path, 1, "repeated column name in the header")
        i_item, i_ann, i_lab = cols.index("item"), cols.index("annotator"), cols.index("label")
        i_grp = cols.index("group") if "group" in cols else None
        for rec in reader:
            lineno = reader.line_num
            if not any(c.strip() for c in rec):
                continue
            if len(rec) != len(cols):
                msg = f"expected {len(cols)} fields, found {len(rec)}"
                raise FormatError(path, lineno, msg)
            item, ann, lab = rec[i_item].strip(), rec[i_ann].strip(), rec[i_lab].strip()
            group = rec[i_grp].strip() if i_grp is not None else None
            if not item or not ann:
                raise FormatError(path, lineno, "item and annotator may not be empty")
            body = lab[1:] if lab.startswith("-") else lab
            if not (body.isascii() and body.isdigit()) or len(lab) > 18:
                raise FormatError(path, lineno, f"label {lab!r} is not an integer")
            key = (group, item, ann)
            if key in seen:
                msg = f"annotator {ann!r} labels item {item!r} twice (first on line {seen[key]})"
                raise FormatError(path, lineno, msg)
            seen[key] = lineno
            rows.append(LabelRow(item, ann, int(lab), group))
    except csv.Error as e:
        raise FormatError(path, reader.line_num, f"bad CSV: {e}") from None
    if not rows:
        raise FormatError(path, 1, "no labels in file")
    return rows
