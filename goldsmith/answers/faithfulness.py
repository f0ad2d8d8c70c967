"""Faithfulness by rules: the share of a response's claims that the contexts given to the model
support.

Pure module (the standard library). The rule (docs/formats.md, "Faithfulness"):

- A **claim** is a sentence or a clause of the response: sentences end after ``. ! ?``
  followed by white space, after ``。！？`` and at line breaks; a sentence is cut into clauses
  after ``; :`` followed by white space and after ``；：，``. A clause of at most one term and
  no number or date ("然而，", "However;") is read with the clause after it. A piece with no
  content term, number or date, or that is only a yes or a no ("Yes.", "是的"), is not a
  claim.
- A claim is **supported** when one context contains it (``containment``: normalised as the
  fact rule normalises, :func:`goldsmith.answers.text.contain_normalise`), or when at least
  ``threshold`` of its distinct content terms (the project tokenizer's terms, stop words out,
  found as the fact rule finds them: :func:`goldsmith.answers.text.fact_terms`; the words of
  its numbers and dates are not terms, they are checked by value) are in one context
  **and** every number (same value, units converted), named quantity and date it states is
  in some context (``overlap``). Otherwise it is unsupported, because its terms are
  not there (``terms``) or because a number or date of it is in no context (``values``).
- ``faithfulness`` = supported claims / claims. A query has none (not 0) without a response,
  without a context text to compare with, or when its response makes no claim.

Each unsupported claim is named in the query's reason, a :func:`goldsmith.text.say` text (the
apps translate it). :func:`claims_json` and :func:`reason_from_json` keep the figures a report
stores and say the same reason again from them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from goldsmith.answers import text as T
from goldsmith.answers import values as V
from goldsmith.text import Text, say

# A sentence ends after . ! ? followed by space, after a Chinese end mark, or at a line break;
# a clause after ; : followed by space, or after a Chinese clause mark.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")
_CLAUSE_END = re.compile(r"(?<=[;:])\s+|(?<=[；：，])")
_EDGES = re.compile(r"^[\W_]+|[\W_]+$")
MAX_QUOTED = 80  # characters of a claim quoted in a reason


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """One claim's verdict: its 1-based ``index`` among the response's claims, its ``text``,
    whether it is ``supported``, the ``rule`` that decided (``containment`` or ``overlap``
    when supported; ``terms`` or ``values`` when not), the best share of its content terms
    found in one context (``overlap``), the numbers and dates it states that no context
    holds (``missing``, as written) and the 1-based context that supports it (``context``)."""

    index: int
    text: str
    supported: bool
    rule: str
    overlap: float
    missing: tuple[str, ...] = ()
    context: int | None = None


@dataclass(frozen=True)
class Faithfulness:
    """A response's claims checked against its contexts: ``value`` (None when there is no
    claim), ``reason`` and every claim's verdict."""

    value: float | None
    reason: Text
    claims: tuple[ClaimCheck, ...]

    @property
    def unsupported(self) -> tuple[ClaimCheck, ...]:
        return tuple(c for c in self.claims if not c.supported)


def claims(response: str, tokenizer: str = T.AUTO) -> list[str]:
    """The claims of ``response`` (see the module's text), in order."""
    out: list[str] = []
    for sentence in _SENTENCE_END.split(response):
        lead = ""
        pieces = [p for p in _CLAUSE_END.split(sentence or "") if p and _EDGES.sub("", p)]
        for i, piece in enumerate(pieces):
            piece = piece.strip()
            if lead:  # the white space the cut took, back between the two
                piece = lead + (" " if lead[-1].isascii() else "") + piece
            lead = ""
            if i + 1 < len(pieces) and _is_lead_in(piece, tokenizer):
                lead = piece  # read with the clause after it
                continue
            if _is_claim(piece, tokenizer):
                out.append(piece)
    return out


def _is_lead_in(piece: str, tokenizer: str) -> bool:
    """A clause of at most one term and no number or date ("然而，", "However;")."""
    if V.quantities(piece, bare_words=False) or V.dates(piece):
        return False
    return len(T.fact_terms(piece, tokenizer)[2]) <= 1


def _is_claim(piece: str, tokenizer: str) -> bool:
    probes = T.fact_terms(piece, tokenizer)[2]
    has_values = bool(V.quantities(piece, bare_words=False) or V.dates(piece))
    if has_values:
        return True
    if not probes:
        return False
    # Only a yes or a no ("Yes", "是的", "No."): it answers, it claims nothing to look up.
    return not (len(probes) == 1 and V.polarity(piece) is not None)


def check_claim(
    index: int, claim: str, contexts: T.TextSet, threshold: float, tokenizer: str = T.AUTO
) -> ClaimCheck:
    """The verdict on one claim against the prepared context texts (see the module's text)."""
    normal = T.normal_form(claim)
    probes = T.fact_terms(_without_values(claim), tokenizer)[2]
    if normal.strip():
        for i, form in enumerate(contexts.normals, 1):
            if normal in form:
                return ClaimCheck(index, claim, True, "containment", 1.0, context=i)
    best, best_at = 0.0, None
    n = len(probes)
    if n:
        for i, form in enumerate(contexts.normals, 1):
            share = sum(p in form for p in probes) / n
            if share > best + 1e-12:
                best, best_at = share, i
    missing = _missing_values(claim, contexts.texts)
    if best + 1e-12 >= threshold and not missing:
        return ClaimCheck(index, claim, True, "overlap", best, context=best_at)
    if n == 0 and not missing:  # a claim of numbers or dates only, every one of them found
        return ClaimCheck(index, claim, True, "overlap", 1.0, context=None)
    rule = "values" if missing else "terms"
    return ClaimCheck(index, claim, False, rule, best, missing)


def _without_values(claim: str) -> str:
    """``claim`` with its numbers and dates blanked: they are checked by value (7 days is one
    week), so their words ("days", "年") are not looked for as terms."""
    spans = [(q.start, q.end) for q in V.quantities(claim, bare_words=False)]
    spans += [(d.start, d.end) for d in V.dates(claim)]
    if not spans:
        return claim
    chars = list(claim)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _missing_values(claim: str, texts: Sequence[str]) -> tuple[str, ...]:
    """The numbers (with their units) and dates of ``claim`` that no text states."""
    numbers = V.quantities(claim, bare_words=False)
    dates = V.dates(claim)
    if not numbers and not dates:
        return ()
    profiles = [T.profile(t) for t in texts]
    out = [q.surface for q in numbers if not any(q.same_as(p) for t in profiles for p in t.numbers)]
    out += [d.surface for d in dates if not any(d.same_as(e) for t in profiles for e in t.dates)]
    return tuple(dict.fromkeys(out))


def faithfulness(
    response: str | None,
    contexts: Sequence[str],
    *,
    threshold: float = 0.75,
    tokenizer: str = T.AUTO,
) -> Faithfulness:
    """The share of ``response``'s claims that ``contexts`` support, with the reason and each
    claim's verdict; ``value`` None without a response, a context text or a claim."""
    if response is None:
        return Faithfulness(None, say("no response in the run"), ())
    texts = [c for c in contexts if c and c.strip()]
    if not texts:
        return Faithfulness(None, say("no context text to check the response against"), ())
    pieces = claims(response, tokenizer)
    if not pieces:
        return Faithfulness(None, say("the response makes no claim to check"), ())
    prepared = T.TextSet(texts)
    checks = tuple(
        check_claim(i, c, prepared, threshold, tokenizer) for i, c in enumerate(pieces, 1)
    )
    value = sum(c.supported for c in checks) / len(checks)
    return Faithfulness(value, _reason(len(checks), threshold, checks), checks)


def _quoted(text: str) -> str:
    return text if len(text) <= MAX_QUOTED else text[: MAX_QUOTED - 1].rstrip() + "…"


def claim_words(check: ClaimCheck | Mapping[str, Any], threshold: float) -> Text:
    """Why one claim is not supported, in words ("“…” states 97 dollars, which no context
    holds")."""
    c = check if isinstance(check, Mapping) else claim_json(check)
    quoted = _quoted(str(c["text"]))
    if c.get("missing"):
        return say(
            '"%(claim)s" states %(values)s, which no context holds',
            claim=quoted,
            values=", ".join(map(str, c["missing"])),
        )
    return say(
        '"%(claim)s": %(share)s of its terms in one context, fewer than %(threshold)s',
        claim=quoted,
        share=f"{float(c.get('overlap') or 0.0):.2f}",
        threshold=f"{threshold:g}",
    )


def _reason(n: int, threshold: float, checks: Sequence[ClaimCheck | Mapping[str, Any]]) -> Text:
    bad = [c for c in checks if not (c.supported if isinstance(c, ClaimCheck) else c["supported"])]
    if not bad:
        if n == 1:
            return say("the claim is supported by the contexts")
        return say("all %(n)s claims supported by the contexts", n=n)
    if n == 1:
        return say(
            "the claim is not supported by the contexts: %(claim)s",
            claim=claim_words(bad[0], threshold),
        )
    listed = claim_words(bad[0], threshold)
    for c in bad[1:]:  # one template per join, so each part is translated on its own
        listed = say("%(earlier)s; %(next)s", earlier=listed, next=claim_words(c, threshold))
    return say(
        "%(unsupported)s of %(n)s claims not supported by the contexts: %(claims)s",
        unsupported=len(bad),
        n=n,
        claims=listed,
    )


def claim_json(check: ClaimCheck) -> dict[str, Any]:
    """One claim's verdict, JSON-ready."""
    return {
        "index": check.index,
        "text": check.text,
        "supported": check.supported,
        "rule": check.rule,
        "overlap": round(check.overlap, 4),
        "missing": list(check.missing),
        "context": check.context,
    }


def claims_json(result: Faithfulness, threshold: float) -> dict[str, Any]:
    """What a report stores of one query's claims: how many, the threshold, and the verdict
    on each unsupported one (the supported ones are counted, not kept)."""
    return {
        "claims": len(result.claims),
        "threshold": threshold,
        "unsupported": [claim_json(c) for c in result.unsupported],
    }


def reason_from_json(doc: Mapping[str, Any]) -> Text:
    """The reason :func:`faithfulness` gave, said again from what :func:`claims_json` stored."""
    n = int(doc["claims"])
    bad = [dict(c, supported=False) for c in doc.get("unsupported") or ()]
    return _reason(n, float(doc["threshold"]), bad)


__all__ = [
    "ClaimCheck",
    "Faithfulness",
    "check_claim",
    "claim_json",
    "claim_words",
    "claims",
    "claims_json",
    "faithfulness",
    "reason_from_json",
]
