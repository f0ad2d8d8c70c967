"""The native golden set (``goldsmith.goldset``, docs/formats.md and docs/goldsets.md): its
header and query lines, the reader, the writer, the content hash; what a golden set's grades,
splits and labels may be; its CSV export.

Pure module: numpy and the standard library, no Django. The web app, the management commands and
the `goldsmith` command call the same functions, so a file written from the browser equals the
one written on the command line. The writer is a generator of text in bounded pieces, so that an
export of any size streams with flat memory.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from goldsmith.answers.model import AnswerKey, AnswerType, KeyFact
from goldsmith.formats import FormatError, spreadsheets
from goldsmith.formats.common import bytes_array, dumps
from goldsmith.formats.jsonl import ANSWER_KEYS, LineCheck, answer_json, answer_key, json_lines
from goldsmith.metrics import JudgmentColumns
from goldsmith.text import say

GOLDSET_FORMAT = "goldsmith.goldset"
GOLDSET_FORMAT_VERSION = 1
LABEL_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")
GRADES = (0, 1, 2)


@dataclass(frozen=True)
class GoldsetHeader:
    """First line of a goldset file. ``content_hash`` is ``sha256:<hex>`` of the query lines
    (see :func:`goldset_content_hash`); ``extra`` keeps any other header keys.

    ``corpus_version`` and ``corpus_hash`` name the corpus the judgments were made on (the
    app's corpus version number and `goldsmith.corpus.corpus_hash` of its live chunks); they
    are written only when known, and the content hash does not cover them (it covers the
    queries only), so a version's hash is the same with or without them."""

    project: str
    label: str
    content_hash: str
    goldsmith_version: str = "0.1.0"
    format_version: int = GOLDSET_FORMAT_VERSION
    created_at: str | None = None
    query_count: int | None = None
    judgment_count: int | None = None
    corpus_version: int | None = None
    corpus_hash: str | None = None
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
        if self.corpus_version is not None:
            out["corpus_version"] = self.corpus_version
        if self.corpus_hash is not None:
            out["corpus_hash"] = self.corpus_hash
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
    # The answer fields beyond the reference answer (docs/formats.md): written, and hashed, only
    # when set, so a golden set without them keeps its bytes and its content hash.
    answer_type: AnswerType | None = None
    choices: tuple[str, ...] = ()
    reference_facts: tuple[KeyFact, ...] = ()
    # Further reference answers (``reference_answers`` in the file, the primary first).
    reference_alternatives: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = {
            "query_id": self.query_id,
            "query": self.query,
            "category": self.category,
            "stratum": self.stratum,
            "weight": self.weight,
            "split": self.split,
            "judgments": [j.to_json() for j in self.judgments],
            "reference_answer": self.reference_answer,
        }
        out.update(answer_json(self.answer_key()))
        return out

    def answer_key(self) -> AnswerKey:
        """What this query says about its answer, for the answer scorers."""
        return AnswerKey(
            query_id=self.query_id,
            reference_answer=self.reference_answer,
            answer_type=self.answer_type,
            choices=self.choices,
            facts=self.reference_facts,
            query=self.query,
            category=self.category,
            alternatives=self.reference_alternatives,
        )


@dataclass(frozen=True)
class GoldSet:
    header: GoldsetHeader
    queries: tuple[GoldenQuery, ...]


def judgment_order(j: GoldJudgment) -> tuple[int, str]:
    """How a frozen query lists its judgments: best grade first, then by chunk id."""
    return (-j.grade, j.chunk_id)


# A golden query as plain values, for bulk work (freezing 10 000 queries x 30 chunks builds
# no dataclass per judgment). A judgment row is
# (chunk_id, doc_id, start, end, text, grade, provenance).
JudgmentRow = tuple[str, str | None, int | None, int | None, str | None, int, str | None]


@dataclass(slots=True)
class QueryRecord:
    query_id: str
    query: str
    category: str | None
    stratum: str | None
    weight: float
    split: str | None
    reference_answer: str | None
    judgments: list[JudgmentRow]
    answer_type: str | None = None
    choices: tuple[str, ...] = ()
    reference_facts: tuple[KeyFact, ...] = ()
    reference_alternatives: tuple[str, ...] = ()

    @classmethod
    def of(cls, q: GoldenQuery) -> QueryRecord:
        return cls(
            q.query_id, q.query, q.category, q.stratum, q.weight, q.split, q.reference_answer,
            [(j.chunk_id, j.doc_id, j.start, j.end, j.text, j.grade, j.provenance)
             for j in q.judgments],
            q.answer_type, q.choices, q.reference_facts, q.reference_alternatives,
        )  # fmt: skip


def record_order(row: JudgmentRow) -> tuple[int, str]:
    """`judgment_order` for judgment rows: best grade first, then by chunk id."""
    return (-row[5], row[0])


# --------------------------------------------------------------------------------------------
# The content hash: one definition (docs/formats.md, "content_hash")

_CANONICAL = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _canonical_line(r: QueryRecord) -> bytes:
    """A query's canonical JSON and ``\\n``: every key of the query line (null for a missing
    value), keys sorted at every level, separators ``,`` and ``:``, no ASCII escaping, UTF-8.
    The objects are built with their keys already in sorted order, so no sort is needed.
    ``answer_type``, ``choices``, ``reference_facts`` and ``reference_answers`` (every reference,
    with further references only) are there only when set, so the hash of a golden set without
    them is the one it had before they existed."""
    obj: dict[str, Any] = {
        "category": r.category,
        "judgments": [
            {"chunk_id": c, "doc_id": d, "end": e, "grade": g, "provenance": p,
             "start": s, "text": t}
            for c, d, s, e, t, g, p in r.judgments
        ],
        "query": r.query,
        "query_id": r.query_id,
        "reference_answer": r.reference_answer,
        "split": r.split,
        "stratum": r.stratum,
        "weight": r.weight,
    }  # fmt: skip
    if r.answer_type is not None or r.choices or r.reference_facts or r.reference_alternatives:
        if r.reference_alternatives:
            if r.reference_answer is None:
                raise ValueError(f"query {r.query_id}: further references need a reference answer")
            obj["reference_answers"] = [r.reference_answer, *r.reference_alternatives]
        if r.answer_type is not None:
            obj["answer_type"] = r.answer_type
        if r.choices:
            obj["choices"] = list(r.choices)
        if r.reference_facts:
            obj["reference_facts"] = [
                {"chunk_ids": list(f.chunk_ids), "text": f.text} for f in r.reference_facts
            ]
        obj = {k: obj[k] for k in sorted(obj)}
    return _CANONICAL(obj).encode() + b"\n"


class StreamingHash:
    """The content hash of queries given one at a time in query_id order (as the writer emits
    them and a version stores them), so that a version of any size is hashed with flat memory.
    A query out of order, or given twice, raises ValueError."""

    def __init__(self) -> None:
        self._h = hashlib.sha256()
        self._last: str | None = None

    def add(self, q: GoldenQuery | QueryRecord) -> None:
        if self._last is not None and q.query_id <= self._last:
            raise ValueError(f"query {q.query_id!r} is out of order (after {self._last!r})")
        self._last = q.query_id
        self._h.update(_canonical_line(q if isinstance(q, QueryRecord) else QueryRecord.of(q)))

    def hexdigest(self) -> str:
        return "sha256:" + self._h.hexdigest()


def goldset_content_hash(queries: Iterable[GoldenQuery | QueryRecord]) -> str:
    """``sha256:`` + the hex digest of every query's canonical line, in query_id order.

    It depends on the queries only, not on the header, on key order or whitespace in a file, or
    on the order the queries come in, so equal content gives an equal hash. Query ids are unique
    (a repeated one raises ValueError). The freeze hashes plain rows (`QueryRecord`), readers
    and exports hash `GoldenQuery` objects: both go through the one canonical line."""
    h = StreamingHash()
    for q in sorted(queries, key=lambda q: q.query_id):
        h.add(q)
    return h.hexdigest()


# --------------------------------------------------------------------------------------------
# Reader


_CORPUS_HASH = re.compile(r"sha256:[0-9a-f]{64}").fullmatch
_CORPUS_KEYS = frozenset({"corpus_version", "corpus_hash"})
_HEADER_KEYS = {"goldsmith_version", "format", "format_version", "project", "label", "content_hash"}
_QUERY_KEYS = {
    "query_id", "query", "category", "stratum", "weight", "split", "judgments", *ANSWER_KEYS,
}  # fmt: skip
_JUDGMENT_KEYS = {"chunk_id", "doc_id", "start", "end", "grade", "provenance", "text"}


def iter_goldset(path: str | Path) -> Iterator[GoldsetHeader | GoldenQuery]:
    """Stream a goldset file: the header first, then each query (validated). The content hash
    is checked at the end (a mismatch is reported against line 1)."""
    lines = json_lines(path)
    first = next(lines, None)
    if first is None:
        raise FormatError(path, 1, say("empty file: expected a goldset header"))
    header = _header(LineCheck(path, first[0]), first[1])
    yield header
    seen: set[str] = set()
    qs: list[GoldenQuery] = []
    for lineno, value in lines:
        q = _query(LineCheck(path, lineno), value)
        if q.query_id in seen:
            raise FormatError(
                path, lineno, say("query %(query_id)r appears twice", query_id=q.query_id)
            )
        seen.add(q.query_id)
        qs.append(q)
        yield q
    if header.query_count is not None and header.query_count != len(qs):
        msg = say(
            "header says %(query_count)s queries, file has %(found)s",
            query_count=header.query_count,
            found=len(qs),
        )
        raise FormatError(path, first[0], msg)
    actual = goldset_content_hash(qs)
    if header.content_hash != actual:
        msg = say(
            ("content_hash %(content_hash)r does not match the queries (%(actual)s)"),
            content_hash=header.content_hash,
            actual=actual,
        )
        raise FormatError(path, first[0], msg)


def read_goldset(path: str | Path) -> GoldSet:
    items = iter(iter_goldset(path))
    header = next(items)
    assert isinstance(header, GoldsetHeader)
    return GoldSet(header, tuple(q for q in items if isinstance(q, GoldenQuery)))


def _header(chk: LineCheck, value: Any) -> GoldsetHeader:
    obj = chk.obj(value, "header")
    if obj.get("format") != GOLDSET_FORMAT:
        raise chk.fail(
            say(
                ('first line must be a header with "format": "%(format)s"'),
                format=GOLDSET_FORMAT,
            )
        )
    chk.keys(obj, _HEADER_KEYS, set(obj), "header")
    version = chk.int_(obj["format_version"], "format_version")
    if version != GOLDSET_FORMAT_VERSION:
        raise chk.fail(
            say("unsupported format_version %(version)s (this reader knows 1)", version=version)
        )
    known = _HEADER_KEYS | {
        "created_at", "query_count", "judgment_count", "corpus_version", "corpus_hash",
    }  # fmt: skip
    corpus_version = chk.opt_int(obj.get("corpus_version"), "corpus_version")
    if corpus_version is not None and corpus_version < 1:
        raise chk.fail(say("corpus_version must be a positive number"))
    corpus_hash = chk.opt_str(obj.get("corpus_hash"), "corpus_hash")
    if corpus_hash is not None and not _CORPUS_HASH(corpus_hash):
        raise chk.fail(say('corpus_hash must be "sha256:" and 64 hexadecimal digits'))
    return GoldsetHeader(
        project=chk.ident(obj["project"], "project"),
        label=chk.ident(obj["label"], "label"),
        content_hash=chk.ident(obj["content_hash"], "content_hash"),
        goldsmith_version=chk.ident(obj["goldsmith_version"], "goldsmith_version"),
        format_version=version,
        created_at=chk.opt_str(obj.get("created_at"), "created_at"),
        query_count=chk.opt_int(obj.get("query_count"), "query_count"),
        judgment_count=chk.opt_int(obj.get("judgment_count"), "judgment_count"),
        corpus_version=corpus_version,
        corpus_hash=corpus_hash,
        extra={k: v for k, v in obj.items() if k not in known},
    )


def _query(chk: LineCheck, value: Any) -> GoldenQuery:
    obj = chk.obj(value, "query line")
    chk.keys(obj, {"query_id", "query", "judgments"}, _QUERY_KEYS, "query line")
    qid = chk.ident(obj["query_id"], "query_id")
    query = obj["query"]
    if not isinstance(query, str):
        raise chk.fail(say("query must be a string"))
    weight = chk.number(obj.get("weight", 1.0), "weight")
    if weight <= 0:
        raise chk.fail(say("weight %(weight)s must be positive", weight=weight))
    judgments: list[GoldJudgment] = []
    chunks: set[str] = set()
    for i, item in enumerate(chk.array(obj["judgments"], "judgments")):
        what = f"judgments[{i}]"
        j = chk.obj(item, what)
        chk.keys(j, {"chunk_id", "grade"}, _JUDGMENT_KEYS, what)
        cid = chk.ident(j["chunk_id"], f"{what}.chunk_id")
        if cid in chunks:
            raise chk.fail(
                say("duplicate judgment for query %(qid)r, chunk %(cid)r", qid=qid, cid=cid)
            )
        chunks.add(cid)
        start = chk.opt_int(j.get("start"), f"{what}.start")
        end = chk.opt_int(j.get("end"), f"{what}.end")
        if start is not None and end is not None and not 0 <= start <= end:
            raise chk.fail(
                say(
                    "%(what)s: span %(start)s..%(end)s is not 0 <= start <= end",
                    what=what,
                    start=start,
                    end=end,
                )
            )
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
    key = answer_key(chk, {k: v for k, v in obj.items() if k in ANSWER_KEYS}, qid)
    for i, fact in enumerate(key.facts):
        for cid in fact.chunk_ids:
            if cid not in chunks:
                raise chk.fail(
                    f"reference_facts[{i}].chunk_ids: {cid!r} is not a judged chunk of "
                    f"query {qid!r}"
                )
    return GoldenQuery(
        query_id=qid,
        query=query,
        judgments=tuple(judgments),
        category=chk.opt_str(obj.get("category"), "category"),
        stratum=chk.opt_str(obj.get("stratum"), "stratum"),
        weight=weight,
        split=chk.opt_str(obj.get("split"), "split"),
        reference_answer=key.reference_answer,
        answer_type=key.answer_type,
        choices=key.choices,
        reference_facts=key.facts,
        reference_alternatives=key.alternatives,
    )


def goldset_answer_keys(gs: GoldSet) -> tuple[AnswerKey, ...]:
    """Every query's answer key (reference answer, type, choices, facts, text, category)."""
    return tuple(q.answer_key() for q in gs.queries)


def goldset_judgments(gs: GoldSet) -> JudgmentColumns:
    """Judgments of a golden set by chunk id; queries without judgments stay golden queries."""
    qids = tuple(q.query_id for q in gs.queries)
    counts = [len(q.judgments) for q in gs.queries]
    ids = [j.chunk_id.encode("utf-8") for q in gs.queries for j in q.judgments]
    return JudgmentColumns(
        query_ids=qids,
        qidx=np.repeat(np.arange(len(qids), dtype=np.int64), counts),
        ids=bytes_array(ids),
        grades=np.array([j.grade for q in gs.queries for j in q.judgments], dtype=np.int64),
    )


# --------------------------------------------------------------------------------------------
# Writers


def _sorted_json(value: Any) -> Any:
    """The same value with every mapping's keys in sorted order (recursively)."""
    if isinstance(value, dict):
        return {k: _sorted_json(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted_json(v) for v in value]
    return value


def header_line(header: dict[str, Any]) -> str:
    """The header line of a native file: the known keys in `GoldsetHeader` order, then every
    other key sorted (nested objects too). The order does not depend on how the header was
    stored (PostgreSQL's jsonb reorders keys), so a stored header is written byte-identically."""
    known = GoldsetHeader(
        project=header["project"],
        label=header["label"],
        content_hash=header["content_hash"],
        goldsmith_version=header.get("goldsmith_version", "0.1.0"),
        format_version=header.get("format_version", 1),
        created_at=header.get("created_at"),
        query_count=header.get("query_count"),
        judgment_count=header.get("judgment_count"),
        corpus_version=header.get("corpus_version"),
        corpus_hash=header.get("corpus_hash"),
    ).to_json()
    extra = {k: v for k, v in header.items() if k not in known and k not in _CORPUS_KEYS}
    return dumps({**known, **_sorted_json(extra)}) + "\n"


def goldset_lines(header: dict[str, Any], queries: Iterable[GoldenQuery]) -> Iterator[str]:
    """The native file: the header line, then one line per query in query_id order; the one
    writer of golden sets (exports stream it; a file or a string joins the pieces). `header`
    holds at least ``project``, ``label`` and the queries' ``content_hash``.

    Raises ValueError (mid-stream) if the queries are out of order or duplicated, because the
    file would then not match its own content hash."""
    yield header_line(header)
    last: str | None = None
    buf: list[str] = []
    for q in queries:
        if last is not None and q.query_id <= last:
            raise ValueError(f"query {q.query_id!r} is out of order (after {last!r})")
        last = q.query_id
        buf.append(dumps(q.to_json()) + "\n")
        if len(buf) >= 256:
            yield "".join(buf)
            buf = []
    if buf:
        yield "".join(buf)


# --------------------------------------------------------------------------------------------
# CSV, splits and grade maps


CSV_COLUMNS = [
    "query_id", "query", "category", "stratum", "weight", "split",
    "chunk_id", "doc_id", "start", "end", "grade", "provenance", "chunk_text",
]  # fmt: skip


def csv_rows(queries: Iterable[GoldenQuery]) -> Iterator[list[object]]:
    """One row per judgment; a query without judgments still gets one row (empty chunk)."""
    for q in queries:
        head = [q.query_id, q.query, q.category, q.stratum, q.weight, q.split]
        if not q.judgments:
            yield [*head, "", "", "", "", "", "", ""]
        for j in q.judgments:
            yield [*head, j.chunk_id, j.doc_id, j.start, j.end, j.grade, j.provenance, j.text]


def csv_pieces(queries: Iterable[GoldenQuery]) -> Iterator[str]:
    out = io.StringIO()
    writer = spreadsheets.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for n, row in enumerate(csv_rows(queries), 1):
        writer.writerow(row)
        if n % 2048 == 0:
            yield out.getvalue()
            out.seek(0)
            out.truncate()
    yield out.getvalue()


def split_for(query_id: str, *, seed: int, test_share: float) -> str:
    """``test`` or ``dev`` from a seeded hash of the query id: the same id, seed and share give
    the same split in every version."""
    digest = hashlib.sha256(f"goldsmith-split:{seed}:{query_id}".encode()).digest()
    fraction = int.from_bytes(digest[:8], "big") / 2**64
    return "test" if fraction < test_share else "dev"


GradeMap = dict[int, int | None]


def parse_grade_map(text: str) -> GradeMap:
    """``"1:2,2:2,3:1,4:1,-1:drop"`` → {1: 2, 2: 2, 3: 1, 4: 1, -1: None} (None = drop)."""
    out: GradeMap = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        raw, sep, to = part.partition(":")
        try:
            key = int(raw)
            value = None if to.strip().lower() == "drop" else int(to)
        except ValueError:
            raise ValueError(f"grade map entry {part!r} is not FROM:TO or FROM:drop") from None
        if not sep:
            raise ValueError(f"grade map entry {part!r} is not FROM:TO or FROM:drop")
        if value is not None and value not in GRADES:
            raise ValueError(f"grade map entry {part!r}: a grade is 0, 1 or 2")
        out[key] = value
    return out


def map_grade(path: str | Path, line: int, grade: int, grade_map: GradeMap | None) -> int | None:
    if grade_map is not None and grade in grade_map:
        return grade_map[grade]
    if grade not in GRADES:
        reason = say(
            "grade %(grade)s is not 0, 1 or 2; map it with --grade-map (e.g. 3:1,4:1,-1:drop)",
            grade=grade,
        )
        raise FormatError(path, line, reason)
    return grade
