"""What a golden query says about its answer, and what a run says about every stage.

Pure module (the standard library only). The file formats (``goldsmith.formats.jsonl``,
``goldset``, ``ragas``) read into these objects and write them back; the scorers of
:mod:`goldsmith.answers.scoring` read them.

- :class:`AnswerKey`: a golden query's reference answer, its type and its key facts;
- :class:`KeyFact`: a short statement and the chunks that support it;
- :class:`StagedQuery`: one query of a run with every stage (first-stage candidates, the final
  list, the contexts given to the model, the response).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

AnswerType = Literal["number", "date", "boolean", "choice", "open"]
ANSWER_TYPES: tuple[AnswerType, ...] = ("number", "date", "boolean", "choice", "open")
CLOSED_TYPES: tuple[AnswerType, ...] = ("number", "date", "boolean", "choice")


@dataclass(frozen=True)
class KeyFact:
    """A key fact of a reference answer: a short statement (``text``) and the chunks that
    support it (``chunk_ids``; may be empty, then a text rule decides where it is found)."""

    text: str
    chunk_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class AnswerKey:
    """What a golden query's answer should be.

    ``answer_type`` None means not stated; a reference answer without a type is scored as
    ``open``. ``alternatives`` are further reference answers (as SQuAD and CMRC 2018 have
    several per question): answer F1 and exact match take the best over
    :attr:`references`, ``reference_answer`` being the primary one the other metrics read.
    ``choices`` is the list a ``choice`` answer picks from (required for that type,
    empty otherwise); ``query`` and ``category`` are carried for the extractive answerer, the
    RAGAS export and per-category quadrants."""

    query_id: str
    reference_answer: str | None = None
    answer_type: AnswerType | None = None
    choices: tuple[str, ...] = ()
    facts: tuple[KeyFact, ...] = ()
    query: str | None = None
    category: str | None = None
    alternatives: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.alternatives and self.reference_answer is None:
            raise ValueError("further reference answers need a primary reference answer")

    @property
    def references(self) -> tuple[str, ...]:
        """Every reference answer, the primary first (empty when there is none)."""
        if self.reference_answer is None:
            return ()
        return (self.reference_answer, *self.alternatives)

    @property
    def scored_type(self) -> AnswerType:
        """The type the answer is scored as: the stated one, else ``open``."""
        return self.answer_type or "open"

    @property
    def is_closed(self) -> bool:
        return self.reference_answer is not None and self.scored_type in CLOSED_TYPES

    @property
    def has_answer(self) -> bool:
        """Whether correctness can be scored at all: a reference answer or a key fact."""
        return self.reference_answer is not None or bool(self.facts)


@dataclass(frozen=True)
class RankedItem:
    """One entry of a ranked list: an id, its score (None when not given) and, when the
    retriever returned it, the chunk's text (the contexts default to the top K of these)."""

    id: str
    score: float | None = None
    text: str | None = None


@dataclass(frozen=True)
class Context:
    """A context given to the model: the chunk's id and the text the model read."""

    id: str
    text: str


@dataclass(frozen=True)
class StagedQuery:
    """One query of a run, stage by stage. ``results`` is the final (e.g. reranked) list, best
    first; ``candidates`` the first-stage list (None: the run has no first stage);
    ``contexts`` what the model was given (None: the top K of ``results``, see
    :meth:`contexts_at`); ``response`` the generated answer (None: no response)."""

    query_id: str
    results: tuple[RankedItem, ...] = ()
    candidates: tuple[RankedItem, ...] | None = None
    contexts: tuple[Context, ...] | None = None
    response: str | None = None

    def contexts_at(self, k: int) -> tuple[Context, ...]:
        """The top ``k`` contexts: the given contexts, else the top ``k`` results (their text,
        or an empty one when the run carries none)."""
        if self.contexts is not None:
            return self.contexts[:k]
        return tuple(Context(r.id, r.text or "") for r in self.results[:k])
