"""CMRC 2018 (SQuAD-style JSON) as a Chinese RAG collection: a chunked corpus, a query set and
a golden set judged by answer span (docs/formats.md, "CMRC 2018 as a RAG collection").

The file holds Wikipedia paragraphs (``data[].paragraphs[].context``), each with questions
(``qas[].question``, ``qas[].id``) and up to three human answers (``answers[].text`` at
character offset ``answers[].answer_start``). Here:

- **Corpus.** Each paragraph is one document (``doc_id`` = the paragraph's id, ``title`` = its
  article's), chunked by :func:`goldsmith.intake.chunking.chunk_text` (Chinese sentence ends);
  every chunk keeps its offsets, so ``context[start:end] == text``. Chunk ids are
  ``DOC#POSITION``.
- **Answer spans.** An answer is located at its ``answer_start`` when the text is there; else
  at the occurrence of its text in the paragraph nearest to ``answer_start`` (the file has a
  few offsets that are off); an answer whose text is not in its paragraph is left out and
  counted. A question with no located answer is left out and counted.
- **Grades.** A chunk of the question's paragraph that holds a located answer span whole is
  relevant (2); one that holds only part of a span is partially relevant (1); the paragraph's
  other chunks are judged not relevant (0). Chunks of other paragraphs are unjudged.
- **Answers.** ``reference_answer`` is the first located human answer; ``reference_answers``
  lists every distinct located human answer, the first first (for the golden-set format's
  several references); one key fact, the first answer, linked to the chunks holding its span
  whole, so context recall asks whether that chunk was given to the model. The answer type is
  ``number`` when the first answer is one number (with a unit, or a Chinese year such as
  ``1420年``), ``date`` when it is one date with its month, else open (no type).

Pure module (the standard library and the engine). Bad input raises FormatError naming the
file and the JSON path of the field at fault (line 1: the file is one JSON document).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from goldsmith.answers import values
from goldsmith.answers.model import AnswerType, KeyFact
from goldsmith.formats import FormatError
from goldsmith.formats.common import dumps
from goldsmith.formats.goldset import GoldenQuery, GoldJudgment, goldset_content_hash, header_line
from goldsmith.intake.chunking import chunk_text

DEFAULT_MAX_CHARS = 200
DEFAULT_OVERLAP = 30


@dataclass(frozen=True)
class Chunk:
    id: str
    doc_id: str
    title: str
    position: int
    start: int
    end: int
    text: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "doc_id": self.doc_id,
            "title": self.title,
            "position": self.position,
            "start": self.start,
            "end": self.end,
            "text": self.text,
        }


@dataclass
class Collection:
    """What one CMRC 2018 file becomes. ``golden`` in query id order; ``reference_answers``
    maps a query id to its distinct human answers (the first is ``reference_answer``)."""

    chunks: list[Chunk] = field(default_factory=list)
    golden: list[GoldenQuery] = field(default_factory=list)
    reference_answers: dict[str, tuple[str, ...]] = field(default_factory=dict)
    answers_not_found: int = 0
    questions_left_out: int = 0


def _load(path: Path) -> list[dict[str, Any]]:
    try:
        doc = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as e:
        raise FormatError(path, 1, f"invalid UTF-8 at byte {e.start + 1}") from None
    except ValueError as e:
        raise FormatError(path, 1, f"not JSON: {e}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("data"), list):
        raise FormatError(path, 1, "expected an object with a 'data' list (SQuAD-style JSON)")
    data: list[dict[str, Any]] = doc["data"]
    return data


def _str(path: Path, value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise FormatError(path, 1, f"{where} must be a non-empty string")
    return value


def _located(context: str, text: str, start: Any) -> int | None:
    """Where ``text`` is in ``context``: at ``start`` when it is there, else its occurrence
    nearest to ``start``; None when it is not in the paragraph."""
    if isinstance(start, int) and context[start : start + len(text)] == text:
        return start
    near = start if isinstance(start, int) else 0
    best: int | None = None
    at = context.find(text)
    while at >= 0:
        if best is None or abs(at - near) < abs(best - near):
            best = at
        at = context.find(text, at + 1)
    return best


def _answer_type(answer: str) -> AnswerType | None:
    text = answer.strip()
    numbers = values.number_answer(text)
    if len(numbers) == 1 and numbers[0].surface.strip() == text:
        return "number"
    found = values.dates(text)
    if len(found) == 1 and found[0].surface == text and found[0].readings[0][1] is not None:
        return "date"
    return None


def cmrc2018_collection(
    path: str | Path, *, max_chars: int = DEFAULT_MAX_CHARS, overlap: int = DEFAULT_OVERLAP
) -> Collection:
    """The corpus, golden queries and reference answers of the CMRC 2018 file at ``path``
    (see the module docstring)."""
    path = Path(path)
    out = Collection()
    golden: list[GoldenQuery] = []
    seen_docs: set[str] = set()
    seen_queries: set[str] = set()
    for a, article in enumerate(_load(path)):
        where = f"data[{a}]"
        if not isinstance(article, dict) or not isinstance(article.get("paragraphs"), list):
            raise FormatError(path, 1, f"{where} must be an object with a 'paragraphs' list")
        title = article["title"] if isinstance(article.get("title"), str) else ""
        for p, para in enumerate(article["paragraphs"]):
            pw = f"{where}.paragraphs[{p}]"
            if not isinstance(para, dict):
                raise FormatError(path, 1, f"{pw} must be an object")
            doc = _str(path, para.get("id"), f"{pw}.id")
            if doc in seen_docs:
                raise FormatError(path, 1, f"{pw}.id {doc!r} appears twice")
            seen_docs.add(doc)
            context = _str(path, para.get("context"), f"{pw}.context")
            spans = chunk_text(context, max_chars=max_chars, overlap=overlap)
            chunks = [
                Chunk(f"{doc}#{i}", doc, title, i, s.start, s.end, s.text)
                for i, s in enumerate(spans)
            ]
            out.chunks.extend(chunks)
            qas = para.get("qas", [])
            if not isinstance(qas, list):
                raise FormatError(path, 1, f"{pw}.qas must be a list")
            for n, qa in enumerate(qas):
                qw = f"{pw}.qas[{n}]"
                if not isinstance(qa, dict):
                    raise FormatError(path, 1, f"{qw} must be an object")
                qid = _str(path, qa.get("id"), f"{qw}.id")
                if qid in seen_queries:
                    raise FormatError(path, 1, f"{qw}.id {qid!r} appears twice")
                seen_queries.add(qid)
                question = _str(path, qa.get("question"), f"{qw}.question")
                answers = qa.get("answers")
                if not isinstance(answers, list):
                    raise FormatError(path, 1, f"{qw}.answers must be a list")
                located: list[tuple[str, int]] = []
                for i, ans in enumerate(answers):
                    if not isinstance(ans, dict):
                        raise FormatError(path, 1, f"{qw}.answers[{i}] must be an object")
                    text = _str(path, ans.get("text"), f"{qw}.answers[{i}].text")
                    at = _located(context, text, ans.get("answer_start"))
                    if at is None:
                        out.answers_not_found += 1
                    else:
                        located.append((text, at))
                if not located:
                    out.questions_left_out += 1
                    continue
                golden.append(_golden_query(qid, question, doc, chunks, located))
                out.reference_answers[qid] = tuple(dict.fromkeys(t for t, _ in located))
    out.golden = sorted(golden, key=lambda q: q.query_id)
    return out


def _golden_query(
    qid: str, question: str, doc: str, chunks: list[Chunk], located: list[tuple[str, int]]
) -> GoldenQuery:
    def grade(c: Chunk) -> int:
        if any(c.start <= at and at + len(t) <= c.end for t, at in located):
            return 2
        if any(c.start < at + len(t) and at < c.end for t, at in located):
            return 1
        return 0

    first, first_at = located[0]
    holding = tuple(c.id for c in chunks if c.start <= first_at and first_at + len(first) <= c.end)
    return GoldenQuery(
        query_id=qid,
        query=question,
        judgments=tuple(
            GoldJudgment(c.id, grade(c), doc_id=doc, start=c.start, end=c.end, text=c.text)
            for c in sorted(chunks, key=lambda c: (-grade(c), c.id))
        ),
        reference_answer=first,
        answer_type=_answer_type(first),
        reference_facts=(KeyFact(first, holding),) if holding else (),
        # Every other distinct human answer: F1 and exact match take the best of them.
        reference_alternatives=tuple(t for t in dict.fromkeys(t for t, _ in located) if t != first),
    )


# --------------------------------------------------------------------------------------------
# Writers


def corpus_lines(collection: Collection) -> Iterator[str]:
    """The corpus as chunk JSONL (``id, doc_id, title, position, start, end, text``), the file
    ``import_corpus`` reads."""
    for c in collection.chunks:
        yield dumps(c.to_json()) + "\n"


def query_lines(collection: Collection) -> Iterator[str]:
    """The questions as a query log (JSONL ``query``, with its ``query_id``), in id order."""
    for q in collection.golden:
        yield dumps({"query": q.query, "query_id": q.query_id}) + "\n"


def goldset_file_lines(collection: Collection, *, label: str = "dev") -> Iterator[str]:
    """The native golden set; a query with several distinct human answers carries them all
    (``reference_answers``, the first as ``reference_answer``), and the content hash covers
    them."""
    queries = collection.golden
    header = {
        "project": "cmrc2018",
        "label": label,
        "content_hash": goldset_content_hash(queries),
        "query_count": len(queries),
        "judgment_count": sum(len(q.judgments) for q in queries),
        "source": "CMRC 2018 (CC BY-SA 4.0), goldsmith cmrc2018",
    }
    yield header_line(header)
    for q in queries:
        yield dumps(q.to_json()) + "\n"


def write_collection(collection: Collection, out_dir: str | Path) -> dict[str, Path]:
    """``corpus.jsonl``, ``queries.jsonl`` and ``goldset.jsonl`` in ``out_dir`` (created)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "corpus": (out / "corpus.jsonl", corpus_lines(collection)),
        "queries": (out / "queries.jsonl", query_lines(collection)),
        "goldset": (out / "goldset.jsonl", goldset_file_lines(collection)),
    }
    written: dict[str, Path] = {}
    for name, (target, lines) in files.items():
        with target.open("w", encoding="utf-8", newline="\n") as f:
            f.writelines(lines)
        written[name] = target
    return written
