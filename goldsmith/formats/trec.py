"""TREC files: qrels ``qid iter docno grade``, runs ``qid Q0 docno rank score runid``
(whitespace-separated; lines whose first token starts with ``#`` are comments) and topics, and
the order trec_eval gives a ranked list (see docs/formats.md).

Pure module: numpy and the standard library, no Django. Readers are strict and stream; every
problem raises :class:`~goldsmith.formats.FormatError` (``FILE:LINE: what is wrong``). Files are
parsed in large blocks with numpy, without a Python object per line: one pass over the bytes
finds the whitespace, each token is then read as 8-byte words, and numbers are converted in
those words. A block that is not plain and valid (comments, blank lines, a bad field) is re-read
line by line, which is also how the offending line is found and reported.

Qrels and topics are written as generators of text in bounded pieces, so that an export of any
size streams with flat memory. Qrels carry no comment line, because some readers (pytrec_eval
among them) do not accept one.
"""

from __future__ import annotations

import math
import os
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from goldsmith.formats import FormatError
from goldsmith.formats.common import PIECE_LINES, bytes_array, decode_utf8
from goldsmith.formats.goldset import GoldenQuery, GoldJudgment, GradeMap, judgment_order, map_grade
from goldsmith.metrics import (
    JudgmentColumns,
    RankingColumns,
    hash_words,
    id_hash,
    pair_hash,
    trec_eval_scores,
)
from goldsmith.text import say

_BLOCK = 1 << 22  # bytes per TREC block (a few are in flight, each with ~3x temporaries)
_BACK = 64  # zero bytes after each block: a token's words may be read past the block's end
_MAX_SIMPLE_DIGITS = 15  # decimal mantissas this short convert exactly (see _floats)
_POW10 = np.array([float(10**k) for k in range(23)])
_WORKERS = 2 if (os.cpu_count() or 1) > 1 else 1
_T = TypeVar("_T")
_CONTROL = frozenset(range(32)) - {9, 10, 13}
_IS_CONTROL = np.array([b in _CONTROL for b in range(256)])
# 8-byte words, little-endian (byte 0 of a token is the word's lowest byte).
_U = np.uint64
_ONES = _U(0x0101010101010101)
_ZEROS = _U(0x3030303030303030)  # "00000000"
_LOW = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)  # the k low bytes
_SHIFT = np.array([256**k for k in range(8)] + [0], dtype=np.uint64)  # x * _SHIFT[k]: k bytes up


# --------------------------------------------------------------------------------------------
# Readers: a fast block scanner, a line-by-line reader for the rest


def _blocks(path: str | Path) -> Iterator[bytes]:
    """Blocks of whole lines, the last one ending with a newline even where the file does not,
    each followed by `_BACK` zero bytes."""
    pad = bytes(_BACK)
    with open(path, "rb") as f:
        while True:
            block = f.read(_BLOCK)
            if not block:
                return
            tail = b"" if block.endswith(b"\n") else f.readline()
            end = b"" if (tail or block).endswith(b"\n") else b"\n"
            yield b"".join((block, tail, end, pad))


def _scan(
    block: bytes, ncols: int
) -> tuple[NDArray[np.uint8], NDArray[np.int64], NDArray[np.int64]] | None:
    """The block as a byte array and the offsets where each line's tokens start and end, as
    ``int64[lines, ncols]`` each, if every line has exactly ``ncols`` tokens and the block has
    no blank line, comment, control character or invalid UTF-8; otherwise None (the caller then
    re-reads the block line by line).

    Tokens lie between runs of whitespace (tab, newline, CR, space): a line's last run holds
    its one newline (with a CR, trailing blanks or the next line's indent), the others none."""
    if not block.isascii():
        try:
            block.decode("utf-8")
        except UnicodeDecodeError:
            return None
    a = np.frombuffer(block, dtype=np.uint8)
    ws = np.flatnonzero(a[: len(a) - _BACK] <= 32)
    v = a[ws]
    newlines: NDArray[Any] = v == 10
    if np.count_nonzero(v < 32) != np.count_nonzero(newlines) and bool(_IS_CONTROL[v].any()):
        return None
    starts = np.empty_like(ws)  # of the token that ends at each whitespace byte
    starts[0] = 0
    np.add(ws[:-1], 1, out=starts[1:])
    if bool((starts == ws).any()):  # a run of whitespace longer than a byte, or at the start
        heads = np.flatnonzero(starts != ws)  # each run's first byte
        if len(heads) == 0 or heads[0] != 0:
            return None
        newlines = np.add.reduceat(newlines, heads, dtype=np.int64)
        starts = np.concatenate(([0], ws[heads[1:] - 1] + 1))
        ws = ws[heads]
    if len(ws) % ncols:
        return None
    per_line = newlines.reshape(-1, ncols)
    if not bool((per_line[:, -1] == 1).all()) or np.count_nonzero(per_line) != len(per_line):
        return None
    s, e = starts.reshape(-1, ncols), ws.reshape(-1, ncols)
    if bool((a[s[:, 0]] == 35).any()):  # '#': a comment line
        return None
    return a, s, e


def _words(a: NDArray[np.uint8], s: NDArray[np.int64], e: NDArray[np.int64]) -> NDArray[np.uint64]:
    """Tokens ``a[s:e]`` as ``uint64[n, k]``, k words of 8 bytes each, zero past each token's
    end (so the matrix viewed as ``S{8k}`` holds the tokens): one gather of 8k bytes a token,
    through a view of the block in which every byte starts an item."""
    lengths = e - s
    k = max(-(-int(lengths.max()) // 8), 1)
    if 8 * k > _BACK:
        a = np.concatenate((a, np.zeros(8 * k, dtype=np.uint8)))
    items = np.ndarray((len(a) - 8 * k + 1,), dtype=f"V{8 * k}", buffer=a, strides=(1,))
    w: NDArray[np.uint64] = items[s].view(np.uint64).reshape(len(s), k)
    for j in range(k):  # column by column: numpy broadcasts along a short axis slowly
        w[:, j] &= _LOW[np.clip(lengths - 8 * j, 0, 8)]
    return w


def _as_bytes(w: NDArray[np.uint64]) -> NDArray[np.bytes_]:
    return w.view(f"S{8 * w.shape[1]}").reshape(len(w))


def _heads(w: NDArray[np.uint64]) -> tuple[list[bytes], NDArray[np.int64]]:
    """Runs of equal adjacent tokens (as _words gives them): the token of each run, run
    lengths. Lines of a query are usually adjacent, so one id per run is looked up."""
    new = np.ones(len(w), dtype=bool)
    new[1:] = _across(np.logical_or, w[1:] != w[:-1])
    heads = np.flatnonzero(new)
    return _as_bytes(w[heads]).tolist(), np.diff(np.append(heads, len(w)))


def _digits_ok(w: NDArray[np.uint64]) -> NDArray[np.bool_]:
    """Whether every byte of each word is an ASCII digit."""
    hi = _U(0xF0F0F0F0F0F0F0F0)
    ok: NDArray[np.bool_] = ((w & hi) == _ZEROS) & (((w + _U(0x0606060606060606)) & hi) == _ZEROS)
    return ok


def _eight_digits(w: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """The number each word of 8 ASCII digits spells, its byte 0 the leading digit (SWAR: pairs,
    then quadruples, then the whole in three multiplications)."""
    w = w - _ZEROS
    w = w * _U(10) + (w >> _U(8))
    m = _U(0x000000FF000000FF)
    w = (w & m) * _U(100 + (1000000 << 32)) + ((w >> _U(16)) & m) * _U(1 + (10000 << 32))
    return w >> _U(32)


def _ints(
    a: NDArray[np.uint8], s: NDArray[np.int64], e: NDArray[np.int64]
) -> NDArray[np.int64] | None:
    """Parse ``-?[0-9]+`` tokens (≤ 18 characters); None if any token is not one. A token of
    up to 8 characters is converted in its word (the digits moved to its top bytes, '0' below);
    a longer one, rare, with ``int()``."""
    lengths = e - s
    w = _words(a, s, e)[:, 0]
    neg = (w & _U(0xFF)) == 45
    w = np.where(neg, w >> _U(8), w)
    up = 8 - np.clip(lengths - neg, 0, 8)
    w = w * _SHIFT[up] | (_ZEROS & _LOW[up])
    values = _eight_digits(w).astype(np.int64)
    np.negative(values, out=values, where=neg)
    for i in np.flatnonzero(~_digits_ok(w) | (lengths - neg < 1) | (lengths > 8)):
        x = _int_text(a[s[i] : e[i]].tobytes())
        if x is None:
            return None
        values[i] = x
    return values


def _floats(
    a: NDArray[np.uint8], s: NDArray[np.int64], e: NDArray[np.int64]
) -> NDArray[np.float64] | None:
    """Parse finite decimal numbers; None if any token is not one.

    ``-?digits[.digits]`` of at most 16 characters and 15 digits is converted in its words
    (one or two): the sign and the dot taken out and '0' appended, the 8k digits spell an
    integer m x 10^z (m < 10^15 its digits) which over 10^j gives the number. Both are exact
    doubles (m x 10^z's odd part is below 2^53), and IEEE division rounds correctly, so the
    result equals ``float(token)``. Other tokens (exponents, long mantissas) go through
    ``float()``."""
    lengths = e - s
    w = _words(a, s, e)[:, :2]
    k = w.shape[1]
    neg = (w[:, 0] & _U(0xFF)) == 45
    if neg.any():
        w[neg] = _down(w[neg])
    # Dots are the zero bytes of w ^ "........": z marks them (the lowest mark of a word is
    # exact; one above it may be wrong, which only sends the token to float()).
    x: NDArray[np.uint64] = w ^ _U(0x2E2E2E2E2E2E2E2E)
    z: NDArray[np.uint64] = (x - _ONES) & ~x & _U(0x8080808080808080)
    m: NDArray[np.uint64] = ((z & (~z + _U(1))) >> _U(7)) - _U(1)  # the bytes before a dot
    if k == 2:
        m[z[:, 0] != 0, 1] = 0  # the dot is in the first word
    d: NDArray[np.uint64] = (w & m) | (_down(w) & ~m)  # the dot taken out
    dots = _across(np.add, _byte_sum(z >> _U(7)))
    n = lengths - neg - (dots > 0)  # digits
    for j in range(k):
        d[:, j] |= _ZEROS & ~_LOW[np.clip(n - 8 * j, 0, 8)]
    digits = _eight_digits(d)
    mant = digits[:, 0] if k == 1 else digits[:, 0] * _U(10**8) + digits[:, 1]
    whole = np.minimum(_across(np.add, _byte_sum(m & _ONES)), n)  # digits before the dot
    out: NDArray[np.float64] = mant.astype(np.float64) / _POW10[8 * k - whole]
    np.negative(out, out=out, where=neg)
    simple = _across(np.logical_and, _digits_ok(d)) & (n >= 1) & (n <= _MAX_SIMPLE_DIGITS)
    simple &= (dots <= 1) & (lengths <= 16)
    for i in np.flatnonzero(~simple):
        f = _float_text(a[s[i] : e[i]].tobytes().decode("utf-8"))
        if f is None:
            return None
        out[i] = f
    return out


def _down(w: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """Each row of words moved down one byte (the next word's first byte into the top)."""
    d = w >> _U(8)
    d[:, :-1] |= w[:, 1:] << _U(56)
    return d


def _across(op: np.ufunc, x: NDArray[Any]) -> NDArray[Any]:
    """``op`` folded over the columns (numpy's reductions along a short axis 1 are slow)."""
    out = x[:, 0]
    for j in range(1, x.shape[1]):
        out = op(out, x[:, j])
    return out


def _byte_sum(w: NDArray[np.uint64]) -> NDArray[np.int64]:
    """The sum of each word's bytes (at most 255)."""
    return ((w * _ONES) >> _U(56)).astype(np.int64)


def _int_text(tok: bytes) -> int | None:
    """``int(tok)`` for ``-?[0-9]+`` of at most 18 characters, else None."""
    body = tok[1:] if tok.startswith(b"-") else tok
    return int(tok) if body.isdigit() and len(tok) <= 18 else None


def _float_text(text: str) -> float | None:
    """``float(text)`` for plain ASCII finite numbers (no '_', no nan/inf), else None."""
    if not text.isascii() or "_" in text:
        return None
    try:
        x = float(text)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


class _Interner:
    """Query ids → dense indices, in order of first appearance."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, qid: str) -> int:
        return self.index.setdefault(qid, len(self.index))

    def codes(self, heads: list[bytes], runs: NDArray[np.int64]) -> NDArray[np.int64]:
        index, put = self.index, self.index.setdefault  # __call__, inlined: one id per run
        codes = [put(h.decode("utf-8"), len(index)) for h in heads]
        return np.repeat(np.array(codes, dtype=np.int64), runs)


def _in_threads(blocks: Iterator[bytes], work: Callable[[bytes], _T]) -> Iterator[tuple[bytes, _T]]:
    """``work`` on each block in a small thread pool (numpy releases the GIL), results in file
    order, with at most a few blocks in memory."""
    with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
        pending: deque[tuple[bytes, Future[_T]]] = deque()
        for block in blocks:
            pending.append((block, pool.submit(work, block)))
            if len(pending) > _WORKERS:
                b, fut = pending.popleft()
                yield b, fut.result()
        while pending:
            b, fut = pending.popleft()
            yield b, fut.result()


def _check_line(path: str | Path, lineno: int, raw: bytes) -> list[bytes] | None:
    """Tokens of one line, None for blank and comment lines; raises on bad bytes."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FormatError(
            path, lineno, say("invalid UTF-8 at byte %(byte)s", byte=e.start + 1)
        ) from None
    if any(b in _CONTROL for b in raw):
        raise FormatError(path, lineno, say("control character in line"))
    toks = raw.split()
    if not toks or toks[0].startswith(b"#"):
        return None
    return toks


def _slow_lines(block: bytes, first_line: int) -> list[tuple[int, bytes]]:
    """The block's lines (without the padding) with their numbers."""
    lines = block[: len(block) - _BACK].split(b"\n")
    lines.pop()  # after the last newline
    return list(enumerate(lines, first_line))


def _parse_int(path: str | Path, lineno: int, what: str, tok: bytes) -> int:
    x = _int_text(tok)
    if x is None:
        text = tok.decode("utf-8")
        raise FormatError(
            path, lineno, say("%(what)s %(text)r is not an integer", what=what, text=text)
        )
    return x


def _parse_float(path: str | Path, lineno: int, what: str, tok: bytes) -> float:
    text = tok.decode("utf-8")
    x = _float_text(text)
    if x is None:
        raise FormatError(
            path, lineno, say("%(what)s %(text)r is not a finite number", what=what, text=text)
        )
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
    a, s, e = scanned
    grades = _ints(a, s[:, 3], e[:, 3])
    if grades is None:
        return None
    heads, runs = _heads(_words(a, s[:, 0], e[:, 0]))
    return _QrelsBlock(heads, runs, _as_bytes(_words(a, s[:, 2], e[:, 2])), grades)


def read_trec_qrels(path: str | Path) -> JudgmentColumns:
    """TREC qrels ``qid iter docno grade``; the second column is ignored, grades are integers
    (negative allowed, as trec_eval), (qid, docno) must be unique."""
    intern = _Interner()
    qidx: list[NDArray[np.int64]] = []
    ids: list[NDArray[np.bytes_]] = []
    grades: list[NDArray[np.int64]] = []
    lines: list[NDArray[np.int64]] = []
    first = 1
    for block, fast in _in_threads(_blocks(path), _fast_qrels):
        if fast is not None:
            qidx.append(intern.codes(fast.heads, fast.runs))
            ids.append(fast.ids)
            grades.append(fast.grades)
            lines.append(first + np.arange(len(fast.grades), dtype=np.int64))
            first += len(fast.grades)
            continue
        q: list[int] = []
        d: list[bytes] = []
        g: list[int] = []
        ln: list[int] = []
        numbered = _slow_lines(block, first)
        first += len(numbered)
        for lineno, raw in numbered:
            toks = _check_line(path, lineno, raw)
            if toks is None:
                continue
            if len(toks) != 4:
                msg = say(
                    "expected 4 columns (qid iter docno grade), found %(found)s", found=len(toks)
                )
                raise FormatError(path, lineno, msg)
            g.append(_parse_int(path, lineno, "grade", toks[3]))
            q.append(intern(toks[0].decode("utf-8")))
            d.append(toks[2])
            ln.append(lineno)
        qidx.append(np.array(q, dtype=np.int64))
        ids.append(bytes_array(d))
        grades.append(np.array(g, dtype=np.int64))
        lines.append(np.array(ln, dtype=np.int64))
    qrels = JudgmentColumns(
        query_ids=tuple(intern.index),
        qidx=_cat(qidx, np.int64),
        ids=_cat(ids, "S1"),
        grades=_cat(grades, np.int64),
    )
    if len(qrels.qidx) == 0:
        raise FormatError(path, 1, say("no judgments in file"))
    _check_unique(path, qrels, _cat(lines, np.int64))
    return qrels


def _check_unique(path: str | Path, qrels: JudgmentColumns, lines: NDArray[np.int64]) -> None:
    keys = pair_hash(qrels.qidx, qrels.ids)
    srt = np.sort(keys)  # the usual case, no two keys equal, decided by the faster sort
    if not bool((srt[1:] == srt[:-1]).any()):
        return
    del srt
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
        msg = say(
            ("duplicate judgment for query %(qid)r, docno %(doc)r (first on line %(first)s)"),
            qid=qid,
            doc=doc,
            first=first,
        )
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
    a, s, e = scanned
    ranks = _ints(a, s[:, 3], e[:, 3])
    scores = _floats(a, s[:, 4], e[:, 4]) if ranks is not None else None
    if ranks is None or scores is None:
        return None
    heads, runs = _heads(_words(a, s[:, 0], e[:, 0]))
    ids = _words(a, s[:, 2], e[:, 2])
    run_id = block[s[0, 5] : e[0, 5]].decode("utf-8")
    return _RunBlock(heads, runs, _as_bytes(ids), scores, ranks, hash_words(ids), run_id)


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
    size, seen_bytes, first = max(os.path.getsize(path), 1), 0, 1
    for block, fast in _in_threads(_blocks(path), _fast_run):
        if fast is not None:
            part = {
                "qidx": intern.codes(fast.heads, fast.runs),
                "ids": fast.ids,
                "scores": fast.scores,
                "ranks": fast.ranks,
                "hashes": fast.id_hash,
            }
            run_id = run_id or fast.run_id
            first += len(fast.ranks)
        else:
            q: list[int] = []
            d: list[bytes] = []
            sc: list[float] = []
            rk: list[int] = []
            numbered = _slow_lines(block, first)
            first += len(numbered)
            for lineno, raw in numbered:
                toks = _check_line(path, lineno, raw)
                if toks is None:
                    continue
                if len(toks) != 6:
                    msg = say(
                        "expected 6 columns (qid Q0 docno rank score runid), found %(found)s",
                        found=len(toks),
                    )
                    raise FormatError(path, lineno, msg)
                rk.append(_parse_int(path, lineno, "rank", toks[3]))
                sc.append(_parse_float(path, lineno, "score", toks[4]))
                q.append(intern(toks[0].decode("utf-8")))
                d.append(toks[2])
                run_id = run_id or toks[5].decode("utf-8")
            ids = bytes_array(d)
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
# Writers and trec_eval's order


# A character the readers refuse (`_CONTROL`), in a line being written: `\n` ends the line, and
# `\t` and `\r` inside an id already split it into too many tokens.
_CONTROL_IN_LINE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
# What a written qrels line may not hold besides its three spaces and its line end: every other
# character Python counts as whitespace (str.split would split on it) and every control
# character (tests/engine/test_formats.py checks this class against str.isspace).
_UNWRITABLE = re.compile(
    "[\x00-\x09\x0b-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
)


def _token(value: str, what: str) -> str:
    if (
        not value
        or any(c.isspace() for c in value)
        or _CONTROL_IN_LINE.search(value)
        or value.startswith("#")
    ):
        raise ValueError(f"{what} {value!r} cannot be written to a TREC file")
    return value


def trec_qrels_pieces(rows: Iterable[tuple[str, str, int]]) -> Iterator[str]:
    """``(qid, docno, grade)`` rows as ``qid 0 docno grade`` lines, in pieces of `PIECE_LINES`
    lines: the one qrels writer (exports stream it; a file or a string joins the pieces).

    Lines are checked whole, which is several times faster than checking each id: an id that a
    TREC file cannot hold (empty, with whitespace or NUL inside, or a qid starting with ``#``,
    which would make the line a comment, or with a control character, which the readers refuse)
    raises ValueError. A docno may start with ``#``."""
    buf: list[str] = []
    for qid, doc, grade in rows:
        buf.append(f"{qid} 0 {doc} {int(grade)}\n")
        if len(buf) >= PIECE_LINES:
            yield _trec_checked(buf)
            buf = []
    if buf:
        yield _trec_checked(buf)


def _trec_checked(lines: list[str]) -> str:
    """The lines joined, when each splits into the same four tokens on the three spaces it was
    written with as readers split it on any whitespace: no other whitespace (an id would lose
    it, or split in two), no empty id, no comment line, no control character the readers
    refuse. Checked on the whole text at once; the first bad line is named."""
    text = "".join(lines)
    if (
        text.count(" ") == 3 * len(lines)
        and text.count("\n") == len(lines)
        and "  " not in text
        and "\n " not in text
        and "\n#" not in text
        and text[:1] not in (" ", "#")
        and not _UNWRITABLE.search(text)
    ):
        return text
    for line in lines:
        body = line[:-1]
        if body.count(" ") != 3 or "  " in body or body[:1] in (" ", "#", "") or "\n" in body:
            raise ValueError(f"{line.rstrip()!r}: an id with whitespace cannot go in a TREC file")
        if _UNWRITABLE.search(body):
            what = "a control character" if _CONTROL_IN_LINE.search(body) else "whitespace"
            raise ValueError(f"{body!r}: an id with {what} cannot go in a TREC file")
    raise AssertionError("unreachable: some line failed the check")  # pragma: no cover


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
    every score is present and finite, and each (score, id) comes strictly before the next,
    scores compared in 32 bits as trec_eval holds them (a score that becomes infinite there
    counts as a tie with its like)."""
    if len(scores) < len(ids):
        return False
    if any(s is None or not math.isfinite(s) for s in scores[: len(ids)]):
        return False
    # Compared as trec_eval keeps them, in 32 bits (goldsmith.metrics.trec_eval_scores).
    kept = trec_eval_scores([s for s in scores[: len(ids)] if s is not None]).tolist()
    previous: tuple[float, bytes] | None = None
    for doc, score in zip(ids, kept, strict=True):
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


# --------------------------------------------------------------------------------------------
# Topics, and golden queries from qrels and topics


def one_line(text: str) -> str:
    """Whitespace runs (tabs, newlines) become one space: a topics line must stay one line."""
    return " ".join(text.split())


def topics_pieces(queries: Iterable[tuple[str, str]]) -> Iterator[str]:
    """``qid<TAB>query`` lines (the TSV topics format of Anserini and ir_datasets)."""
    buf: list[str] = []
    for qid, text in queries:
        buf.append(f"{qid}\t{one_line(text)}\n")
        if len(buf) >= PIECE_LINES:
            yield "".join(buf)
            buf = []
    if buf:
        yield "".join(buf)


def read_topics(path: str | Path) -> dict[str, str]:
    """Query texts by id from a TSV topics file (``qid<TAB>text``) or TREC SGML topics
    (``<top><num> Number: 1 <title> text</top>``)."""
    text = decode_utf8(path, Path(path).read_bytes())
    if text.lstrip().startswith("<"):
        topics: dict[str, str] = {}
        for block in re.findall(r"<top>(.*?)</top>", text, flags=re.S):
            num = re.search(r"<num>\s*(?:Number:)?\s*(\S+)", block)
            title = re.search(r"<title>\s*(?:Topic:)?\s*(.*?)\s*(?=<|$)", block, flags=re.S)
            if num is None or title is None:
                raise FormatError(path, 1, say("a <top> block without <num> or <title>"))
            topics[num.group(1)] = one_line(title.group(1))
        if not topics:
            raise FormatError(path, 1, say("no <top> blocks in SGML topics"))
        return topics
    topics = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        qid, sep, query = line.partition("\t")
        if not sep or not qid.strip():
            raise FormatError(path, lineno, say("expected qid<TAB>query"))
        if qid in topics:
            raise FormatError(path, lineno, say("query %(qid)r appears twice", qid=qid))
        topics[qid.strip()] = query.strip()
    if not topics:
        raise FormatError(path, 1, say("no topics in file"))
    return topics


def trec_queries(
    qrels_path: str | Path,
    topics_path: str | Path,
    *,
    grade_map: GradeMap | None = None,
    texts: dict[str, str] | None = None,
) -> list[GoldenQuery]:
    """Golden queries from TREC qrels and a topics file. Every judged query needs a topic;
    a topic without judgments is a golden query without a relevant chunk. `texts` gives chunk
    texts by id when a corpus came with the files."""
    topics = read_topics(topics_path)
    cols = read_trec_qrels(qrels_path)
    by_query: dict[str, list[GoldJudgment]] = {qid: [] for qid in topics}
    for i in range(len(cols.qidx)):
        qid = cols.query_ids[int(cols.qidx[i])]
        if qid not in topics:
            raise FormatError(
                topics_path,
                1,
                say("query %(qid)r of %(qrels_path)s has no topic", qid=qid, qrels_path=qrels_path),
            )
        cid = bytes(cols.ids[i]).decode("utf-8")
        grade = map_grade(qrels_path, i + 1, int(cols.grades[i]), grade_map)
        if grade is None:
            continue
        text = texts.get(cid) if texts is not None else None
        by_query[qid].append(GoldJudgment(chunk_id=cid, grade=grade, text=text))
    return [
        GoldenQuery(
            query_id=qid,
            query=topics[qid],
            judgments=tuple(sorted(js, key=judgment_order)),
        )
        for qid, js in by_query.items()
    ]
