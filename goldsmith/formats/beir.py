"""BEIR folders and zips: ``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv`` (and
Goldsmith's ``goldsmith.json``), read for import and written as a streamed zip for export; and the
Cranfield collection, whose SMART files become importer input or a BEIR folder (docs/goldsets.md).

Cranfield: `cran.all.1400` records (``.I``, ``.T``, ``.A``, ``.B``, ``.W``) become whole
documents (doc_id = the ``.I`` number, title = ``.T``, text = ``.W``, which already starts with
the title; authors and bibliography go to metadata). The empty documents 471 and 995 are kept
(with empty text), because 995 is judged for one query. `cran.qry` (CRLF line endings) becomes a
query log whose records carry their position (1..225), which is the qid used by `cranqrel`.

Pure module: the standard library, no Django. The zip is written as a generator of bytes in
bounded pieces, so that an export of any size streams with flat memory.
"""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goldsmith.formats import FormatError
from goldsmith.formats.common import PIECE_LINES, decode_utf8, dumps
from goldsmith.formats.goldset import (
    GoldenQuery,
    GoldJudgment,
    GradeMap,
    judgment_order,
    map_grade,
)
from goldsmith.intake.limits import UploadLimits, bounded_lines, zip_refusal
from goldsmith.text import say


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
# Reader


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
                raise FormatError(self.path, 1, say("not a zip file nor a BEIR folder")) from None
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
                raise FormatError(self.path, 1, say("no queries.jsonl in the zip"))
            self.prefix = hits[0][: -len("queries.jsonl")]
        elif not self.path.is_dir():
            raise FormatError(self.path, 1, say("no such file or folder"))

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
                    yield lineno, decode_utf8(where, raw, lineno)
        except (zipfile.BadZipFile, zlib.error, EOFError) as error:
            raise FormatError(
                where, lineno + 1, say("the zip is damaged: %(error)s", error=error)
            ) from None

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
            raise FormatError(
                bundle.where(name), lineno, say("invalid JSON: %(error)s", error=error)
            ) from None
        if not isinstance(obj, dict) or not isinstance(obj.get("_id"), str | int):
            raise FormatError(bundle.where(name), lineno, say('expected an object with "_id"'))
        yield lineno, obj


def _object(value: Any) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one (BEIR's ``metadata`` is optional)."""
    return value if isinstance(value, dict) else {}


def _opt(meta: dict[str, Any], key: str) -> str | None:
    """A text field of ``metadata``: a number is kept as its text (a version stores text, and
    its content hash is computed from what it stores); null, a missing key or any other value
    is None."""
    value = meta.get(key)
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


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
            raise FormatError(bundle.where("queries.jsonl"), 1, say("missing"))
        queries: dict[str, dict[str, Any]] = {}
        for lineno, obj in _jsonl(bundle, "queries.jsonl"):
            qid = str(obj["_id"])
            if qid in queries:
                raise FormatError(
                    bundle.where("queries.jsonl"), lineno, say("query %(qid)r twice", qid=qid)
                )
            queries[qid] = obj
        judged: dict[str, dict[str, int]] = {qid: {} for qid in queries}
        file_split: dict[str, str] = {}
        names = bundle.qrels_names()
        if not names:
            raise FormatError(bundle.where("qrels/test.tsv"), 1, say("no qrels/*.tsv file"))
        for name in names:
            split = Path(name).stem
            for lineno, line in bundle.lines(name):
                cells = line.rstrip("\r\n").split("\t")
                if lineno == 1 and cells[0] in ("query-id", "query_id", "qid"):
                    continue
                if not line.strip():
                    continue
                if len(cells) != 3:
                    msg = say("expected query-id<TAB>corpus-id<TAB>score")
                    raise FormatError(bundle.where(name), lineno, msg)
                qid, cid, raw = (c.strip() for c in cells)
                if qid not in judged:
                    msg = say("query %(qid)r is not in queries.jsonl", qid=qid)
                    raise FormatError(bundle.where(name), lineno, msg)
                try:
                    score = int(raw)
                except ValueError:
                    msg = say("score %(raw)r is not an integer", raw=raw)
                    raise FormatError(bundle.where(name), lineno, msg) from None
                grade = map_grade(bundle.where(name), lineno, score, grade_map)
                if grade is None:
                    continue
                if cid in judged[qid]:
                    msg = say(
                        "duplicate judgment for query %(qid)r, corpus-id %(cid)r", qid=qid, cid=cid
                    )
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
            meta = _object(obj.get("metadata"))
            how = _object(meta.get("provenance"))
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
            query_split = _opt(meta, "split") if "split" in meta else file_split.get(qid)
            out.append(
                GoldenQuery(
                    query_id=qid,
                    query=str(obj.get("text") or ""),
                    judgments=tuple(sorted(js, key=judgment_order)),
                    category=_opt(meta, "category"),
                    stratum=_opt(meta, "stratum"),
                    weight=float(weight) if isinstance(weight, int | float) else 1.0,
                    split=query_split,
                    reference_answer=_opt(meta, "reference_answer"),
                )
            )
        meta_json: dict[str, Any] = {}
        if bundle.exists("goldsmith.json"):
            text = "".join(line for _, line in bundle.lines("goldsmith.json"))
            try:
                meta_json = json.loads(text)
            except ValueError as error:  # JSONDecodeError, or an integer over the digit limit
                at = error.lineno if isinstance(error, json.JSONDecodeError) else 1
                raise FormatError(
                    bundle.where("goldsmith.json"), at, say("invalid JSON: %(error)s", error=error)
                ) from None
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
    meta = _object(obj.get("metadata"))
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


# --------------------------------------------------------------------------------------------
# Cranfield: its SMART files as importer input, and as a BEIR folder


_CRANFIELD_FIELDS = {".T": "title", ".A": "authors", ".B": "bibliography", ".W": "text"}


def _smart_records(path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """(``.I`` id, {field: text}) of each record of a SMART file."""
    current_id: str | None = None
    fields: dict[str, list[str]] = {}
    name: str | None = None
    with path.open(encoding="utf-8", newline=None) as handle:
        for raw in handle:
            line = raw.rstrip("\r\n")
            if line.startswith(".I "):
                if current_id is not None:
                    yield current_id, {k: " ".join(v).strip() for k, v in fields.items()}
                current_id, fields, name = line[3:].strip(), {}, None
            elif line.strip() in _CRANFIELD_FIELDS:
                name = _CRANFIELD_FIELDS[line.strip()]
                fields.setdefault(name, [])
            elif name is not None:
                fields[name].append(line.strip())
    if current_id is not None:
        yield current_id, {k: " ".join(v).strip() for k, v in fields.items()}


def cranfield_documents(path: Path) -> Iterator[dict[str, object]]:
    """Documents of `cran.all.1400` (or CISI.ALL) as the corpus importer reads them."""
    for doc_id, fields in _smart_records(path):
        yield {
            "doc_id": doc_id,
            "title": fields.get("title", ""),
            "text": fields.get("text", ""),
            "metadata": {
                "authors": fields.get("authors", ""),
                "bibliography": fields.get("bibliography", ""),
            },
        }


def cranfield_queries(path: Path) -> Iterator[dict[str, object]]:
    """Queries of `cran.qry` as the query-log importer reads them, with their position (qid)."""
    for position, (number, fields) in enumerate(_smart_records(path), 1):
        yield {
            "query": fields.get("text", ""),
            "category": "cranfield",
            "qid": position,
            "number": number,
        }


def cranfield_to_beir(src: str | Path, dst: str | Path) -> dict[str, int]:
    """Write the Cranfield SMART files of `src` as a BEIR folder `dst` with the *raw*
    Cleverdon grades (1..4, -1) in ``qrels/test.tsv``; import it with the grade map
    ``1:2,2:2,3:1,4:1,-1:drop`` (see the data's PROVENANCE.md). Query ids are positions in
    cran.qry (1..225), which is what cranqrel uses, not the ``.I`` numbers."""
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
                raise FormatError(src / "cranqrel", lineno, say("expected qid docid grade"))
            out.write("\t".join(cells) + "\n")
            counts["qrels"] += 1
    return counts
