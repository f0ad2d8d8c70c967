"""Golden-set files beyond the native reader: streaming writers, TREC/BEIR readers, diff.

Pure module: the standard library and `goldsmith.formats.core`, no Django. The web app, the
management commands and tests call the same functions, so a file written from the browser equals
the one written on the command line.

Writers are generators of text (or bytes for BEIR's zip) in bounded pieces, so that an export of
any size streams with flat memory:

- native JSONL (``goldsmith.goldset``, see docs/formats.md): :func:`goldset_lines`;
- TREC qrels ``qid 0 chunk_id grade`` (:func:`trec_qrels_pieces`) plus a topics file
  ``qid<TAB>query`` (:func:`topics_pieces`); qrels carry no comment line, because some readers
  (pytrec_eval among them) do not accept one, so the content hash travels in the topics file's
  sidecar ``.meta.json``, the file name and the HTTP header ``X-Goldsmith-Content-Hash``;
- BEIR: a zip with ``corpus.jsonl``, ``queries.jsonl``, ``qrels/test.tsv`` (and
  ``qrels/dev.tsv`` when the version has a dev/test split) and ``goldsmith.json``
  (:func:`beir_zip_pieces`);
- CSV, one row per judgment, with spreadsheet formulas neutralised (:func:`csv_pieces`, through
  :mod:`goldsmith.formats.spreadsheets`).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goldsmith.formats import spreadsheets
from goldsmith.formats.core import (
    GOLDSET_FORMAT,
    FormatError,
    GoldenQuery,
    GoldJudgment,
    GoldsetHeader,
    read_trec_qrels,
)
from goldsmith.intake.limits import UploadLimits, bounded_lines, zip_refusal

PIECE_LINES = 8192  # lines per yielded piece: big enough to be fast, small enough to be flat
LABEL_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")
GRADES = (0, 1, 2)

# --------------------------------------------------------------------------------------------
# Canonical pieces shared by writers and the app


def dumps(obj: Any) -> str:
    """One JSON line as `goldsmith.formats.core` writes it (UTF-8, no NaN)."""
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


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
    ).to_json()
    extra = {k: v for k, v in header.items() if k not in known}
    return dumps({**known, **_sorted_json(extra)}) + "\n"


def judgment_order(j: GoldJudgment) -> tuple[int, str]:
    """How a frozen query lists its judgments: best grade first, then by chunk id."""
    return (-j.grade, j.chunk_id)


class StreamingHash:
    """`goldset_content_hash` computed one query at a time; queries must come in query_id
    order (as the native writer emits them)."""

    def __init__(self) -> None:
        self._h = hashlib.sha256()
        self._last: str | None = None

    def add(self, q: GoldenQuery) -> None:
        if self._last is not None and q.query_id <= self._last:
            raise ValueError(f"query {q.query_id!r} is out of order (after {self._last!r})")
        self._last = q.query_id
        canonical = json.dumps(
            q.to_json(), sort_keys=True, ensure_ascii=False, separators=(",", ":")
        )
        self._h.update(canonical.encode() + b"\n")

    def hexdigest(self) -> str:
        return "sha256:" + self._h.hexdigest()


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

    @classmethod
    def of(cls, q: GoldenQuery) -> QueryRecord:
        return cls(
            q.query_id, q.query, q.category, q.stratum, q.weight, q.split, q.reference_answer,
            [(j.chunk_id, j.doc_id, j.start, j.end, j.text, j.grade, j.provenance)
             for j in q.judgments],
        )  # fmt: skip


def record_order(row: JudgmentRow) -> tuple[int, str]:
    """`judgment_order` for judgment rows: best grade first, then by chunk id."""
    return (-row[5], row[0])


_CANONICAL = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def records_content_hash(records: Iterable[QueryRecord]) -> str:
    """Exactly `goldsmith.formats.core.goldset_content_hash` of the same queries (a test holds the
    two equal on random data), computed without building GoldenQuery objects: the canonical
    objects are built with their keys already in sorted order, so no sort is needed."""
    h = hashlib.sha256()
    for r in sorted(records, key=lambda r: r.query_id):
        obj = {
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
        h.update(_CANONICAL(obj).encode() + b"\n")
    return "sha256:" + h.hexdigest()


# --------------------------------------------------------------------------------------------
# Writers (generators)


def goldset_lines(header: dict[str, Any], queries: Iterable[GoldenQuery]) -> Iterator[str]:
    """The native file: the header line, then one line per query in query_id order.

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


def trec_qrels_pieces(rows: Iterable[tuple[str, str, int]]) -> Iterator[str]:
    """``qid 0 chunk_id grade`` lines in pieces of `PIECE_LINES`: the bytes that
    `goldsmith.formats.core.write_trec_qrels` writes (a test holds them equal), checked a whole
    line at a time, which is several times faster than checking each id. An id that a TREC file
    cannot hold (whitespace inside, or a qid starting with ``#``) raises ValueError."""
    buf: list[str] = []
    for qid, doc, grade in rows:
        buf.append(f"{qid} 0 {doc} {int(grade)}\n")
        if len(buf) >= PIECE_LINES:
            yield _trec_checked(buf)
            buf = []
    if buf:
        yield _trec_checked(buf)


def _trec_checked(lines: list[str]) -> str:
    for line in lines:
        if len(line.split()) != 4 or line.startswith("#") or "\x00" in line:
            raise ValueError(f"{line.rstrip()!r}: an id with whitespace cannot go in a TREC file")
    return "".join(lines)


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


@dataclass(frozen=True)
class CorpusRow:
    """A chunk as BEIR lists it: ``_id``, ``title``, ``text``, with our span in metadata."""

    chunk_id: str
    text: str
    title: str = ""
    doc_id: str | None = None
    start: int | None = None
    end: int | None = None

    def to_beir(self) -> dict[str, Any]:
        meta = {"doc_id": self.doc_id, "start": self.start, "end": self.end}
        return {"_id": self.chunk_id, "title": self.title, "text": self.text, "metadata": meta}


def beir_query(q: GoldenQuery) -> dict[str, Any]:
    meta = {
        "category": q.category,
        "stratum": q.stratum,
        "weight": q.weight,
        "split": q.split,
        "reference_answer": q.reference_answer,
        # BEIR's qrels have no column for it; kept here so that an import loses nothing.
        "provenance": {j.chunk_id: j.provenance for j in q.judgments if j.provenance},
    }
    return {"_id": q.query_id, "text": q.query, "metadata": meta}


class _Sink(io.RawIOBase):
    """A write-only, unseekable byte sink that `zipfile` streams into; `take()` drains it."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        self._parts.append(bytes(b))
        return len(b)

    def take(self) -> bytes:
        out = b"".join(self._parts)
        self._parts = []
        return out


def beir_zip_pieces(
    *,
    root: str,
    corpus: Callable[[], Iterable[CorpusRow]],
    queries: Callable[[], Iterable[GoldenQuery]],
    qrels: Callable[[], Iterable[tuple[str, str, int, str | None]]],
    meta: dict[str, Any],
) -> Iterator[bytes]:
    """A BEIR zip, streamed: ``ROOT/corpus.jsonl``, ``ROOT/queries.jsonl``,
    ``ROOT/qrels/<split>.tsv`` (``query-id corpus-id score`` with a header line; rows go to
    ``dev.tsv`` when their query's split is ``dev``, else ``test.tsv``) and
    ``ROOT/goldsmith.json`` (label, content hash, counts). Each source is a callable so that it
    is read once, when its entry is written. `qrels` yields (qid, chunk_id, grade, split)."""
    sink = _Sink()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.comment = f"goldsmith {meta.get('label')} {meta.get('content_hash')}".encode()

        def entry(name: str, lines: Iterable[str]) -> Iterator[bytes]:
            with zf.open(f"{root}/{name}", "w", force_zip64=True) as handle:
                buf: list[str] = []
                for line in lines:
                    buf.append(line)
                    if len(buf) >= PIECE_LINES:
                        handle.write("".join(buf).encode())
                        buf = []
                        yield sink.take()
                handle.write("".join(buf).encode())
            yield sink.take()

        yield from entry("corpus.jsonl", (dumps(r.to_beir()) + "\n" for r in corpus()))
        yield from entry("queries.jsonl", (dumps(beir_query(q)) + "\n" for q in queries()))
        dev: list[str] = []

        def test_rows() -> Iterator[str]:
            yield "query-id\tcorpus-id\tscore\n"
            for qid, cid, grade, split in qrels():
                line = f"{qid}\t{cid}\t{int(grade)}\n"
                if split == "dev":
                    dev.append(line)  # dev rows are the minority; kept until test.tsv is done
                else:
                    yield line

        yield from entry("qrels/test.tsv", test_rows())
        if dev:
            yield from entry("qrels/dev.tsv", ["query-id\tcorpus-id\tscore\n", *dev])
        yield from entry("goldsmith.json", [json.dumps(meta, indent=2, sort_keys=True) + "\n"])
    yield sink.take()


# --------------------------------------------------------------------------------------------
# Splits


def split_for(query_id: str, *, seed: int, test_share: float) -> str:
    """``test`` or ``dev`` from a seeded hash of the query id: the same id, seed and share give
    the same split in every version."""
    digest = hashlib.sha256(f"goldsmith-split:{seed}:{query_id}".encode()).digest()
    fraction = int.from_bytes(digest[:8], "big") / 2**64
    return "test" if fraction < test_share else "dev"


# --------------------------------------------------------------------------------------------
# Readers for import


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
        hint = "; map it with --grade-map (e.g. 3:1,4:1,-1:drop)"
        raise FormatError(path, line, f"grade {grade} is not 0, 1 or 2{hint}")
    return grade


def _utf8(where: str | Path, data: bytes, first_line: int = 1) -> str:
    """`data` decoded; invalid UTF-8 is a FormatError naming its line and byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = first_line + data.count(b"\n", 0, e.start)
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise FormatError(where, line, f"invalid UTF-8 at byte {column}") from None


def read_topics(path: str | Path) -> dict[str, str]:
    """Query texts by id from a TSV topics file (``qid<TAB>text``) or TREC SGML topics
    (``<top><num> Number: 1 <title> text</top>``)."""
    text = _utf8(path, Path(path).read_bytes())
    if text.lstrip().startswith("<"):
        topics: dict[str, str] = {}
        for block in re.findall(r"<top>(.*?)</top>", text, flags=re.S):
            num = re.search(r"<num>\s*(?:Number:)?\s*(\S+)", block)
            title = re.search(r"<title>\s*(?:Topic:)?\s*(.*?)\s*(?=<|$)", block, flags=re.S)
            if num is None or title is None:
                raise FormatError(path, 1, "a <top> block without <num> or <title>")
            topics[num.group(1)] = one_line(title.group(1))
        if not topics:
            raise FormatError(path, 1, "no <top> blocks in SGML topics")
        return topics
    topics = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        qid, sep, query = line.partition("\t")
        if not sep or not qid.strip():
            raise FormatError(path, lineno, "expected qid<TAB>query")
        if qid in topics:
            raise FormatError(path, lineno, f"query {qid!r} appears twice")
        topics[qid.strip()] = query.strip()
    if not topics:
        raise FormatError(path, 1, "no topics in file")
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
            raise FormatError(topics_path, 1, f"query {qid!r} of {qrels_path} has no topic")
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


class _Bundle:
    """A BEIR folder or zip: open the named member wherever it lies (a zip may have one
    top-level folder). A zip is checked from its directory first (`zip_refusal`)."""

    def __init__(self, path: str | Path, limits: UploadLimits | None = None) -> None:
        self.path = Path(path)
        self.limits = limits or UploadLimits()
        self.zip: zipfile.ZipFile | None = None
        self.prefix = ""
        if self.path.is_file():
            try:
                self.zip = zipfile.ZipFile(self.path)
            except zipfile.BadZipFile:
                raise FormatError(self.path, 1, "not a zip file nor a BEIR folder") from None
            names = self.zip.namelist()
            hits = [n for n in names if n == "queries.jsonl" or n.endswith("/queries.jsonl")]
            refused = zip_refusal(self.zip, self.limits)
            if refused is None and len(hits) > 1:
                refused = (
                    hits[1],
                    f"a second queries.jsonl (after {hits[0]!r}): one BEIR set per zip",
                )
            if refused is not None:
                self.zip.close()
                raise FormatError(f"{self.path}:{refused[0]}", 1, refused[1])
            if not hits:
                raise FormatError(self.path, 1, "no queries.jsonl in the zip")
            self.prefix = hits[0][: -len("queries.jsonl")]
        elif not self.path.is_dir():
            raise FormatError(self.path, 1, "no such file or folder")

    def where(self, name: str) -> str:
        return f"{self.path}:{name}" if self.zip else str(self.path / name)

    def exists(self, name: str) -> bool:
        if self.zip is not None:
            return self.prefix + name in self.zip.namelist()
        return (self.path / name).exists()

    def qrels_names(self) -> list[str]:
        if self.zip is not None:
            prefix = self.prefix + "qrels/"
            return sorted(
                n[len(self.prefix) :]
                for n in self.zip.namelist()
                if n.startswith(prefix) and n.endswith(".tsv")
            )
        folder = self.path / "qrels"
        return sorted(f"qrels/{p.name}" for p in folder.glob("*.tsv")) if folder.is_dir() else []

    def lines(self, name: str) -> Iterator[tuple[int, str]]:
        """(line number, text) of each line of member `name`; invalid UTF-8, a line longer than
        the line limit (read no further) and a damaged member are a FormatError naming the
        member and the line (``beir.zip:qrels/test.tsv:3``)."""
        handle = self.zip.open(self.prefix + name) if self.zip else (self.path / name).open("rb")
        where = self.where(name)

        def fail(line: int, reason: str) -> FormatError:
            return FormatError(where, line, reason)

        lineno = 0
        try:
            with handle:
                lines = bounded_lines(handle, self.limits.max_line_bytes, fail)
                for lineno, raw in enumerate(lines, 1):
                    yield lineno, _utf8(where, raw, lineno)
        except (zipfile.BadZipFile, zlib.error, EOFError) as error:
            raise FormatError(where, lineno + 1, f"the zip is damaged: {error}") from None

    def close(self) -> None:
        if self.zip is not None:
            self.zip.close()


def _jsonl(bundle: _Bundle, name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for lineno, line in bundle.lines(name):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as error:
            raise FormatError(bundle.where(name), lineno, f"invalid JSON: {error}") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("_id"), str | int):
            raise FormatError(bundle.where(name), lineno, 'expected an object with "_id"')
        yield lineno, obj


def _opt(meta: dict[str, Any], key: str) -> Any:
    value = meta.get(key)
    return value if value is not None else None


@dataclass
class BeirBundle:
    """What a BEIR folder or zip holds, read for import."""

    queries: list[GoldenQuery]
    corpus_rows: Callable[[], Iterator[CorpusRow]] | None
    meta: dict[str, Any] = field(default_factory=dict)


def read_beir(
    path: str | Path, *, grade_map: GradeMap | None = None, limits: UploadLimits | None = None
) -> BeirBundle:
    """Queries with their judgments from ``queries.jsonl`` and every ``qrels/*.tsv`` (a query's
    split is its metadata's ``split``, else the qrels file's name: ``test``, ``dev``, ...),
    chunk texts from ``corpus.jsonl`` when present. Queries listed without judgments are kept
    as golden queries without a relevant chunk. `limits` bound what is read (a zip is checked
    from its directory before anything is unpacked, and no line of a member is read further
    than the line limit)."""
    bundle = _Bundle(path, limits)
    try:
        if not bundle.exists("queries.jsonl"):
            raise FormatError(bundle.where("queries.jsonl"), 1, "missing")
        queries: dict[str, dict[str, Any]] = {}
        for lineno, obj in _jsonl(bundle, "queries.jsonl"):
            qid = str(obj["_id"])
            if qid in queries:
                raise FormatError(bundle.where("queries.jsonl"), lineno, f"query {qid!r} twice")
            queries[qid] = obj
        judged: dict[str, dict[str, int]] = {qid: {} for qid in queries}
        file_split: dict[str, str] = {}
        names = bundle.qrels_names()
        if not names:
            raise FormatError(bundle.where("qrels/test.tsv"), 1, "no qrels/*.tsv file")
        for name in names:
            split = Path(name).stem
            for lineno, line in bundle.lines(name):
                cells = line.rstrip("\r\n").split("\t")
                if lineno == 1 and cells[0] in ("query-id", "query_id", "qid"):
                    continue
                if not line.strip():
                    continue
                if len(cells) != 3:
                    msg = "expected query-id<TAB>corpus-id<TAB>score"
                    raise FormatError(bundle.where(name), lineno, msg)
                qid, cid, raw = (c.strip() for c in cells)
                if qid not in judged:
                    msg = f"query {qid!r} is not in queries.jsonl"
                    raise FormatError(bundle.where(name), lineno, msg)
                try:
                    score = int(raw)
                except ValueError:
                    msg = f"score {raw!r} is not an integer"
                    raise FormatError(bundle.where(name), lineno, msg) from None
                grade = map_grade(bundle.where(name), lineno, score, grade_map)
                if grade is None:
                    continue
                if cid in judged[qid]:
                    msg = f"duplicate judgment for query {qid!r}, corpus-id {cid!r}"
                    raise FormatError(bundle.where(name), lineno, msg)
                judged[qid][cid] = grade
                file_split.setdefault(qid, split)
        wanted = {cid for js in judged.values() for cid in js}
        chunks: dict[str, CorpusRow] = {}
        has_corpus = bundle.exists("corpus.jsonl")
        if has_corpus:
            for row in _corpus_rows(bundle):
                if row.chunk_id in wanted:
                    chunks[row.chunk_id] = row
        out: list[GoldenQuery] = []
        for qid, obj in queries.items():
            meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
            how = meta.get("provenance") if isinstance(meta.get("provenance"), dict) else {}
            js = [
                GoldJudgment(
                    chunk_id=cid,
                    grade=grade,
                    doc_id=chunks[cid].doc_id if cid in chunks else None,
                    start=chunks[cid].start if cid in chunks else None,
                    end=chunks[cid].end if cid in chunks else None,
                    text=chunks[cid].text if cid in chunks else None,
                    provenance=how.get(cid) if isinstance(how.get(cid), str) else None,
                )
                for cid, grade in judged[qid].items()
            ]
            weight = meta.get("weight")
            split = meta.get("split") if "split" in meta else file_split.get(qid)
            out.append(
                GoldenQuery(
                    query_id=qid,
                    query=str(obj.get("text") or ""),
                    judgments=tuple(sorted(js, key=judgment_order)),
                    category=_opt(meta, "category"),
                    stratum=_opt(meta, "stratum"),
                    weight=float(weight) if isinstance(weight, int | float) else 1.0,
                    split=split,
                    reference_answer=_opt(meta, "reference_answer"),
                )
            )
        meta_json: dict[str, Any] = {}
        if bundle.exists("goldsmith.json"):
            text = "".join(line for _, line in bundle.lines("goldsmith.json"))
            try:
                meta_json = json.loads(text)
            except ValueError as error:
                where, line = bundle.where("goldsmith.json"), getattr(error, "lineno", 1)
                raise FormatError(where, line, f"invalid JSON: {error}") from None
    finally:
        bundle.close()

    def corpus() -> Iterator[CorpusRow]:
        again = _Bundle(path, limits)
        try:
            yield from _corpus_rows(again)
        finally:
            again.close()

    return BeirBundle(queries=out, corpus_rows=corpus if has_corpus else None, meta=meta_json)


def _corpus_row(obj: dict[str, Any]) -> CorpusRow:
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    start, end = meta.get("start"), meta.get("end")
    return CorpusRow(
        chunk_id=str(obj["_id"]),
        text=str(obj.get("text") or ""),
        title=str(obj.get("title") or ""),
        doc_id=str(meta["doc_id"]) if meta.get("doc_id") is not None else None,
        start=start if isinstance(start, int) else None,
        end=end if isinstance(end, int) else None,
    )


def _corpus_rows(bundle: _Bundle) -> Iterator[CorpusRow]:
    for _lineno, obj in _jsonl(bundle, "corpus.jsonl"):
        yield _corpus_row(obj)


def read_corpus_jsonl(
    path: str | Path, *, limits: UploadLimits | None = None
) -> Iterator[CorpusRow]:
    """A BEIR-style ``corpus.jsonl`` given on its own (for TREC or native imports)."""
    p = Path(path)
    bundle = _Bundle(p.parent, limits)
    for _lineno, obj in _jsonl(bundle, p.name):
        yield _corpus_row(obj)


def is_native_header(obj: object) -> bool:
    return isinstance(obj, dict) and obj.get("format") == GOLDSET_FORMAT


# --------------------------------------------------------------------------------------------
# Cranfield → BEIR (adapter over goldsmith.formats.cranfield)


def cranfield_to_beir(src: str | Path, dst: str | Path) -> dict[str, int]:
    """Write the Cranfield SMART files of `src` as a BEIR folder `dst` with the *raw*
    Cleverdon grades (1..4, -1) in ``qrels/test.tsv``; import it with the grade map
    ``1:2,2:2,3:1,4:1,-1:drop`` (see the data's PROVENANCE.md). Query ids are positions in
    cran.qry (1..225), which is what cranqrel uses, not the ``.I`` numbers."""
    from goldsmith.formats.cranfield import cranfield_documents, cranfield_queries

    src, dst = Path(src), Path(dst)
    (dst / "qrels").mkdir(parents=True, exist_ok=True)
    counts = {"documents": 0, "queries": 0, "qrels": 0}
    with (dst / "corpus.jsonl").open("w", encoding="utf-8") as out:
        for doc in cranfield_documents(src / "cran.all.1400"):
            row = CorpusRow(
                chunk_id=str(doc["doc_id"]),
                text=str(doc["text"]),
                title=str(doc["title"]),
                doc_id=str(doc["doc_id"]),
            )
            out.write(dumps(row.to_beir()) + "\n")
            counts["documents"] += 1
    with (dst / "queries.jsonl").open("w", encoding="utf-8") as out:
        for q in cranfield_queries(src / "cran.qry"):
            meta = {"category": q["category"], "number": q["number"]}
            out.write(dumps({"_id": str(q["qid"]), "text": q["query"], "metadata": meta}) + "\n")
            counts["queries"] += 1
    with (dst / "qrels" / "test.tsv").open("w", encoding="utf-8") as out:
        out.write("query-id\tcorpus-id\tscore\n")
        for lineno, line in enumerate((src / "cranqrel").read_text().splitlines(), 1):
            cells = line.split()
            if not cells:
                continue
            if len(cells) != 3:
                raise FormatError(src / "cranqrel", lineno, "expected qid docid grade")
            out.write("\t".join(cells) + "\n")
            counts["qrels"] += 1
    return counts


# --------------------------------------------------------------------------------------------
# Diff


@dataclass(frozen=True)
class GradeChange:
    query_id: str
    chunk_id: str
    old: int
    new: int


@dataclass
class GoldsetDiff:
    """What changed from version A to version B."""

    added_queries: list[str] = field(default_factory=list)
    removed_queries: list[str] = field(default_factory=list)
    changed_text: list[str] = field(default_factory=list)
    changed_grades: list[GradeChange] = field(default_factory=list)
    added_judgments: list[tuple[str, str, int]] = field(default_factory=list)
    removed_judgments: list[tuple[str, str, int]] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)

    @property
    def unchanged(self) -> bool:
        return not (
            self.added_queries
            or self.removed_queries
            or self.changed_text
            or self.changed_grades
            or self.added_judgments
            or self.removed_judgments
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "added_queries": self.added_queries,
            "removed_queries": self.removed_queries,
            "changed_text": self.changed_text,
            "changed_grades": [
                {"query_id": c.query_id, "chunk_id": c.chunk_id, "old": c.old, "new": c.new}
                for c in self.changed_grades
            ],
            "added_judgments": [
                {"query_id": q, "chunk_id": c, "grade": g} for q, c, g in self.added_judgments
            ],
            "removed_judgments": [
                {"query_id": q, "chunk_id": c, "grade": g} for q, c, g in self.removed_judgments
            ],
            "totals": self.totals,
        }


def goldset_diff(
    a_queries: dict[str, str],
    a_rows: Iterable[tuple[str, str, int]],
    b_queries: dict[str, str],
    b_rows: Iterable[tuple[str, str, int]],
) -> GoldsetDiff:
    """Diff of two versions given their queries (id → text) and judgments (qid, chunk, grade).

    Judgments of queries only in one version count as added/removed with their query, not
    again as added/removed judgments; grade changes are per (query, chunk) of common queries."""
    a = {(q, c): g for q, c, g in a_rows}
    b = {(q, c): g for q, c, g in b_rows}
    d = GoldsetDiff()
    d.added_queries = sorted(set(b_queries) - set(a_queries))
    d.removed_queries = sorted(set(a_queries) - set(b_queries))
    common = set(a_queries) & set(b_queries)
    d.changed_text = sorted(q for q in common if a_queries[q] != b_queries[q])
    for key in sorted(set(a) | set(b)):
        if key[0] not in common:
            continue
        old, new = a.get(key), b.get(key)
        if old is None and new is not None:
            d.added_judgments.append((key[0], key[1], new))
        elif new is None and old is not None:
            d.removed_judgments.append((key[0], key[1], old))
        elif old is not None and new is not None and old != new:
            d.changed_grades.append(GradeChange(key[0], key[1], old, new))
    d.totals = {
        "queries_a": len(a_queries),
        "queries_b": len(b_queries),
        "judgments_a": len(a),
        "judgments_b": len(b),
        "relevant_a": sum(1 for g in a.values() if g >= 2),
        "relevant_b": sum(1 for g in b.values() if g >= 2),
        "queries_added": len(d.added_queries),
        "queries_removed": len(d.removed_queries),
        "queries_text_changed": len(d.changed_text),
        "grades_changed": len(d.changed_grades),
        "judgments_added": len(d.added_judgments),
        "judgments_removed": len(d.removed_judgments),
    }
    return d


def diff_text(diff: GoldsetDiff, a_name: str, b_name: str, limit: int = 200) -> Iterator[str]:
    """The diff as lines for a terminal (at most `limit` detail lines per kind)."""
    t = diff.totals
    yield f"{a_name} → {b_name}"
    yield (
        f"queries: {t['queries_a']} → {t['queries_b']} "
        f"(+{t['queries_added']} added, -{t['queries_removed']} removed, "
        f"{t['queries_text_changed']} text changed)"
    )
    yield (
        f"judgments: {t['judgments_a']} → {t['judgments_b']} "
        f"(+{t['judgments_added']} added, -{t['judgments_removed']} removed, "
        f"{t['grades_changed']} grades changed); relevant (grade 2): "
        f"{t['relevant_a']} → {t['relevant_b']}"
    )
    for qid in diff.added_queries[:limit]:
        yield f"+ query {qid}"
    for qid in diff.removed_queries[:limit]:
        yield f"- query {qid}"
    for qid in diff.changed_text[:limit]:
        yield f"~ query {qid}: text changed"
    for c in diff.changed_grades[:limit]:
        yield f"~ {c.query_id} {c.chunk_id}: grade {c.old} → {c.new}"
    for q, c, g in diff.added_judgments[:limit]:
        yield f"+ {q} {c}: grade {g}"
    for q, c, g in diff.removed_judgments[:limit]:
        yield f"- {q} {c}: grade {g}"
