"""A refresh of a frozen golden set on the current corpus: which grades still hold, and which
chunks need a grade again. Pure module (no Django); the app's refresh and the benchmark call
:func:`refresh_plan`.

Conventions (docs/design.md, "Corpus versions"), per graded chunk of a golden query, with its
fate from :func:`goldsmith.corpus.chunk_fate`:

- ``kept``: its row is held as it was frozen (grade, text, span, provenance);
- ``carried``: its text changed only in white space or punctuation (:func:`~goldsmith.corpus.
  text_key`): held with the same grade, the live text and span, provenance ``carried``;
- ``changed``: the chunk is **asked** again (its new text needs a grade);
- ``retired``: a live chunk of the same document that covers exactly the same characters with the
  same text key takes its grade (held, provenance ``carried``: span matching); otherwise every live
  chunk of that document whose span overlaps the retired one (the engine's span rule,
  :func:`spans_overlap`, as in ``matching="span"``) is asked as its **replacement**, and the
  retired chunk's grade is dropped.

Only *touched* queries (:func:`goldsmith.corpus.corpus_effect`) are re-judged; an untouched
query keeps every row as frozen, except its ``carried`` chunks, which take the live text with
their grade. So a refresh against an unchanged corpus holds every row as frozen: the same
version, with the same content hash. A held grade is never a different grade.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from goldsmith.corpus import (
    CorpusEffect,
    JudgedChunk,
    LiveChunk,
    chunk_fate,
    corpus_effect,
    text_key,
    text_sha256,
)

CARRIED = "carried"
HeldWhy = Literal["kept", "text", "span"]
AskedWhy = Literal["changed", "replaces", "pool"]


def spans_overlap(a_start: int, a_end: int, b_start: int, b_end: int) -> bool:
    """Two half-open character spans [start, end) of one document share a character."""
    return a_start < b_end and b_start < a_end


@dataclass(frozen=True, slots=True)
class FrozenRow:
    """One graded chunk of a frozen query, as stored (the golden set's judgment row)."""

    chunk_id: str
    grade: int
    doc_id: str | None = None
    start: int | None = None
    end: int | None = None
    text: str | None = None
    provenance: str | None = None
    # sha256 of `text`, when the caller has it (else computed from the text)
    text_sha256: str | None = field(default=None, compare=False)

    def as_judged(self) -> JudgedChunk:
        sha = self.text_sha256
        if sha is None and self.text is not None:
            sha = text_sha256(self.text)
        return JudgedChunk(self.chunk_id, self.grade, sha, self.text)


@dataclass(frozen=True, slots=True)
class PlacedChunk(LiveChunk):
    """A live chunk of the corpus now, with where it sits (a :class:`LiveChunk`, so that the
    corpus's effect reads it as it is)."""

    chunk_id: str = ""
    doc_id: str | None = None
    start: int | None = None
    end: int | None = None


def placed(
    chunk_id: str,
    text_sha256: str,
    text: str | None = None,
    doc_id: str | None = None,
    start: int | None = None,
    end: int | None = None,
) -> PlacedChunk:
    return PlacedChunk(text_sha256, text, chunk_id, doc_id, start, end)


@dataclass(frozen=True, slots=True)
class Held:
    """A grade that still holds: `row` is what the refreshed version stores; `was` the frozen
    chunk id it comes from (differs from ``row.chunk_id`` only for a span match)."""

    row: FrozenRow
    why: HeldWhy
    was: str


@dataclass(frozen=True, slots=True)
class Asked:
    """A live chunk that needs a grade: changed text, a replacement of the retired chunk
    `replaces`, or a new hit of a pool's retriever."""

    chunk_id: str
    why: AskedWhy
    replaces: str | None = None


@dataclass(frozen=True, slots=True)
class QueryPlan:
    query_id: str
    touched: bool
    held: tuple[Held, ...]
    asked: tuple[Asked, ...]
    dropped: tuple[str, ...]  # retired chunk ids whose grade nothing carries

    @property
    def changed(self) -> bool:
        """The refreshed version's rows for this query differ from the frozen ones."""
        return self.touched or any(h.why != "kept" for h in self.held) or bool(self.dropped)


@dataclass(frozen=True)
class RefreshPlan:
    effect: CorpusEffect
    queries: Mapping[str, QueryPlan]  # only the queries whose rows are not all kept

    @property
    def identical(self) -> bool:
        """The refresh would store exactly the frozen rows (nothing touched or carried)."""
        return not any(p.changed for p in self.queries.values())

    def counts(self) -> dict[str, int]:
        plans = self.queries.values()
        touched = [p for p in plans if p.touched]
        held = [h for p in plans for h in p.held]
        return {
            "queries": len(self.effect.touched) + len(self.effect.untouched),
            "untouched": len(self.effect.untouched),
            "touched": len(touched),
            "asked": sum(len(p.asked) for p in touched),
            "asked_changed": sum(1 for p in touched for a in p.asked if a.why == "changed"),
            "asked_replaces": sum(1 for p in touched for a in p.asked if a.why == "replaces"),
            "carried_text": sum(1 for h in held if h.why == "text"),
            "carried_span": sum(1 for h in held if h.why == "span"),
            "dropped": sum(len(p.dropped) for p in plans),
        }


def index_by_document(live: Iterable[PlacedChunk]) -> dict[str, list[PlacedChunk]]:
    by_doc: dict[str, list[PlacedChunk]] = defaultdict(list)
    for chunk in live:
        if chunk.doc_id is not None and chunk.start is not None and chunk.end is not None:
            by_doc[chunk.doc_id].append(chunk)
    return by_doc


def _row_of(live: PlacedChunk, grade: int, provenance: str) -> FrozenRow:
    return FrozenRow(live.chunk_id, grade, live.doc_id, live.start, live.end, live.text, provenance)


def plan_query(
    query_id: str,
    rows: Sequence[FrozenRow],
    live: Mapping[str, PlacedChunk],
    by_doc: Mapping[str, Sequence[PlacedChunk]],
    *,
    touched: bool,
    judged_rows: Sequence[JudgedChunk] | None = None,
) -> QueryPlan:
    """The plan of one golden query (see the module's text). `by_doc`: live chunks with a span,
    per document id."""
    held: list[Held] = []
    asked: list[Asked] = []
    dropped: list[str] = []
    graded = {r.chunk_id for r in rows}
    taken: set[str] = set()
    judged = judged_rows if judged_rows is not None else [r.as_judged() for r in rows]
    for row, judged_row in zip(rows, judged, strict=True):
        now = live.get(row.chunk_id)
        fate = chunk_fate(judged_row, now)
        if fate == "kept":
            held.append(Held(row, "kept", row.chunk_id))
        elif fate == "carried":
            assert now is not None  # a carried chunk is live
            held.append(Held(_row_of(now, row.grade, CARRIED), "text", row.chunk_id))
        elif not touched:
            held.append(Held(row, "kept", row.chunk_id))  # an untouched query keeps it as frozen
        elif fate == "changed":
            asked.append(Asked(row.chunk_id, "changed"))
        else:  # retired, in a touched query
            same, overlapping = _span_matches(row, by_doc)
            key = text_key(row.text) if row.text is not None else None
            exact = [
                c
                for c in same
                if key is not None and c.text is not None and text_key(c.text) == key
            ]
            if exact and exact[0].chunk_id not in graded and exact[0].chunk_id not in taken:
                taken.add(exact[0].chunk_id)
                held.append(Held(_row_of(exact[0], row.grade, CARRIED), "span", row.chunk_id))
                continue
            dropped.append(row.chunk_id)
            for chunk in overlapping:
                if chunk.chunk_id not in graded and chunk.chunk_id not in taken:
                    taken.add(chunk.chunk_id)
                    asked.append(Asked(chunk.chunk_id, "replaces", row.chunk_id))
    return QueryPlan(query_id, touched, tuple(held), tuple(asked), tuple(dropped))


def _span_matches(
    row: FrozenRow, by_doc: Mapping[str, Sequence[PlacedChunk]]
) -> tuple[list[PlacedChunk], list[PlacedChunk]]:
    """Live chunks of the row's document covering exactly its characters, and those overlapping
    them (in document order)."""
    if row.doc_id is None or row.start is None or row.end is None:
        return [], []
    same: list[PlacedChunk] = []
    overlapping: list[PlacedChunk] = []
    for chunk in sorted(by_doc.get(row.doc_id, ()), key=lambda c: (c.start or 0, c.chunk_id)):
        assert chunk.start is not None and chunk.end is not None  # indexed with a span only
        if spans_overlap(row.start, row.end, chunk.start, chunk.end):
            overlapping.append(chunk)
            if (chunk.start, chunk.end) == (row.start, row.end):
                same.append(chunk)
    return same, overlapping


def refresh_plan(
    golden: Mapping[str, Sequence[FrozenRow]],
    live: Mapping[str, PlacedChunk],
    *,
    placed_in: Iterable[PlacedChunk] | None = None,
    min_grade: int = 1,
) -> RefreshPlan:
    """The refresh of ``golden`` (query id -> its frozen rows) on the corpus ``live`` (chunk id ->
    live chunk; retired chunks absent). `placed_in`: the live chunks to look for replacements in
    (default: every chunk of `live`); a caller that holds a large corpus passes only the chunks
    of the documents that lost a graded chunk."""
    judged = {q: [r.as_judged() for r in rows] for q, rows in golden.items()}
    effect = corpus_effect(judged, live, min_grade=min_grade)
    by_doc = index_by_document(live.values() if placed_in is None else placed_in)
    queries = {
        q: plan_query(
            q, golden[q], live, by_doc, touched=q in effect.touched, judged_rows=judged[q]
        )
        for q in effect.queries
    }
    return RefreshPlan(effect, queries)


def rows_after(plan: QueryPlan, graded: Mapping[str, FrozenRow]) -> list[FrozenRow]:
    """The refreshed query's rows: its held rows, then the new rows of its asked chunks from
    `graded` (chunk id -> row; an asked chunk without one is left out: not judged). A held row
    is never replaced: a grade that still holds is not graded again."""
    out = [h.row for h in plan.held]
    held = {h.row.chunk_id for h in plan.held}
    out.extend(row for cid, row in graded.items() if cid not in held)
    return out
