"""An HTTP judge for open answers: a program that reads the question, the reference answer, its
key facts and the response, and returns a score in [0, 1] with a reason.

Pure module (no Django). The rules of :mod:`goldsmith.answers.scoring` stay the reference: a
judge only replaces ``answer_correctness`` of open answers (closed ones keep their exact
match), and the report says, per metric and per query, which scorer produced each number
(``rules`` or ``judge:<name>``). The pieces:

- :class:`AnswerJudgeConfig`: the judge's URL and how to call it (body template, score and
  reason paths, timeout, concurrency, retries, backoff, batch size, extra headers) and what the
  run records about it: ``name``, ``model``, ``prompt_version`` and ``temperature`` as
  configured (:class:`JudgeIdentity`). Holds no secret: the auth header travels separately and
  is never logged, returned or shown in a repr.
- :class:`HttpAnswerJudge`: calls the judge through the retriever client
  (:meth:`goldsmith.retrievers.http.HttpRetrieverClient.call`: the same SSRF guard and DNS
  pinning, redirects re-checked, the auth header sent to the configured origin only,
  temporary failures retried with backoff), at most ``max_concurrency`` requests at a time,
  handing finished answers back in batches of ``batch_size`` (:meth:`HttpAnswerJudge.stream`).
  A query whose judge fails (after the retries, or with a response of the wrong shape) gets
  its error, never an exception.
- :class:`JudgeResults` and :func:`apply_judge`: the judged answers of a run and how they
  enter an :class:`goldsmith.answers.scoring.AnswerResult` (used by
  :func:`goldsmith.answers.report.answer_report`).
- :func:`fact_overlap_score` and :class:`AnswerJudgeStub`: the stub judge (key-fact word
  overlap, an optional fixed delay) behind ``goldsmith answer-judge-stub``, for tests, the demo
  and the benchmark. Not a judge to trust.

The wire format (docs/formats.md, "HTTP answer judge"): one POST per answer, whose body is a
JSON template. A string that is exactly ``"{facts}"`` becomes the list of the key facts' texts,
exactly ``"{reference_answer}"`` the reference answer or null, exactly ``"{temperature}"`` the
temperature (a number or null); inside a longer string ``{query}``, ``{query_id}``,
``{reference_answer}``, ``{answer_type}``, ``{facts}`` (one numbered fact per line),
``{response}``, ``{model}``, ``{prompt_version}`` and ``{temperature}`` are replaced in one
pass (a value holding a placeholder's text is not replaced again). The judge answers JSON with
the score at ``score_path`` (default ``score``: a number, or a string holding one, from 0 to 1)
and the reason at ``reason_path`` (default ``reason``).
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from goldsmith.answers import scoring as S
from goldsmith.answers.model import AnswerKey, StagedQuery
from goldsmith.judges import JsonStubServer, JudgeCall, JudgeClient, content_words
from goldsmith.retrievers.http import (
    PermanentFailure,
    call_all,
    dig,
    stream_calls,
)
from goldsmith.retrievers.ssrf import Policy, Resolver, system_resolver
from goldsmith.text import say

RULES = "rules"
JUDGE_PREFIX = "judge:"
MAX_REASON = 2000

DEFAULT_BODY_TEMPLATE = (
    '{"query_id": "{query_id}", "question": "{query}", '
    '"reference_answer": "{reference_answer}", "answer_type": "{answer_type}", '
    '"facts": "{facts}", "response": "{response}", "contexts": "{contexts}", '
    '"model": "{model}", "prompt_version": "{prompt_version}", "temperature": "{temperature}"}'
)
# The metrics a judge may score besides answer_correctness, each read at its own path of the
# judge's answer (a score from 0 to 1, or an object with "score" and "reason").
MORE_METRICS: tuple[str, ...] = (S.FAITHFULNESS, S.ANSWER_RELEVANCE)
PLACEHOLDERS = (
    "query_id",
    "query",
    "reference_answer",
    "answer_type",
    "facts",
    "response",
    "contexts",
    "model",
    "prompt_version",
    "temperature",
)
_PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")
# A header name as HTTP allows it (RFC 9110 token).
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


# --------------------------------------------------------------------------------------------
# Configuration


@dataclass(frozen=True)
class JudgeIdentity:
    """What a run records about its judge, as configured: two runs' correctness compare
    fairly only when these are equal. ``scorer`` is the name reports use (``judge:<name>``)."""

    name: str
    model: str = ""
    prompt_version: str = ""
    temperature: float | None = None

    @property
    def scorer(self) -> str:
        return JUDGE_PREFIX + self.name

    def to_json(self) -> dict[str, Any]:
        return {"scorer": self.scorer, **asdict(self)}

    def describe(self) -> str:
        """``judge:sage (model m-1, prompt v2, temperature 0)``; parts not set are left out."""
        parts = []
        if self.model:
            parts.append(f"model {self.model}")
        if self.prompt_version:
            parts.append(f"prompt {self.prompt_version}")
        if self.temperature is not None:
            parts.append(f"temperature {self.temperature:g}")
        return self.scorer + (f" ({', '.join(parts)})" if parts else "")


@dataclass(frozen=True)
class AnswerJudgeConfig(JudgeCall):
    """How to call one answer judge (the call settings are :class:`JudgeCall`'s), and what
    the run records about it. Holds no secret."""

    url: str
    body_template: str = DEFAULT_BODY_TEMPLATE
    name: str = "judge"
    model: str = ""
    prompt_version: str = ""
    temperature: float | None = None
    score_path: str = "score"
    reason_path: str = "reason"
    faithfulness_path: str = S.FAITHFULNESS
    relevance_path: str = S.ANSWER_RELEVANCE

    @property
    def identity(self) -> JudgeIdentity:
        return JudgeIdentity(self.name, self.model, self.prompt_version, self.temperature)

    def more_paths(self) -> dict[str, str]:
        """Metric → the path of its score in the judge's answer (an empty path: not read)."""
        paths = {S.FAITHFULNESS: self.faithfulness_path, S.ANSWER_RELEVANCE: self.relevance_path}
        return {m: p for m, p in paths.items() if p}

    def problems(self) -> list[str]:
        """What is wrong with this configuration (empty when it is usable)."""
        out: list[str] = []
        if not self.name.strip() or len(self.name) > 100 or any(c.isspace() for c in self.name):
            out.append("the name must be 1 to 100 characters without spaces")
        if len(self.model) > 200 or len(self.prompt_version) > 200:
            out.append("the model and the prompt version must be at most 200 characters")
        if self.temperature is not None and not (
            math.isfinite(self.temperature) and self.temperature >= 0.0
        ):
            out.append("the temperature must be a number of at least 0")
        out += self.call_problems(
            sent="the response's text", placeholders=("{response}",),
            score_path=("score path", self.score_path),
        )  # fmt: skip
        return out


def parse_auth_header(text: str, *, source: str) -> tuple[str, str]:
    """``"Authorization: Bearer …"`` → (name, value). ValueError naming ``source`` (e.g. the
    environment variable) but never the value, when it is not ``Name: value``."""
    name, sep, value = text.partition(":")
    name, value = name.strip(), value.strip()
    if not sep or not _HEADER_NAME.match(name) or not value:
        raise ValueError(
            f"{source} must hold one header as 'Name: value' (e.g. 'Authorization: Bearer …')"
        )
    if any(c in value for c in "\r\n\0"):
        raise ValueError(f"{source}: the header value holds a line break or NUL")
    return name, value


# --------------------------------------------------------------------------------------------
# Items, requests and answers


@dataclass(frozen=True)
class AnswerItem:
    """One answer to judge: the query, its reference answer, type and key facts' texts, the
    run's response and the texts of the contexts the model was given."""

    query_id: str
    question: str
    reference_answer: str | None
    answer_type: str
    facts: tuple[str, ...]
    response: str
    contexts: tuple[str, ...] = ()


@dataclass(frozen=True)
class JudgedAnswer:
    """The judge's answer for one query: its score and reason, or None and the error.
    ``latency_ms`` is the duration of the last attempt. ``more`` holds what the judge said of
    the other metrics it scores (:data:`MORE_METRICS`): metric → ``{"score", "reason"}``, or
    ``{"score": None, "error"}`` when what it sent is not a score; a metric it did not answer
    is absent."""

    query_id: str
    score: float | None
    reason: str = ""
    attempts: int = 0
    latency_ms: float = 0.0
    error: str = ""
    more: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.score is not None


def judge_items(
    keys: Iterable[AnswerKey],
    run: Iterable[StagedQuery],
    *,
    every_response: bool = False,
    context_k: int = 5,
) -> list[AnswerItem]:
    """The answers a judge scores, in the keys' order: open answers (a reference answer or key
    facts, and no closed type) whose query has a response in the run; with
    ``every_response`` (the judge scores faithfulness or answer relevance too), every query
    with a response. Closed answers keep the rules' exact match; a missing response scores 0
    by rule. Each item carries its contexts' texts (the run's contexts, else its top
    ``context_k`` results' texts)."""
    staged = {s.query_id: s for s in run}
    items: list[AnswerItem] = []
    for key in keys:
        s = staged.get(key.query_id)
        response = None if s is None else s.response
        if s is None or response is None or not (every_response or is_judged(key)):
            continue
        items.append(
            AnswerItem(
                query_id=key.query_id,
                question=key.query or "",
                reference_answer=key.reference_answer,
                answer_type=key.scored_type,
                facts=tuple(f.text for f in key.facts),
                response=response,
                contexts=context_texts(s, context_k),
            )
        )
    return items


def context_texts(staged: StagedQuery, k: int) -> tuple[str, ...]:
    """The texts of the contexts the model was given (the run's, else its top ``k``
    results'), empty ones left out: what faithfulness reads."""
    given = staged.contexts if staged.contexts is not None else staged.contexts_at(k)
    return tuple(c.text for c in given if c.text and c.text.strip())


def is_judged(key: AnswerKey) -> bool:
    """Whether a judge scores this query's correctness: an open answer that can be scored."""
    return key.has_answer and not key.is_closed


def render_request(value: Any, item: AnswerItem, identity: JudgeIdentity) -> Any:
    """Fill the placeholders of a parsed JSON template with one item's values."""
    temperature = "" if identity.temperature is None else f"{identity.temperature:g}"
    words = {
        "query_id": item.query_id,
        "query": item.question,
        "reference_answer": item.reference_answer or "",
        "answer_type": item.answer_type,
        "facts": "\n".join(f"{i}. {f}" for i, f in enumerate(item.facts, 1)),
        "response": item.response,
        "contexts": "\n".join(f"[{i}] {c}" for i, c in enumerate(item.contexts, 1)),
        "model": identity.model,
        "prompt_version": identity.prompt_version,
        "temperature": temperature,
    }

    def fill(v: Any) -> Any:
        if isinstance(v, str):
            if v == "{facts}":
                return list(item.facts)
            if v == "{contexts}":
                return list(item.contexts)
            if v == "{reference_answer}":
                return item.reference_answer
            if v == "{temperature}":
                return identity.temperature
            return _PLACEHOLDER.sub(lambda m: words[m.group(1)], v)
        if isinstance(v, list):
            return [fill(x) for x in v]
        if isinstance(v, dict):
            return {k: fill(x) for k, x in v.items()}
        return v

    return fill(value)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return f"{value!r}"[:40]
    if isinstance(value, str):
        return "a text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "nothing"


def _score(raw: Any, path: str) -> tuple[float | None, str]:
    """(the score, "") when ``raw`` is a score from 0 to 1 (a JSON number, or a string holding
    one); else (None, the error saying what came at ``path``)."""
    value: float | None = None
    if isinstance(raw, str):
        try:
            value = float(raw.strip())
        except ValueError:
            value = None
    elif isinstance(raw, int | float) and not isinstance(raw, bool):
        value = float(raw)
    if value is None or not math.isfinite(value) or not 0.0 <= value <= 1.0:
        got = _kind(raw) if value is None else f"{value!r}"[:40]
        return None, f"the response's {path!r} is not a score from 0 to 1 (got {got})"
    return value, ""


def parse_judgement(payload: Any, config: AnswerJudgeConfig) -> tuple[float, str]:
    """(score, reason) from a decoded response; PermanentFailure when the score is missing or
    not a number from 0 to 1 (a JSON number, or a string holding one). The error describes what
    came (a text, a list, 1.5) without repeating a text the judge sent."""
    value, error = _score(dig(payload, config.score_path), config.score_path)
    if value is None:
        raise PermanentFailure(error)
    reason = dig(payload, config.reason_path) if config.reason_path else ""
    if isinstance(reason, str):
        text = reason
    elif reason is None or not isinstance(reason, int | float | list | dict):
        text = ""  # absent
    else:
        text = json.dumps(reason, ensure_ascii=False)
    return value, text[:MAX_REASON]


def parse_more(payload: Any, config: AnswerJudgeConfig) -> dict[str, dict[str, Any]]:
    """What the judge's answer says of the other metrics (:data:`MORE_METRICS`), each at its
    path: a score from 0 to 1 (a number, or a string holding one), or an object with
    ``score`` and ``reason``. A metric the answer does not hold is left out; one whose value is
    not a score is kept with its error (that metric fails for that query, not the others)."""
    out: dict[str, dict[str, Any]] = {}
    for metric, path in config.more_paths().items():
        found: Any = dig(payload, path)
        if found is None:
            continue
        raw, reason = found, ""
        if isinstance(found, dict):
            raw, reason = found.get("score"), found.get("reason", "")
        value, error = _score(raw, path)
        if value is None:
            out[metric] = {"score": None, "error": error}
            continue
        text = reason if isinstance(reason, str) else json.dumps(reason, ensure_ascii=False)
        out[metric] = {"score": value, "reason": text[:MAX_REASON]}
    return out


_Done = tuple[int, "JudgedAnswer"]  # an item's position and its answer


class HttpAnswerJudge(JudgeClient[AnswerJudgeConfig]):
    """Scores answers through one judge endpoint; a configuration with problems is refused
    (ValueError)."""

    def __init__(
        self,
        config: AnswerJudgeConfig,
        *,
        policy: Policy,
        auth_header: tuple[str, str] | None = None,
        resolver: Resolver = system_resolver,
    ) -> None:
        problems = config.problems()
        if problems:
            raise ValueError("; ".join(problems))
        super().__init__(config, policy=policy, auth_header=auth_header, resolver=resolver)
        self.identity = config.identity

    def __repr__(self) -> str:  # never show the auth header
        return f"HttpAnswerJudge({self.identity.scorer!r}, {self.config.url!r})"

    def judge(self, item: AnswerItem) -> JudgedAnswer:
        """One answer's score and reason (retrying temporary failures), or its error."""
        answer = self._client.call(
            self.config.url,
            render_request(self._template, item, self.identity),
            lambda payload: (
                *parse_judgement(payload, self.config),
                parse_more(payload, self.config),
            ),
        )
        if answer.value is None:
            return JudgedAnswer(
                item.query_id,
                None,
                attempts=answer.attempts,
                latency_ms=answer.latency_ms,
                error=answer.error,
            )
        score, reason, more = answer.value
        return JudgedAnswer(
            item.query_id, score, reason, answer.attempts, answer.latency_ms, more=more
        )

    def stream(
        self, items: Iterable[AnswerItem], *, tick: float = 1.0
    ) -> Iterator[list[JudgedAnswer]]:
        """Judge every item with at most ``max_concurrency`` requests in flight. Yields the
        finished answers in batches of ``batch_size`` (in the order they finished), and what is
        finished so far at least every ``tick`` seconds (possibly an empty list), so that a
        caller can save each batch, renew a lease or stop; the last batch may be shorter.
        Closing the generator stops the items not yet started."""
        for batch in self._stream(enumerate(items), tick):
            yield [answer for _, answer in batch]

    def _stream(
        self, items: Iterable[tuple[int, AnswerItem]], tick: float
    ) -> Iterator[list[_Done]]:
        return stream_calls(
            lambda pair: (pair[0], self.judge(pair[1])),
            items,
            self.concurrency,
            tick=tick,
            batch_size=self.config.batch_size,
            name="answer-judge",
        )

    def judge_many(self, items: Sequence[AnswerItem]) -> list[JudgedAnswer]:
        """Every item's answer, in the items' order."""
        return call_all(self.judge, items, self.concurrency)

    def judge_run(
        self,
        keys: Sequence[AnswerKey],
        run: Sequence[StagedQuery],
        *,
        every_response: bool = False,
        context_k: int = 5,
    ) -> JudgeResults:
        """Judge every open answer of a run, or every response (:func:`judge_items`)."""
        started = time.perf_counter()
        items = judge_items(keys, run, every_response=every_response, context_k=context_k)
        answers = self.judge_many(items)
        return JudgeResults(self.identity, tuple(answers), seconds=time.perf_counter() - started)


# --------------------------------------------------------------------------------------------
# Results, and how they enter the answer scores


@dataclass(frozen=True)
class JudgeResults:
    """A judge's answers for the open answers of one run, with the judge's identity. The web
    app may build one from stored rows; ``seconds`` is the time the judging took (0 unknown)."""

    identity: JudgeIdentity
    answers: tuple[JudgedAnswer, ...]
    seconds: float = 0.0

    @property
    def scorer(self) -> str:
        return self.identity.scorer

    def by_query(self) -> dict[str, JudgedAnswer]:
        return {a.query_id: a for a in self.answers}

    def failures(self) -> dict[str, str]:
        """Query → error, for every answer the judge did not score."""
        return {a.query_id: a.error for a in self.answers if not a.ok}

    def metrics_answered(self) -> tuple[str, ...]:
        """The metrics of :data:`MORE_METRICS` that some answer of the judge holds: the judge
        scores those, and the rules do not (for any query of the run)."""
        return tuple(m for m in MORE_METRICS if any(m in a.more for a in self.answers))

    def to_json(self) -> dict[str, Any]:
        """JSON-ready, for a run to store its judge and every reason (:meth:`from_json`)."""
        return {
            "judge": self.identity.to_json(),
            "seconds": self.seconds,
            # "more" only when the judge said something of another metric (the shape of old runs)
            "answers": [
                {k: v for k, v in asdict(a).items() if k != "more" or v} for a in self.answers
            ],
        }

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> JudgeResults:
        """What :meth:`to_json` wrote; KeyError or TypeError on another shape."""
        judge = doc["judge"]
        identity = JudgeIdentity(
            str(judge["name"]),
            str(judge.get("model") or ""),
            str(judge.get("prompt_version") or ""),
            None if judge.get("temperature") is None else float(judge["temperature"]),
        )
        answers = tuple(
            JudgedAnswer(
                str(a["query_id"]),
                None if a["score"] is None else float(a["score"]),
                str(a.get("reason", "")),
                int(a.get("attempts", 0)),
                float(a.get("latency_ms", 0.0)),
                str(a.get("error", "")),
                {str(m): dict(v) for m, v in (a.get("more") or {}).items()},
            )
            for a in doc["answers"]
        )
        return cls(identity, answers, float(doc.get("seconds", 0.0)))


@dataclass(frozen=True)
class Applied:
    """An answer result with the judge's correctness in it, and which scorer gave each query's
    ``answer_correctness`` (``rules`` or ``judge:<name>``; queries it does not apply to are not
    listed). ``failed`` maps a judged query the judge gave no score to its error; its
    correctness is left unscored (out of the mean, unplaced in the quadrants)."""

    result: S.AnswerResult
    scored_by: dict[str, str]
    failed: dict[str, str]
    judged: int
    more: dict[str, dict[str, str]] = field(default_factory=dict)
    """Each other metric the judge scored (:meth:`JudgeResults.metrics_answered`) → query →
    ``judge:<name>``, for every query it applies to (a response, and for faithfulness a
    context text); those the judge gave no score are unscored, their reason saying why."""


def apply_judge(
    result: S.AnswerResult,
    keys: Sequence[AnswerKey],
    run: Sequence[StagedQuery],
    judged: JudgeResults,
) -> Applied:
    """``result`` with ``answer_correctness`` of every open answer that has a response replaced
    by the judge's score, and its reason by the judge's. Closed answers keep the rules' exact
    match, and a query without a response its rule score 0. A judged query the judge failed
    (or has no answer for) is left unscored, its reason saying why. The other metrics
    (``fact_coverage``, ``answer_f1``...) stay the rules'. A result without
    ``answer_correctness`` keeps the rules' on it.

    ``faithfulness`` and ``answer_relevance``, when the result holds them and the judge
    answered them for some query (:meth:`JudgeResults.metrics_answered`), are the judge's for
    every query with a response (faithfulness: and a context text), with the judge's reason;
    a query it gave none is left unscored (not the rules' score), its reason saying why."""
    responses = {s.query_id: s.response for s in run}
    answers = judged.by_query()
    by_key = {k.query_id: k for k in keys}
    values = result.values.copy()
    reasons = [dict(r) for r in result.reasons]
    scored_by: dict[str, str] = {}
    failed: dict[str, str] = {}
    ok = 0
    more = _apply_more(result, run, judged, values, reasons)
    if S.ANSWER_CORRECTNESS not in result.metrics:
        new = replace(result, values=values, reasons=tuple(reasons))
        return Applied(new, {}, {}, 0, more)
    col = result.metrics.index(S.ANSWER_CORRECTNESS)
    for row, qid in enumerate(result.query_ids):
        key = by_key.get(qid)
        current = float(values[row, col])
        if key is None:
            continue
        if not is_judged(key) or responses.get(qid) is None:
            if current == current:
                scored_by[qid] = RULES
            continue
        scored_by[qid] = judged.scorer
        answer = answers.get(qid)
        if answer is None or answer.score is None:
            error = say("the judge was not asked") if answer is None else answer.error
            failed[qid] = error
            values[row, col] = np.nan
            reasons[row][S.ANSWER_CORRECTNESS] = say(
                "%(judge)s gave no score: %(error)s", judge=judged.scorer, error=error
            )
            continue
        ok += 1
        values[row, col] = answer.score
        reasons[row][S.ANSWER_CORRECTNESS] = answer.reason or say(
            "%(judge)s gave no reason", judge=judged.scorer
        )
    new = replace(result, values=values, reasons=tuple(reasons))
    return Applied(new, scored_by, failed, ok, more)


def _apply_more(
    result: S.AnswerResult,
    run: Sequence[StagedQuery],
    judged: JudgeResults,
    values: np.ndarray,
    reasons: list[dict[str, str]],
) -> dict[str, dict[str, str]]:
    """Put the judge's faithfulness and answer relevance into ``values`` and ``reasons`` (see
    :func:`apply_judge`); metric → query → scorer."""
    staged = {s.query_id: s for s in run}
    answers = judged.by_query()
    out: dict[str, dict[str, str]] = {}
    for metric in judged.metrics_answered():
        if metric not in result.metrics:
            continue
        col = result.metrics.index(metric)
        by: dict[str, str] = {}
        for row, qid in enumerate(result.query_ids):
            s = staged.get(qid)
            if s is None or s.response is None:
                continue
            if metric == S.FAITHFULNESS and not context_texts(s, result.settings.context_k):
                continue  # no context: no faithfulness, whoever scores it
            by[qid] = judged.scorer
            answer = answers.get(qid)
            given = None if answer is None else answer.more.get(metric)
            if answer is None or (answer.score is None and given is None):
                error = say("the judge was not asked") if answer is None else answer.error
                why = say("%(judge)s gave no score: %(error)s", judge=judged.scorer, error=error)
            elif given is None:
                why = say("%(judge)s gave no %(metric)s", judge=judged.scorer, metric=metric)
            elif given.get("score") is None:
                why = say(
                    "%(judge)s gave no score: %(error)s",
                    judge=judged.scorer,
                    error=given.get("error", ""),
                )
            else:
                values[row, col] = float(given["score"])
                reasons[row][metric] = str(given.get("reason") or "") or say(
                    "%(judge)s gave no reason", judge=judged.scorer
                )
                continue
            values[row, col] = np.nan
            reasons[row][metric] = why
        out[metric] = by
    return out


# --------------------------------------------------------------------------------------------
# The stub: key-fact word overlap

STATED_SHARE = 0.5  # a fact is stated when the response holds half of its content words


def fact_overlap_score(
    reference_answer: str | None, facts: Sequence[str], response: str
) -> tuple[float, str]:
    """(score, reason) by word overlap, for the stub judge: with key facts, the share of facts
    at least half of whose content words (distinct, lower-cased, stopwords left out;
    :func:`goldsmith.judges.content_words`) are in the response; without, the share of the
    reference answer's content words in the response; with neither, 0."""
    have = set(content_words(response))
    if facts:
        missing = []
        for i, fact in enumerate(facts, 1):
            words = content_words(fact)
            hits = sum(w in have for w in words)
            if not words or hits / len(words) < STATED_SHARE:
                missing.append(i)
        n = len(facts)
        if not missing:
            return 1.0, f"all {n} facts stated" if n > 1 else "the fact is stated"
        names = ", ".join(map(str, missing))
        return (n - len(missing)) / n, f"{n - len(missing)} of {n} facts stated; missing: {names}"
    if reference_answer:
        ref_words = content_words(reference_answer)
        if not ref_words:
            return 0.0, "the reference answer has no content words"
        shared = [w for w in ref_words if w in have]
        return len(shared) / len(ref_words), (
            f"{len(shared)} of {len(ref_words)} reference words in the response"
        )
    return 0.0, "neither key facts nor a reference answer to compare with"


def question_overlap_score(question: str, response: str) -> tuple[float, str]:
    """(score, reason) of the stub's answer relevance: the share of the question's content
    words (:func:`goldsmith.judges.content_words`) the response holds; 0 without any."""
    asked = content_words(question)
    if not asked:
        return 0.0, "the question has no content words"
    have = set(content_words(response))
    shared = [w for w in asked if w in have]
    return len(shared) / len(asked), f"{len(shared)} of {len(asked)} question words answered"


def stub_more(question: str, contexts: Sequence[str] | None, response: str) -> dict[str, Any]:
    """What the stub says of faithfulness (the rules' own, :mod:`goldsmith.answers.faithfulness`,
    when contexts were sent and the response makes a claim) and answer relevance (when a
    question was sent)."""
    from goldsmith.answers.faithfulness import faithfulness

    out: dict[str, Any] = {}
    if contexts is not None:
        f = faithfulness(response, contexts)
        if f.value is not None:
            out[S.FAITHFULNESS] = {"score": f.value, "reason": str(f.reason)}
    if question.strip():
        score, reason = question_overlap_score(question, response)
        out[S.ANSWER_RELEVANCE] = {"score": score, "reason": reason}
    return out


class AnswerJudgeStub(JsonStubServer):
    """The stub as an HTTP answer judge (``goldsmith answer-judge-stub``; tests and the
    benchmark run it too): POST the default body (a JSON object with ``response``, and
    ``reference_answer`` and ``facts``; ``question`` and ``contexts`` when sent) to any path,
    get ``{"score", "reason"}``, with ``faithfulness`` and ``answer_relevance``
    (:func:`stub_more`). Token, delay, ``calls``, ``peak`` and ``bodies`` as
    :class:`~goldsmith.judges.JsonStubServer` says."""

    def answer(self, body: bytes) -> tuple[Any, dict[str, Any]]:
        payload = json.loads(body or b"{}")
        reference, facts, response = _stub_fields(payload)
        question, contexts = _stub_more_fields(payload)
        score, reason = fact_overlap_score(reference, facts, response)
        return payload, {
            "score": score,
            "reason": reason,
            **stub_more(question, contexts, response),
        }


def _stub_more_fields(payload: dict[str, Any]) -> tuple[str, list[str] | None]:
    """(question, contexts or None) of a stub request; ValueError when malformed."""
    question = payload.get("question") or ""
    contexts = payload.get("contexts")
    if not isinstance(question, str):
        raise ValueError("'question' must be a string")
    if isinstance(contexts, str):  # a template that put the contexts inside a text
        contexts = [line.split("] ", 1)[-1] for line in contexts.splitlines() if line.strip()]
    if contexts is not None and (
        not isinstance(contexts, list) or not all(isinstance(c, str) for c in contexts)
    ):
        raise ValueError("'contexts' must be a list of strings")
    return question, contexts


def _stub_fields(payload: Any) -> tuple[str | None, list[str], str]:
    """(reference answer, facts, response) of a stub request; ValueError when malformed."""
    if not isinstance(payload, dict):
        raise ValueError("send a JSON object")
    response = payload.get("response")
    reference = payload.get("reference_answer")
    facts = payload.get("facts", [])
    if not isinstance(response, str):
        raise ValueError("'response' must be a string")
    if reference is not None and not isinstance(reference, str):
        raise ValueError("'reference_answer' must be a string or null")
    if isinstance(facts, str):  # a template that put the facts inside a text
        facts = [line.split(". ", 1)[-1] for line in facts.splitlines() if line.strip()]
    if not isinstance(facts, list) or not all(isinstance(f, str) for f in facts):
        raise ValueError("'facts' must be a list of strings")
    return reference, facts, response


__all__ = [
    "DEFAULT_BODY_TEMPLATE",
    "RULES",
    "AnswerItem",
    "AnswerJudgeConfig",
    "AnswerJudgeStub",
    "Applied",
    "HttpAnswerJudge",
    "JudgeIdentity",
    "JudgeResults",
    "JudgedAnswer",
    "apply_judge",
    "context_texts",
    "fact_overlap_score",
    "is_judged",
    "judge_items",
    "parse_auth_header",
    "parse_judgement",
    "parse_more",
    "question_overlap_score",
    "render_request",
    "stub_more",
]
