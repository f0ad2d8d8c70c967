"""The extractive answerer: a baseline that answers without a language model.

Pure module. Its answer is the sentence of the top contexts that shares the most terms with
the query (share of the query's distinct terms found in the sentence; ties go to the earlier
context, then the earlier sentence). Terms come from the project tokenizer (``auto``: Chinese
words for a query with Han characters, else the default tokenizer), so Chinese works. It lets
the demo and the tests show the whole answer report, quadrants included, with no model.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from goldsmith.answers.model import Context, StagedQuery
from goldsmith.intake.tokenizers import get_tokenizer, has_han

# A sentence ends at . ! ? ; (followed by space or the end), at a Chinese end mark, or a line.
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])|\n+")


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (stripped, empty ones dropped)."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def _terms(text: str, tokenizer: str) -> set[str]:
    name = ("zh-words" if has_han(text) else "default") if tokenizer == "auto" else tokenizer
    return set(get_tokenizer(name).terms(unicodedata.normalize("NFKC", text)))


def extractive_answer(
    query: str, contexts: Sequence[Context], *, top: int = 3, tokenizer: str = "auto"
) -> str:
    """The best-matching sentence of the first ``top`` contexts ("" when no sentence shares a
    term with the query)."""
    name = tokenizer
    if tokenizer == "auto":
        name = "zh-words" if has_han(query) else "default"
    wanted = _terms(query, name)
    if not wanted:
        return ""
    best, best_share = "", 0.0
    for c in contexts[:top]:
        for s in sentences(c.text):
            share = len(wanted & _terms(s, name)) / len(wanted)
            if share > best_share:
                best, best_share = s, share
    return best


def answer_run(
    queries: dict[str, str], run: Sequence[StagedQuery], *, k: int = 5, top: int = 3
) -> list[StagedQuery]:
    """The run with each query's ``response`` set by :func:`extractive_answer` over its top
    ``k`` contexts (``queries``: query id → text; a query without text keeps its response)."""
    out: list[StagedQuery] = []
    for s in run:
        text = queries.get(s.query_id)
        if text is None:
            out.append(s)
            continue
        answer = extractive_answer(text, s.contexts_at(k), top=top)
        out.append(StagedQuery(s.query_id, s.results, s.candidates, s.contexts, answer))
    return out
