"""Answer metrics: context recall, fact coverage, token F1, exact match, conflicts and answer
correctness, each per query with its reason; first-stage retrieval metrics.

Pure module (numpy and the standard library). Definitions (docs/design.md, "Answers"):

- ``context_recall@K``: the share of a query's key facts found in its top K contexts. A fact
  linked to chunks is found when any of its ``chunk_ids`` is among the top K context ids (rule
  ``chunk link``); a fact without links is found by the text rule of
  :func:`goldsmith.answers.text.fact_in` against the top K context texts (rule ``containment``
  or ``overlap``). Queries without key facts are not scored.
- ``fact_coverage``: the share of key facts the response states, by the same text rule.
- ``answer_f1``: F1 of the response against the reference answers, the best over them
  (:func:`goldsmith.answers.text.token_f1`: SQuAD v2.0's token F1 for English, CMRC 2018's
  character F1 for Chinese).
- ``squad_em`` (open answers): 1 when the response is the text of a reference answer after the
  official normalisation (:func:`goldsmith.answers.text.text_exact_match`: SQuAD v2.0's, and
  CMRC 2018's for Chinese), else 0; the best over the reference answers.
- ``exact_match`` (closed types only: number, date, boolean, choice): 1 when the response
  states a reference value after normalisation (:mod:`goldsmith.answers.values`) and no
  other value of the same kind, else 0 (the best over the reference answers).
- **conflict**: a number with a unit, or a date, in the response that contradicts every
  number of that dimension (or every date) of the reference answer and its facts ("says 14
  days, reference 7 days").
- ``answer_correctness``: closed types: ``exact_match``. Open answers: 0 on a conflict, else
  ``fact_coverage`` when the query has key facts, else ``answer_f1``.
- ``faithfulness``: the share of the response's claims that the contexts given to the model
  support (:mod:`goldsmith.answers.faithfulness`); it needs no answer key, only a response and
  a context text, and is NaN without them (not 0). The contexts are the run's, else its top
  ``AnswerSettings.context_k`` results with their text.
- ``answer_relevance``: no rule scores it (NaN here); only an answer judge does.

**Only where there is an answer.** Every answer metric but context recall reads the response
(:func:`reads_response`); a query without a response (none given, or missing from the run) is
not scored on those: they do not apply to it, as recall does not apply to a query without a
relevant chunk, so their means are over the queries with a response and their ``n`` says how
many. A run none of whose queries has a response (:func:`has_answers`: a retrieval-only run) has
no answer figure at all (:func:`goldsmith.answers.report.score_run` leaves those metrics out);
its context recall still stands, since it needs only the contexts and the key facts. A query
missing from the run scores 0 context recall and says so. Metric values are NaN where a metric
does not apply (no facts, no reference answer, an open type for ``exact_match``, no response);
:meth:`AnswerResult.eval_result`
turns one metric into a :class:`goldsmith.metrics.EvalResult` whose means, confidence intervals,
paired tests and drift rules are the retrieval ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from goldsmith import metrics as M
from goldsmith.answers import faithfulness as F
from goldsmith.answers import text as T
from goldsmith.answers import values as V
from goldsmith.answers.model import AnswerKey, StagedQuery
from goldsmith.text import Text, joined, say

CONTEXT_RECALL = "context_recall"
ANSWER_CORRECTNESS = "answer_correctness"
FACT_COVERAGE = "fact_coverage"
ANSWER_F1 = "answer_f1"
EXACT_MATCH = "exact_match"
FAITHFULNESS = "faithfulness"
ANSWER_RELEVANCE = "answer_relevance"
SQUAD_EM = "squad_em"
ANSWER_FAMILIES: tuple[str, ...] = (
    CONTEXT_RECALL, ANSWER_CORRECTNESS, FACT_COVERAGE, ANSWER_F1, EXACT_MATCH, SQUAD_EM,
    FAITHFULNESS, ANSWER_RELEVANCE,
)  # fmt: skip
JUDGE_ONLY: tuple[str, ...] = (ANSWER_RELEVANCE,)  # no rule scores these
# The answer metrics that read only the contexts and the key facts, never the response. Every
# other answer metric reads the response (:func:`reads_response`), so a new one is gated on
# the run having answers without saying so anywhere else.
CONTEXT_FAMILIES: frozenset[str] = frozenset({CONTEXT_RECALL})
FIRST_STAGE = "first_stage:"
_ANSWER_RE = re.compile(r"^([a-z_0-9]+?)(?:@([1-9][0-9]*))?$")


@dataclass(frozen=True)
class AnswerSettings:
    """How answers are scored. ``tokenizer``: ``auto`` (SQuAD's cut for English, ``zh-words``
    for Chinese), ``squad``, or a project tokenizer name; ``fact_overlap``: the share of a
    fact's terms a text must hold for the overlap rule; ``number_tolerance``: relative
    tolerance of number comparisons (0: exact up to float noise); ``context_k``: how many of
    a query's results stand for the contexts given to the model when the run names none
    (``faithfulness``; the headline K). A claim is supported from ``fact_overlap`` of its terms,
    as a fact is found."""

    tokenizer: str = T.AUTO
    fact_overlap: float = 0.75
    number_tolerance: float = 0.0
    context_k: int = 5

    def __post_init__(self) -> None:
        if not 0.0 < self.fact_overlap <= 1.0:
            raise ValueError(f"fact_overlap must be in (0, 1], not {self.fact_overlap}")
        if not 0.0 <= self.number_tolerance < 1.0:
            raise ValueError(f"number_tolerance must be in [0, 1), not {self.number_tolerance}")
        if self.context_k < 1:
            raise ValueError(f"context_k must be at least 1, not {self.context_k}")


# --------------------------------------------------------------------------------------------
# Metric names


def is_answer_metric(name: str) -> bool:
    """Whether ``name`` is an answer metric (``context_recall@5``, ``answer_correctness``...)."""
    m = _ANSWER_RE.match(name.strip().lower())
    return m is not None and m.group(1) in ANSWER_FAMILIES


def is_stage_metric(name: str) -> bool:
    """Whether ``name`` is a first-stage retrieval metric (``first_stage:recall@50``)."""
    return name.strip().lower().startswith(FIRST_STAGE)


def reads_response(name: str) -> bool:
    """Whether the answer metric ``name`` reads the run's response: every answer metric but
    those of :data:`CONTEXT_FAMILIES` (context recall). The one gate of the answer figures:
    such a metric applies only to queries with a response, and only in runs with answers."""
    return parse_answer_metric(name).family not in CONTEXT_FAMILIES


def has_answers(run: Iterable[StagedQuery]) -> bool:
    """Whether any query of the run carries a response (a run without one is retrieval-only:
    it has no answer figure)."""
    return any(s.response is not None for s in run)


def parse_answer_metric(name: str) -> M.Metric:
    """``context_recall@K`` (K required) or one of the uncut answer metrics; ValueError with a
    readable reason otherwise."""
    m = _ANSWER_RE.match(name.strip().lower())
    if m is None or m.group(1) not in ANSWER_FAMILIES:
        raise ValueError(f"unknown answer metric {name!r} (known: {', '.join(ANSWER_FAMILIES)})")
    family, k = m.group(1), (int(m.group(2)) if m.group(2) else None)
    if family == CONTEXT_RECALL and k is None:
        raise ValueError("context_recall needs a cut-off, e.g. context_recall@5")
    if family != CONTEXT_RECALL and k is not None:
        raise ValueError(f"{family} takes no cut-off")
    return M.Metric(family, k)


def parse_any_metric(name: str) -> str:
    """The canonical name of a retrieval, first-stage or answer metric (ValueError if none)."""
    if is_stage_metric(name):
        inner = name.strip()[len(FIRST_STAGE) :]
        return FIRST_STAGE + M.parse_metric(inner).name
    if is_answer_metric(name):
        return parse_answer_metric(name).name
    try:
        return M.parse_metric(name).name
    except ValueError:
        raise ValueError(
            f"unknown metric {name!r} (retrieval: recall@K, ndcg@K, mrr...; first stage: "
            f"first_stage:recall@K...; answers: {', '.join(ANSWER_FAMILIES)}, with @K for "
            f"context_recall)"
        ) from None


# --------------------------------------------------------------------------------------------
# Per-query results


@dataclass(frozen=True, slots=True)
class FactCheck:
    """One key fact's verdict: its 1-based ``index``, whether it was ``found``, the ``rule``
    that decided (``chunk link``, ``containment``, ``overlap``; ``none`` when nothing could be
    compared) and a short ``detail`` ("c7 in context 2", "term overlap 0.60 < 0.75")."""

    index: int
    found: bool
    rule: str
    detail: str


@dataclass(frozen=True)
class AnswerResult:
    """Per-query values of answer metrics over the answer keys' queries.

    ``values[q, m]`` is NaN where metric m does not apply to query q. ``reasons[q]`` maps each
    scored metric to its reason; ``fact_checks[q]`` maps ``context_recall@K`` and
    ``fact_coverage`` to the verdict on each fact; ``conflicts[q]`` lists the contradictions
    found in the response; ``claims[q]`` the claims of its response checked for
    ``faithfulness`` (None when not checked; empty when the result does not keep them)."""

    settings: AnswerSettings
    metrics: tuple[str, ...]
    query_ids: tuple[str, ...]
    values: M.FloatArray
    reasons: tuple[Mapping[str, str], ...]
    fact_checks: tuple[Mapping[str, tuple[FactCheck, ...]], ...]
    conflicts: tuple[tuple[str, ...], ...]
    categories: tuple[str | None, ...]
    missing_from_run: tuple[str, ...]
    not_in_keys: tuple[str, ...]
    claims: tuple[F.Faithfulness | None, ...] = ()

    def column(self, metric: str) -> M.FloatArray:
        """Values of ``metric`` for every query (NaN where it does not apply)."""
        col: M.FloatArray = self.values[:, self.metrics.index(metric)]
        return col

    def scored(self, metric: str) -> tuple[str, ...]:
        """The queries ``metric`` applies to."""
        col = self.column(metric)
        return tuple(q for q, v in zip(self.query_ids, col.tolist(), strict=True) if v == v)

    def eval_result(self, metric: str, settings: M.EvalSettings | None = None) -> M.EvalResult:
        """``metric`` as a one-metric :class:`goldsmith.metrics.EvalResult`: the queries it
        applies to are included, the others are listed as ``no_relevant`` (left out of the
        means), so :func:`goldsmith.metrics.aggregate`, ``compare`` and the drift rules work on
        it as on a retrieval metric."""
        col = self.column(metric)
        inc = ~np.isnan(col)
        return M.EvalResult(
            settings=settings or M.EvalSettings(),
            metrics=(metric,),
            query_ids=self.query_ids,
            values=col.reshape(-1, 1).copy(),
            included=inc,
            no_relevant=tuple(
                q for q, i in zip(self.query_ids, inc.tolist(), strict=True) if not i
            ),
            missing_from_run=self.missing_from_run,
            not_in_judgments=self.not_in_keys,
        )

    def per_query(self) -> dict[str, dict[str, float | None]]:
        """``{query_id: {metric: value or None}}`` for every query with some scored metric."""
        out: dict[str, dict[str, float | None]] = {}
        for q, row in zip(self.query_ids, self.values.tolist(), strict=True):
            if any(v == v for v in row):
                out[q] = {
                    m: (v if v == v else None) for m, v in zip(self.metrics, row, strict=True)
                }
        return out

    def rules_used(self) -> dict[str, dict[str, int]]:
        """For each fact metric, how many facts each rule decided (found or not)."""
        out: dict[str, dict[str, int]] = {}
        for checks in self.fact_checks:
            for metric, facts in checks.items():
                bucket = out.setdefault(metric, {})
                for f in facts:
                    bucket[f.rule] = bucket.get(f.rule, 0) + 1
        return out


# --------------------------------------------------------------------------------------------
# Scoring


def _numbered(indices: list[int]) -> Text:
    if len(indices) == 1:
        return say("fact %(n)s", n=indices[0])
    return say(
        "facts %(first)s and %(last)s", first=", ".join(map(str, indices[:-1])), last=indices[-1]
    )


def context_recall(
    key: AnswerKey, staged: StagedQuery, k: int, settings: AnswerSettings
) -> tuple[float, str, tuple[FactCheck, ...]]:
    """(value, reason, per-fact verdicts) of ``context_recall@k`` for a query with facts."""
    contexts = staged.contexts_at(k)
    where: dict[str, int] = {}
    for pos, c in enumerate(contexts, 1):
        where.setdefault(c.id, pos)
    texts: T.TextSet | None = None
    checks: list[FactCheck] = []
    for i, fact in enumerate(key.facts, 1):
        if fact.chunk_ids:
            at = [(where[c], c) for c in fact.chunk_ids if c in where]
            if at:
                pos, cid = min(at)
                checks.append(FactCheck(i, True, "chunk link", f"{cid} in context {pos}"))
            else:
                checks.append(
                    FactCheck(i, False, "chunk link", f"none of {', '.join(fact.chunk_ids)}")
                )
            continue
        if texts is None:
            texts = T.TextSet([c.text for c in contexts if c.text])
        if not texts.texts:
            checks.append(_shared_check(i, False, "none", "no link, and no context text to read"))
            continue
        checks.append(_text_check(i, fact.text, texts, settings))
    found = sum(c.found for c in checks)
    missing = [c.index for c in checks if not c.found]
    n = len(checks)
    if not missing:
        reason = (
            say("all %(n)s facts in the top %(k)s contexts", n=n, k=k)
            if n > 1
            else say("the fact is in the top %(k)s contexts", k=k)
        )
    else:
        reason = say("%(facts)s not in the top %(k)s contexts", facts=_numbered(missing), k=k)
    return found / n, reason, tuple(checks)


def _text_check(i: int, fact: str, texts: T.TextSet, s: AnswerSettings) -> FactCheck:
    m = T.find_fact(T.fact_terms(fact, s.tokenizer), texts, s.fact_overlap)
    return _verdict(i, m.found, m.rule, m.overlap, s.fact_overlap)


@lru_cache(maxsize=1 << 12)
def _verdict(i: int, found: bool, rule: str | None, overlap: float, threshold: float) -> FactCheck:
    """The :class:`FactCheck` of fact ``i`` for a :class:`goldsmith.answers.text.FactMatch`
    (remembered, see :func:`_shared_check`)."""
    if rule == "containment":
        return _shared_check(i, True, "containment", "the text contains it")
    if found:
        return _shared_check(i, True, "overlap", f"term overlap {overlap:.2f} ≥ {threshold:g}")
    if overlap + 1e-12 >= threshold:
        return _shared_check(
            i, False, "overlap", "its terms are there but not its numbers or dates"
        )
    return _shared_check(i, False, "overlap", f"term overlap {overlap:.2f} < {threshold:g}")


@lru_cache(maxsize=1 << 12)
def _shared_check(index: int, found: bool, rule: str, detail: str) -> FactCheck:
    """The :class:`FactCheck` of a verdict that names nothing of its query, made once and
    shared (it is frozen): tens of thousands of identical objects would otherwise live as long
    as the result, each one more for the cyclic garbage collector to go through."""
    return FactCheck(index, found, rule, detail)


def fact_coverage(
    key: AnswerKey, response: str, settings: AnswerSettings
) -> tuple[float, str, tuple[FactCheck, ...]]:
    """(value, reason, per-fact verdicts) of ``fact_coverage`` for a query with facts."""
    said = T.TextSet([response])
    checks = tuple(_text_check(i, f.text, said, settings) for i, f in enumerate(key.facts, 1))
    missing = [c.index for c in checks if not c.found]
    n = len(checks)
    if not missing:
        reason = say("all %(n)s facts stated", n=n) if n > 1 else say("the fact is stated")
    else:
        reason = say("%(facts)s missing", facts=_numbered(missing))
    return (n - len(missing)) / n, reason, checks


def conflicts(key: AnswerKey, response: str, settings: AnswerSettings) -> tuple[str, ...]:
    """Contradictions of the response with the reference answer and its facts: each number
    with a unit whose dimension the reference states but whose value it never gives, and each
    date that agrees with none of the reference's dates ("says 14 days, reference 7 days")."""
    reference = " \n ".join([*key.references, *(f.text for f in key.facts)])
    ref_numbers = V.quantities(reference, bare_words=False)
    ref_dates = V.dates(reference)
    out: list[Text] = []
    said = V.quantities(response, bare_words=False) if ref_numbers else ()
    by_dimension: dict[str | None, list[V.Quantity]] = {}  # the reference's numbers with a unit
    for r in ref_numbers if said else ():
        if r.unit is not None:
            by_dimension.setdefault(r.dimension, []).append(r)
    for q in said:  # compared with the reference's numbers it is comparable with, in order
        same_dim = by_dimension.get(q.dimension) if q.unit is not None else None
        if same_dim and not any(q.same_as(r, settings.number_tolerance) for r in same_dim):
            out.append(say("says %(a)s, reference %(b)s", a=q.surface, b=same_dim[0].surface))
    for d in V.dates(response) if ref_dates else ():
        if not any(d.same_as(r) for r in ref_dates):
            out.append(say("says %(a)s, reference %(b)s", a=V.iso(d), b=V.iso(ref_dates[0])))
    return tuple(dict.fromkeys(out))


def exact_match(key: AnswerKey, response: str, settings: AnswerSettings) -> tuple[float, str]:
    """(1 or 0, reason) for a closed answer type (see the module docstring): the first
    reference answer the response matches, else the primary one's reason."""
    first: tuple[float, str] | None = None
    for ref in key.references or ("",):
        value, why = _exact_match_one(key, ref, response, settings)
        if value == 1.0:
            return value, why
        first = first or (value, why)
    assert first is not None
    return first


def _exact_match_one(
    key: AnswerKey, ref: str, response: str, settings: AnswerSettings
) -> tuple[float, str]:
    kind = key.scored_type
    if kind == "number":
        return _number_match(ref, response, settings.number_tolerance)
    if kind == "date":
        return _date_match(ref, response)
    if kind == "boolean":
        want, got = V.polarity(ref), V.polarity(response)
        if want is None:
            return 0.0, say("the reference %(a)s is not yes or no", a=repr(ref))
        if got is None:
            return 0.0, say("no yes/no answer found (reference %(a)s)", a=want)
        if got == want:
            return 1.0, say("says %(a)s, as the reference", a=got)
        return 0.0, say("says %(a)s, reference %(b)s", a=got, b=want)
    if kind == "choice":
        picked = V.chosen(response, key.choices)
        want_c = V.chosen(ref, key.choices)
        if not picked:
            return 0.0, say("names no choice (reference %(a)s)", a=ref)
        if len(picked) > 1:
            return 0.0, say("names several choices: %(a)s", a=", ".join(picked))
        if want_c and picked[0] == want_c[0]:
            return 1.0, say("chose %(a)s, as the reference", a=picked[0])
        return 0.0, say("chose %(a)s, reference %(b)s", a=picked[0], b=ref)
    raise ValueError(f"exact_match applies to closed answer types, not {kind!r}")


def _number_match(ref: str, response: str, tolerance: float) -> tuple[float, str]:
    want = V.number_answer(ref)
    if not want:
        return 0.0, say("the reference %(a)s states no number", a=repr(ref))
    target = want[0]
    said = V.number_answer(response)
    hits = [q for q in said if q.same_as(target, tolerance)]
    if not hits:
        kin = [q for q in said if q.unit is None or target.unit is None or q.comparable(target)]
        if kin or said:  # a number of the same kind first, else any (7 business days)
            first = (kin or said)[0].surface
            return 0.0, say("says %(a)s, reference %(b)s", a=first, b=target.surface)
        return 0.0, say("states no number (reference %(a)s)", a=target.surface)
    others = [
        q
        for q in said
        if not q.same_as(target, tolerance) and (q.comparable(target) or q.unit == target.unit)
    ]
    if others:
        return 0.0, say("says %(a)s but also %(b)s", a=hits[0].surface, b=others[0].surface)
    return 1.0, say("says %(a)s, as the reference", a=hits[0].surface)


def _date_match(ref: str, response: str) -> tuple[float, str]:
    want = V.dates(ref)
    if not want:
        return 0.0, say("the reference %(a)s states no date", a=repr(ref))
    target = want[0]
    said = V.dates(response)
    if not said:
        return 0.0, say("states no date (reference %(a)s)", a=V.iso(target))
    hits = [d for d in said if d.same_as(target)]
    if not hits:
        return 0.0, say("says %(a)s, reference %(b)s", a=V.iso(said[0]), b=V.iso(target))
    others = [d for d in said if not d.same_as(target)]
    if others:
        return 0.0, say("says %(a)s but also %(b)s", a=V.iso(hits[0]), b=V.iso(others[0]))
    return 1.0, say("says %(a)s, as the reference", a=V.iso(hits[0]))


def answer_f1(
    key: AnswerKey, response: str, settings: AnswerSettings, *, no_facts: bool = False
) -> tuple[float, Text]:
    """(value, reason) of ``answer_f1``: the best F1 over the reference answers. ``no_facts``:
    the reason says it stands for answer correctness, the key having no facts."""
    refs = key.references
    f1, at = T.best_over_references(T.token_f1, response, refs, settings.tokenizer)
    cmrc = settings.tokenizer == T.AUTO and T.is_cmrc_pair(response, refs[at])
    shown = f"{f1:.2f}"
    if len(refs) > 1:
        values = {"kind": "CMRC 2018" if cmrc else say("token"), "f1": shown, "i": at + 1}
        if no_facts:
            return f1, say(
                "%(kind)s F1 %(f1)s against reference answer %(i)s of %(n)s (no key facts)",
                n=len(refs),
                **values,
            )
        return f1, say(
            "%(kind)s F1 %(f1)s against reference answer %(i)s of %(n)s", n=len(refs), **values
        )
    if cmrc and no_facts:
        return f1, say("CMRC 2018 F1 %(f1)s against the reference answer (no key facts)", f1=shown)
    if cmrc:
        return f1, say("CMRC 2018 F1 %(f1)s against the reference answer", f1=shown)
    if no_facts:
        return f1, say("token F1 %(f1)s against the reference answer (no key facts)", f1=shown)
    return f1, say("token F1 %(f1)s against the reference answer", f1=shown)


def squad_em(key: AnswerKey, response: str, settings: AnswerSettings) -> tuple[float, str]:
    """(1 or 0, reason) of ``squad_em``: the response is a reference answer's text after the
    pair's normalisation (SQuAD v2.0's, CMRC 2018's for Chinese)."""
    refs = key.references
    em, at = T.best_over_references(T.text_exact_match, response, refs, settings.tokenizer)
    rule = (
        "CMRC 2018"
        if settings.tokenizer == T.AUTO and T.is_cmrc_pair(response, refs[at])
        else "SQuAD v2.0"
    )
    if em == 1.0 and len(refs) > 1:
        return em, say(
            "the text of reference answer %(i)s of %(n)s (%(rule)s normalisation)",
            i=at + 1,
            n=len(refs),
            rule=rule,
        )
    if em == 1.0:
        return em, say("the text of the reference answer (%(rule)s normalisation)", rule=rule)
    return em, say("not the text of a reference answer (%(rule)s normalisation)", rule=rule)


def score_query(
    key: AnswerKey,
    staged: StagedQuery | None,
    specs: Sequence[M.Metric],
    settings: AnswerSettings,
) -> tuple[
    list[float],
    dict[str, str],
    dict[str, tuple[FactCheck, ...]],
    tuple[str, ...],
    F.Faithfulness | None,
]:
    """One query's values (NaN: does not apply), reasons, fact verdicts, conflicts and the
    faithfulness of its claims (None when not checked)."""
    nan = float("nan")
    vals: list[float] = []
    reasons: dict[str, str] = {}
    checks: dict[str, tuple[FactCheck, ...]] = {}
    response = None if staged is None else staged.response
    found: tuple[str, ...] = ()
    faithful: F.Faithfulness | None = None
    if response is not None and key.has_answer and not key.is_closed:
        # Only open answers use them (a closed answer's exact match reads its own values).
        found = conflicts(key, response, settings)

    def record(name: str, value: float, reason: str) -> None:
        vals.append(value)
        reasons[name] = reason

    # answer_correctness reuses what fact_coverage and exact_match computed, and vice versa.
    memo: dict[str, tuple[float, str, tuple[FactCheck, ...]]] = {}

    def coverage(response: str) -> tuple[float, str, tuple[FactCheck, ...]]:
        if FACT_COVERAGE not in memo:
            memo[FACT_COVERAGE] = fact_coverage(key, response, settings)
        return memo[FACT_COVERAGE]

    def matched(response: str) -> tuple[float, str]:
        if EXACT_MATCH not in memo:
            memo[EXACT_MATCH] = (*exact_match(key, response, settings), ())
        value, why, _ = memo[EXACT_MATCH]
        return value, why

    for spec in specs:
        name, fam = spec.name, spec.family
        if fam in JUDGE_ONLY:
            vals.append(nan)
            continue
        if fam == FAITHFULNESS:
            if staged is None or response is None:
                vals.append(nan)  # no response: no faithfulness, and not 0
                continue
            given = staged.contexts  # all the model was given, else the top K results
            ctx = given if given is not None else staged.contexts_at(settings.context_k)
            contexts = [c.text for c in ctx]
            faithful = F.faithfulness(
                response, contexts, threshold=settings.fact_overlap, tokenizer=settings.tokenizer
            )
            if faithful.value is None:
                vals.append(nan)
            else:
                record(name, faithful.value, faithful.reason)
            continue
        if fam == CONTEXT_RECALL:  # the contexts and the facts only (CONTEXT_FAMILIES)
            if not key.facts:
                vals.append(nan)
            elif staged is None:
                record(name, 0.0, say("missing from the run"))
            else:
                assert spec.k is not None
                v, why, fc = context_recall(key, staged, spec.k, settings)
                record(name, v, why)
                checks[name] = fc
            continue
        # Every metric below reads the response: one gate for all of them (reads_response).
        if response is None:
            vals.append(nan)
            continue
        if fam == FACT_COVERAGE:
            if not key.facts:
                vals.append(nan)
            else:
                v, why, fc = coverage(response)
                record(name, v, why)
                checks[name] = fc
        elif fam == ANSWER_F1:
            if key.reference_answer is None:
                vals.append(nan)
            else:
                record(name, *answer_f1(key, response, settings))
        elif fam == SQUAD_EM:
            if key.reference_answer is None or key.is_closed:
                vals.append(nan)
            else:
                record(name, *squad_em(key, response, settings))
        elif fam == EXACT_MATCH:
            if not key.is_closed:
                vals.append(nan)
            else:
                record(name, *matched(response))
        else:  # answer_correctness
            if not key.has_answer:
                vals.append(nan)
            elif key.is_closed:
                record(name, *matched(response))
            elif found:
                record(name, 0.0, joined(found, "; "))
            elif key.facts:
                v, why, fc = coverage(response)
                record(name, v, why)
                checks.setdefault(FACT_COVERAGE, fc)
            else:
                record(name, *answer_f1(key, response, settings, no_facts=True))
    return vals, reasons, checks, found, faithful


def score_answers(
    keys: Iterable[AnswerKey],
    run: Iterable[StagedQuery],
    metrics: Sequence[str],
    settings: AnswerSettings | None = None,
) -> AnswerResult:
    """Score every answer key's query on the answer ``metrics`` (see the module docstring).
    Run queries without an answer key are ignored and listed in ``not_in_keys``."""
    settings = settings or AnswerSettings()
    specs = [parse_answer_metric(m) for m in dict.fromkeys(metrics)]
    names = tuple(dict.fromkeys(s.name for s in specs))
    specs = [parse_answer_metric(n) for n in names]
    key_list = list(keys)
    by_id = {s.query_id: s for s in run}
    qids = tuple(k.query_id for k in key_list)
    known = set(qids)
    rows: list[list[float]] = []
    reasons: list[Mapping[str, str]] = []
    checks: list[Mapping[str, tuple[FactCheck, ...]]] = []
    found: list[tuple[str, ...]] = []
    claims: list[F.Faithfulness | None] = []
    for key in key_list:
        vals, why, fc, conf, faithful = score_query(key, by_id.get(key.query_id), specs, settings)
        rows.append(vals)
        reasons.append(why)
        checks.append(fc)
        found.append(conf)
        claims.append(faithful)
    values = np.array(rows, dtype=np.float64).reshape(len(key_list), len(specs))
    return AnswerResult(
        settings=settings,
        metrics=names,
        query_ids=qids,
        values=values,
        reasons=tuple(reasons),
        fact_checks=tuple(checks),
        conflicts=tuple(found),
        categories=tuple(k.category for k in key_list),
        missing_from_run=tuple(
            k.query_id for k in key_list if k.query_id not in by_id and k.has_answer
        ),
        not_in_keys=tuple(q for q in by_id if q not in known),
        claims=tuple(claims),
    )


# --------------------------------------------------------------------------------------------
# Stages


def first_stage_result(
    judgments: M.JudgmentColumns | Mapping[str, Mapping[str, int]],
    run: Iterable[StagedQuery],
    metrics: Sequence[str],
    settings: M.EvalSettings | None = None,
) -> M.EvalResult:
    """Retrieval ``metrics`` (``recall@50`` or ``first_stage:recall@50``) computed with
    :func:`goldsmith.metrics.evaluate` on the first-stage ``candidates`` of the run, named
    ``first_stage:<metric>``. A query without candidates counts as missing from the first
    stage (0 on every metric, as a query missing from a run); a run none of whose queries has
    candidates is a ValueError."""
    inner = [m.strip()[len(FIRST_STAGE) :] if is_stage_metric(m) else m for m in metrics]
    staged = list(run)
    if not any(s.candidates is not None for s in staged):
        raise ValueError(
            "first-stage metrics need the run's candidates (the first stage); "
            "no query of the run has a candidates list"
        )
    ranking: dict[str, list[str]] = {
        s.query_id: [c.id for c in s.candidates] for s in staged if s.candidates is not None
    }
    result = M.evaluate(judgments, ranking, inner, settings)
    return replace(result, metrics=tuple(FIRST_STAGE + m for m in result.metrics))
