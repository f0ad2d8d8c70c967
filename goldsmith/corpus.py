"""The corpus a golden set was judged on, and what an update of it did to the judgments.

Pure module (no Django). The app, ``run_evaluation`` and ``goldsmith eval --corpus`` all call
:func:`corpus_effect`, so the touched and untouched queries a page shows equal the ones a CI job
computes from files.

Conventions (docs/design.md, "Corpus versions"):

- A corpus's **content hash** is sha256 over the lines ``"{chunk_id}\\t{text_sha256}\\n"`` of its
  live chunks in code-point order of the chunk ids, written ``sha256:<hex>`` (:func:`corpus_hash`).
  Equal for an unchanged corpus, different after any addition, text change or retirement.
- The **fate** of one graded chunk after an update (:func:`chunk_fate`):

  - ``kept``: the chunk is live and its text is the text that was graded (same sha256), or the
    graded text is not known (a golden set imported without text) and the chunk is live;
  - ``carried``: live, its text differs from the graded one only in white space or punctuation
    (:func:`text_key`), so its grade still holds;
  - ``changed``: live with a different text;
  - ``retired``: no longer a live chunk of the corpus.

- A query is **touched** when any of its *relevant* chunks (grade ≥ ``min_grade``, 1 by default:
  every chunk that earns a gain in nDCG) is ``changed`` or ``retired``. Its grades may no longer
  describe the corpus, so its scores cannot blame or credit the retriever. Every other query is
  **untouched**: a chunk graded 0 that changed, or a relevant chunk carried over, does not touch it.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

ChunkFate = Literal["kept", "carried", "changed", "retired"]


def text_sha256(text: str) -> str:
    """The hex sha256 of a chunk's text in UTF-8 (as stored on every chunk)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def corpus_hash(chunks: Iterable[tuple[str, str]]) -> str:
    """``sha256:<hex>`` over the (chunk id, text sha256) pairs of the live chunks, in code-point
    order of the ids (not a database collation's), so that every backend gives the same hash."""
    digest = hashlib.sha256()
    for chunk_id, sha in sorted(chunks):
        digest.update(f"{chunk_id}\t{sha}\n".encode())
    return "sha256:" + digest.hexdigest()


def text_key(text: str) -> str:
    """A text with its white space and punctuation taken out, after NFKC: two texts with the same
    key differ only in spacing or punctuation (full- or half-width), and a grade of one holds for
    the other. Letters, digits and their case are kept: "10 kg" and "100 kg" differ."""
    folded = unicodedata.normalize("NFKC", text)
    new = set(folded) - _SEEN
    if new:
        for c in new:
            if c.isspace() or unicodedata.category(c).startswith("P"):
                _DROPPED[ord(c)] = None
        _SEEN.update(new)
    return folded.translate(_DROPPED)


# The characters met so far, and those of them that are white space or punctuation: a text's
# key is one ``str.translate`` (a test per character cost ~8 µs each on a large update).
_SEEN: set[str] = set()
_DROPPED: dict[int, None] = {}


@dataclass(frozen=True, slots=True)
class JudgedChunk:
    """One graded chunk of a golden query, as it was when it was graded."""

    chunk_id: str
    grade: int
    text_sha256: str | None = None  # of the graded text; None when it is not known
    text: str | None = None


@dataclass(frozen=True, slots=True)
class LiveChunk:
    """A live chunk of the corpus now."""

    text_sha256: str
    text: str | None = None


def chunk_fate(judged: JudgedChunk, live: LiveChunk | None) -> ChunkFate:
    """What became of a graded chunk (see the module's text)."""
    if live is None:
        return "retired"
    if judged.text_sha256 is None or judged.text_sha256 == live.text_sha256:
        return "kept"
    if (
        judged.text is not None
        and live.text is not None
        and text_key(judged.text) == text_key(live.text)
    ):
        return "carried"
    return "changed"


@dataclass(frozen=True, slots=True)
class QueryEffect:
    """The chunks of one golden query that an update did not keep as they were graded."""

    query_id: str
    fates: Mapping[str, ChunkFate]  # chunk id -> fate, for every graded chunk not "kept"
    relevant: frozenset[str]  # its relevant chunk ids (grade >= min_grade)

    def chunks(self, fate: ChunkFate, *, relevant_only: bool = True) -> list[str]:
        """Its chunk ids with that fate, sorted; only the relevant ones unless asked."""
        return sorted(
            c
            for c, f in self.fates.items()
            if f == fate and (c in self.relevant or not relevant_only)
        )

    @property
    def touched(self) -> bool:
        return any(self.fates.get(c) in ("changed", "retired") for c in self.relevant)


@dataclass(frozen=True, slots=True)
class CorpusEffect:
    """What an update of the corpus did to a golden set's judgments.

    ``queries`` holds only the queries with a chunk not kept; ``touched`` and ``untouched``
    partition every golden query (queries with no relevant chunk are untouched)."""

    queries: Mapping[str, QueryEffect]
    touched: frozenset[str]
    untouched: frozenset[str]
    relevant_total: int
    relevant_retired: int
    relevant_changed: int
    relevant_carried: int
    min_grade: int = 1
    unknown_text: int = field(default=0)  # graded chunks whose graded text is not known

    @property
    def stale(self) -> bool:
        """True when the update touched at least one query."""
        return bool(self.touched)


def corpus_effect(
    golden: Mapping[str, Sequence[JudgedChunk]],
    live: Mapping[str, LiveChunk],
    *,
    min_grade: int = 1,
) -> CorpusEffect:
    """The effect on ``golden`` (query id -> its graded chunks) of the corpus ``live`` (chunk id
    -> live chunk; retired chunks absent). A chunk graded twice in one query counts once, at its
    first listing."""
    if min_grade < 1:
        raise ValueError(f"min_grade must be at least 1, not {min_grade}")
    queries: dict[str, QueryEffect] = {}
    touched: set[str] = set()
    untouched: set[str] = set()
    total = retired = changed = carried = unknown = 0
    for query_id, judged in golden.items():
        fates: dict[str, ChunkFate] = {}
        relevant: set[str] = set()
        seen: set[str] = set()
        for chunk in judged:
            if chunk.chunk_id in seen:
                continue
            seen.add(chunk.chunk_id)
            if chunk.text_sha256 is None:
                unknown += 1
            fate = chunk_fate(chunk, live.get(chunk.chunk_id))
            is_relevant = chunk.grade >= min_grade
            if is_relevant:
                relevant.add(chunk.chunk_id)
                total += 1
                retired += fate == "retired"
                changed += fate == "changed"
                carried += fate == "carried"
            if fate != "kept":
                fates[chunk.chunk_id] = fate
        if fates:
            effect = QueryEffect(query_id, fates, frozenset(relevant))
            queries[query_id] = effect
            (touched if effect.touched else untouched).add(query_id)
        else:
            untouched.add(query_id)
    return CorpusEffect(
        queries=queries,
        touched=frozenset(touched),
        untouched=frozenset(untouched),
        relevant_total=total,
        relevant_retired=retired,
        relevant_changed=changed,
        relevant_carried=carried,
        min_grade=min_grade,
        unknown_text=unknown,
    )
