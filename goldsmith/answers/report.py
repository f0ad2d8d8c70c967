"""The answer report: every answer and first-stage figure of a run, JSON-ready, and its
comparison and drift against another run.

Pure module. ``goldsmith eval``, ``compare`` and ``drift`` print what these functions return,
and the web app is meant to store and show the same dictionaries, so a figure on a page equals
the one a CI job computes from files. Means, confidence intervals, paired tests and drift
significance are the retrieval ones (:mod:`goldsmith.metrics`, :mod:`goldsmith.verdicts`),
applied to each answer metric over the queries it applies to.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from goldsmith import metrics as M
from goldsmith import stats
from goldsmith.answers import faithfulness as F
from goldsmith.answers import quadrants as Q
from goldsmith.answers import scoring as S
from goldsmith.answers.model import AnswerKey, StagedQuery
from goldsmith.bands import TOLERANCE
from goldsmith.reporting import aggregate_json, json_number
from goldsmith.text import say

if TYPE_CHECKING:  # the judge's module (and its HTTP client) loads only when a judge is used
    from goldsmith.answers import judge as J

SCORER = "rules"  # goldsmith.answers.judge.RULES
# What an answer judge may score: correctness of open answers, faithfulness, answer relevance.
JUDGED_METRICS: tuple[str, ...] = (S.ANSWER_CORRECTNESS, S.FAITHFULNESS, S.ANSWER_RELEVANCE)


@dataclass(frozen=True)
class AnswerRun:
    """One run scored on answer and first-stage metrics.

    ``scorers`` maps a metric that a judge scored (``answer_correctness`` of open answers) to
    the judge's identity (:meth:`goldsmith.answers.judge.JudgeIdentity.to_json`); every other
    metric is the rules'. ``judged`` is how the judge's answers entered the scores.
    ``has_answers`` is False for a run none of whose queries has a response
    (:func:`goldsmith.answers.scoring.has_answers`): it holds no metric that reads one."""

    answers: S.AnswerResult | None
    first_stage: M.EvalResult | None
    scorers: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    judged: J.Applied | None = None
    has_answers: bool = True

    def scorer(self, metric: str) -> Mapping[str, Any]:
        """Who scored ``metric``: the judge's identity, or ``{"scorer": "rules"}``."""
        return self.scorers.get(metric, {"scorer": SCORER})

    def results(self) -> dict[str, M.EvalResult]:
        """Each metric as a one-metric :class:`goldsmith.metrics.EvalResult`."""
        out: dict[str, M.EvalResult] = {}
        if self.answers is not None:
            for m in self.answers.metrics:
                out[m] = self.answers.eval_result(m)
        if self.first_stage is not None:
            for m in self.first_stage.metrics:
                j = self.first_stage.metrics.index(m)
                out[m] = replace(
                    self.first_stage, metrics=(m,), values=self.first_stage.values[:, [j]]
                )
        return out


def split_metrics(names: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
    """(retrieval, first-stage, answer) metric names, canonical, in the order given."""
    canon = [S.parse_any_metric(n) for n in names]
    retrieval = [n for n in canon if not S.is_stage_metric(n) and not S.is_answer_metric(n)]
    stage = [n for n in canon if S.is_stage_metric(n)]
    answer = [n for n in canon if S.is_answer_metric(n)]
    return retrieval, stage, answer


def applicable(metrics: Sequence[str], answered: bool) -> list[str]:
    """``metrics`` that a run can be scored on: all of them when it has answers (``answered``),
    else those that read no response (:func:`goldsmith.answers.scoring.reads_response`: context
    recall, the first stage, retrieval). The run-level gate of every answer figure."""
    if answered:
        return list(metrics)
    return [m for m in metrics if not (S.is_answer_metric(m) and S.reads_response(m))]


def score_run(
    keys: Sequence[AnswerKey],
    run: Sequence[StagedQuery],
    metrics: Sequence[str],
    *,
    judgments: M.JudgmentColumns | None = None,
    settings: S.AnswerSettings | None = None,
    eval_settings: M.EvalSettings | None = None,
    judge: J.JudgeResults | None = None,
) -> AnswerRun:
    """Score the answer metrics and the first-stage metrics among ``metrics`` (retrieval ones
    are ignored here). First-stage metrics need ``judgments``.

    With ``judge`` (a judge's answers for the run's open answers) and ``answer_correctness``
    among the metrics, open answers take the judge's score and reason as their correctness
    (:func:`goldsmith.answers.judge.apply_judge`), and the rules' ``fact_coverage`` and
    ``answer_f1`` are scored too, so the rule-based figures stay beside the judge's.

    A run without answers (no query with a response) is scored on context recall and the
    first stage only (:func:`applicable`); ``has_answers`` says so."""
    answered = S.has_answers(run)
    _, stage, answer = split_metrics(applicable(metrics, answered))
    judging = judge is not None and any(m in answer for m in JUDGED_METRICS)
    if judge is not None and S.ANSWER_CORRECTNESS in answer:
        answer = list(dict.fromkeys([*answer, S.FACT_COVERAGE, S.ANSWER_F1]))
    answers = S.score_answers(keys, run, answer, settings) if answer else None
    first = None
    if stage:
        if judgments is None:
            raise ValueError("first-stage metrics need judgments")
        first = S.first_stage_result(judgments, run, stage, eval_settings)
    if not judging or answers is None:
        return AnswerRun(answers, first, has_answers=answered)
    assert judge is not None
    from goldsmith.answers.judge import apply_judge

    applied = apply_judge(answers, keys, run, judge)
    scorers = {m: judge.identity.to_json() for m in applied.more}
    if S.ANSWER_CORRECTNESS in answer:
        scorers[S.ANSWER_CORRECTNESS] = judge.identity.to_json()
    return AnswerRun(applied.result, first, scorers=scorers, judged=applied, has_answers=answered)


def _without(result: S.AnswerResult, hidden: Sequence[str]) -> S.AnswerResult:
    """``result`` without the metrics ``hidden`` (their values, reasons and fact verdicts)."""
    if not hidden:
        return result
    keep = [i for i, m in enumerate(result.metrics) if m not in hidden]
    gone = set(hidden)
    if S.ANSWER_CORRECTNESS in gone and S.FACT_COVERAGE not in result.metrics:
        gone.add(S.FACT_COVERAGE)  # the verdicts correctness read, under fact_coverage's name
    return replace(
        result,
        metrics=tuple(result.metrics[i] for i in keep),
        values=result.values[:, keep],
        reasons=tuple({m: r for m, r in why.items() if m not in gone} for why in result.reasons),
        fact_checks=tuple(
            {m: c for m, c in checks.items() if m not in gone} for checks in result.fact_checks
        ),
    )


def quadrant_metrics(metrics: Sequence[str], k: int = 5) -> tuple[str, str]:
    """The two metrics the quadrants cross: the first ``context_recall@K`` asked for (else
    ``context_recall@k``) and ``answer_correctness``."""
    recall = next((m for m in metrics if m.startswith(S.CONTEXT_RECALL + "@")), None)
    return recall or f"{S.CONTEXT_RECALL}@{k}", S.ANSWER_CORRECTNESS


def diagnosis(
    keys: Sequence[AnswerKey],
    run: Sequence[StagedQuery],
    *,
    recall_metric: str,
    settings: S.AnswerSettings | None = None,
    recall_threshold: float = Q.DEFAULT_THRESHOLD,
    correctness_threshold: float = Q.DEFAULT_THRESHOLD,
    scored: S.AnswerResult | None = None,
) -> Q.Quadrants:
    """The four quadrants of a run (scoring the two metrics unless ``scored`` holds them)."""
    need = [recall_metric, S.ANSWER_CORRECTNESS]
    if scored is None or any(m not in scored.metrics for m in need):
        scored = S.score_answers(keys, run, need, settings)
    faithful = scored.column(S.FAITHFULNESS).tolist() if S.FAITHFULNESS in scored.metrics else None
    return Q.quadrants(
        scored.query_ids,
        scored.column(recall_metric).tolist(),
        scored.column(S.ANSWER_CORRECTNESS).tolist(),
        categories=scored.categories,
        recall_threshold=recall_threshold,
        correctness_threshold=correctness_threshold,
        recall_metric=recall_metric,
        correctness_metric=S.ANSWER_CORRECTNESS,
        faithfulness=faithful,
    )


def responses_given(keys: Sequence[AnswerKey], run: Sequence[StagedQuery]) -> dict[str, int]:
    """``{"queries": Q, "with_response": R}``: Q the queries with a reference answer or key
    facts, R those of them the run gave a response for, the queries the metrics that read a
    response are scored over ("over R of Q queries")."""
    answered = {s.query_id for s in run if s.response is not None}
    keyed = [k.query_id for k in keys if k.has_answer]
    return {"queries": len(keyed), "with_response": sum(q in answered for q in keyed)}


def answer_report(
    keys: Sequence[AnswerKey],
    run: Sequence[StagedQuery],
    metrics: Sequence[str],
    *,
    judgments: M.JudgmentColumns | None = None,
    settings: S.AnswerSettings | None = None,
    eval_settings: M.EvalSettings | None = None,
    recall_threshold: float | None = None,
    correctness_threshold: float | None = None,
    quadrant_k: int = 5,
    samples: int = 1000,
    seed: int = 0,
    judge: J.JudgeResults | None = None,
) -> dict[str, Any]:
    """Every answer and first-stage figure of a run, JSON-ready:

    ``aggregate`` (metric → mean, CI, n), ``per_query`` (query → metric → value, null where
    it does not apply), ``reasons`` (query → metric → reason), ``quadrants`` (the four counts),
    ``diagnosis`` (:meth:`goldsmith.answers.quadrants.Quadrants.to_json`), ``fact_rules`` (how
    many facts each rule decided), ``conflicts`` (query → contradictions found), ``claims``
    (with ``faithfulness`` scored by the rules: query → its claims' count, the threshold and
    each unsupported claim, :func:`goldsmith.answers.faithfulness.claims_json`),
    ``categories`` (category → metric → mean, CI, n), ``missing_from_run``, ``scorer``
    (the rules' settings, and ``metrics``: metric → ``rules`` or ``judge:<name>``),
    ``has_answers`` and ``responses`` (:func:`responses_given`). Thresholds default to the
    pass threshold of ``eval_settings`` (0.7).

    A run without answers (``has_answers`` false: no query has a response) holds context
    recall and the first stage only: no answer correctness, fact coverage, answer F1, exact
    match, faithfulness, quadrants or diagnosis. In a run with some, the metrics that read a
    response are means over the queries with one (their ``n``; ``responses`` says of how many).

    With ``judge`` (see :func:`score_run`), ``answer_correctness`` of open answers is the
    judge's score with the judge's reason, and the report adds ``scorer.judge`` (the judge's
    name, model, prompt version and temperature as configured, how many answers it scored and
    failed, how many kept the rules' score), ``scored_by`` (query → ``{"answer_correctness":
    "rules" or "judge:<name>"}``) and ``judge_failures`` (query → error; those queries'
    correctness is unscored: out of the mean, unplaced in the quadrants)."""
    settings = settings or S.AnswerSettings()
    eval_settings = eval_settings or M.EvalSettings()
    answered = S.has_answers(run)
    _, _, asked = split_metrics(applicable(metrics, answered))
    # The quadrants' two metrics are scored in the same pass as the others (one pass over the
    # answers instead of two) and left out of the report unless asked for. A run without
    # answers has no quadrants: they cross context recall with the answers' correctness.
    hidden = (
        [m for m in quadrant_metrics(asked, quadrant_k) if m not in asked]
        if asked and answered
        else []
    )
    full = score_run(
        keys,
        run,
        [*metrics, *hidden],
        judgments=judgments,
        settings=settings,
        eval_settings=eval_settings,
        judge=judge,
    )
    scored = full if full.answers is None else replace(full, answers=_without(full.answers, hidden))
    results = scored.results()
    doc: dict[str, Any] = {
        "aggregate": aggregate_json(
            {m: M.aggregate(r, samples=samples, seed=seed)[m] for m, r in results.items()}
        ),
        "per_query": {},
        "reasons": {},
    }
    ans = scored.answers
    if ans is not None:
        doc["per_query"] = ans.per_query()
        doc["reasons"] = {q: dict(r) for q, r in zip(ans.query_ids, ans.reasons, strict=True) if r}
        doc["conflicts"] = {
            q: list(c) for q, c in zip(ans.query_ids, ans.conflicts, strict=True) if c
        }
        doc["fact_rules"] = ans.rules_used()
        if S.FAITHFULNESS in ans.metrics and S.FAITHFULNESS not in scored.scorers:
            # The rules' verdict on each claim (a judge's faithfulness has its own reason).
            doc["claims"] = {
                q: F.claims_json(f, settings.fact_overlap)
                for q, f in zip(ans.query_ids, ans.claims, strict=False)
                if f is not None and f.value is not None
            }
        doc["missing_from_run"] = list(ans.missing_from_run)
    if scored.first_stage is not None:
        fs = scored.first_stage
        for q, vals in fs.per_query().items():
            doc["per_query"].setdefault(q, {}).update(vals)
    doc["has_answers"] = answered
    doc["responses"] = responses_given(keys, run)
    # No answer key, no quadrants: a run scored on faithfulness alone has no correctness.
    if ans is not None and answered and any(k.has_answer for k in keys):
        threshold = eval_settings.pass_threshold
        assert full.answers is not None
        quads = diagnosis(
            keys,
            run,
            recall_metric=quadrant_metrics(asked, quadrant_k)[0],
            settings=settings,
            recall_threshold=threshold if recall_threshold is None else recall_threshold,
            correctness_threshold=(
                threshold if correctness_threshold is None else correctness_threshold
            ),
            scored=full.answers,  # the judge's correctness, when a judge scored it
        )
        doc["quadrants"] = dict(quads.counts)
        doc["diagnosis"] = quads.to_json()
    if ans is not None:
        cats = {k.query_id: k.category for k in keys}
        if any(c is not None for c in cats.values()):
            per_cat: dict[str, dict[str, Any]] = {}
            for m in ans.metrics:
                for c, aggs in M.by_category(results[m], cats, samples=samples, seed=seed).items():
                    per_cat.setdefault(c, {}).update(aggregate_json({m: aggs[m]}))
            doc["categories"] = per_cat
    doc["scorer"] = {
        "name": SCORER,
        "tokenizer": settings.tokenizer,
        "fact_overlap": settings.fact_overlap,
        "number_tolerance": settings.number_tolerance,
        "context_k": settings.context_k,
        "metrics": {m: SCORER for m in (ans.metrics if ans is not None else ())},
    }
    applied = scored.judged
    if applied is not None and judge is not None:
        by = applied.scored_by
        if any(v == judge.scorer for v in by.values()):
            doc["scorer"]["metrics"][S.ANSWER_CORRECTNESS] = judge.scorer
        for metric in applied.more:
            if metric in doc["scorer"]["metrics"]:
                doc["scorer"]["metrics"][metric] = judge.scorer
        doc["scorer"]["judge"] = {
            **judge.identity.to_json(),
            "judged": applied.judged,
            "failed": len(applied.failed),
            "by_rules": sum(v == SCORER for v in by.values()),
            "seconds": round(judge.seconds, 3),
        }
        scored_by: dict[str, dict[str, str]] = {q: {S.ANSWER_CORRECTNESS: v} for q, v in by.items()}
        for metric, queries in applied.more.items():
            for q, v in queries.items():
                scored_by.setdefault(q, {})[metric] = v
        doc["scored_by"] = scored_by
        doc["judge_failures"] = dict(applied.failed)
    return doc


# --------------------------------------------------------------------------------------------
# Comparison and drift


class NotComparable(ValueError):
    """Two runs' figures on a metric come from different scorers (the rules and a judge, or
    judges differing in name, model, prompt version or temperature)."""


def _describe(scorer: Mapping[str, Any]) -> str:
    if scorer.get("scorer") == SCORER:
        return SCORER
    from goldsmith.answers.judge import JudgeIdentity

    return JudgeIdentity(
        str(scorer.get("name", "")),
        str(scorer.get("model") or ""),
        str(scorer.get("prompt_version") or ""),
        scorer.get("temperature"),
    ).describe()


def scorer_differences(a: AnswerRun, b: AnswerRun, metrics: Sequence[str]) -> dict[str, str]:
    """Metric → a sentence saying how the two runs' scorers differ ("answer_correctness: run A
    scored by rules, run B by judge:sage (model m-1, prompt v2, temperature 0)"), for each of
    ``metrics`` whose scorers are not the same; empty when the runs compare fairly."""
    out: dict[str, str] = {}
    for m in metrics:
        sa, sb = dict(a.scorer(m)), dict(b.scorer(m))
        if sa != sb:
            out[m] = say(
                "%(metric)s: run A scored by %(a)s, run B by %(b)s",
                metric=m,
                a=_describe(sa),
                b=_describe(sb),
            )
    return out


def unanswered(
    a: AnswerRun,
    b: AnswerRun,
    metrics: Sequence[str],
    names: tuple[str, str] = (say("run A"), say("run B")),
) -> dict[str, str]:
    """Metric → why it is not compared, for each of ``metrics`` that reads the response when
    either run has no answers ("answer_correctness: run B has no answers (no query with a
    response)"; ``names`` name the two runs); empty when both runs have answers."""
    missing = [name for name, r in zip(names, (a, b), strict=True) if not r.has_answers]
    if not missing:
        return {}
    who = (
        say("neither run has answers")
        if len(missing) == 2
        else say("%(run)s has no answers", run=missing[0])
    )
    return {
        m: say("%(metric)s: %(who)s (no query with a response)", metric=m, who=who)
        for m in metrics
        if S.is_answer_metric(m) and S.reads_response(m)
    }


def not_comparable(a: AnswerRun, b: AnswerRun, metrics: Sequence[str]) -> dict[str, str]:
    """Metric → why the two runs are not compared on it, for each of ``metrics`` that cannot
    be: a metric that reads the response when either run has no answers (:func:`unanswered`),
    else one whose scorers differ (:func:`scorer_differences`). Empty when every metric
    compares fairly. Comparisons and drift rules leave these out."""
    out = unanswered(a, b, metrics)
    return {**out, **scorer_differences(a, b, [m for m in metrics if m not in out])}


def _check_scorers(a: AnswerRun, b: AnswerRun, metrics: Sequence[str], what: str) -> None:
    differences = scorer_differences(a, b, metrics)
    if differences:
        raise NotComparable(
            f"not comparable: {'; '.join(differences.values())} — {what} needs both runs "
            "scored the same way"
        )


def compare_answer_runs(
    a: AnswerRun,
    b: AnswerRun,
    metrics: Sequence[str],
    *,
    samples: int = 1000,
    permutations: int = 10_000,
    seed: int = 0,
    allow_different_scorers: bool = False,
) -> list[M.MetricComparison]:
    """Paired comparison of B against A on each answer or first-stage metric, over the queries
    it applies to in both (as :func:`goldsmith.metrics.compare`); ``p_holm`` is left to the
    caller, who corrects over every metric compared (:func:`holm_over`).

    Runs whose scorer of a compared metric differs (:func:`scorer_differences`: the rules
    against a judge, or two judges differing in name, model, prompt version or temperature)
    raise :class:`NotComparable`, unless ``allow_different_scorers``; a caller that allows it
    states the difference beside the figures. A metric that reads the response is left out
    when either run has no answers (:func:`not_comparable` says why): there is nothing to
    compare, which is not an error."""
    absent = unanswered(a, b, metrics)
    metrics = [m for m in metrics if m not in absent]
    if not allow_different_scorers:
        _check_scorers(a, b, metrics, "a comparison")
    ra, rb = a.results(), b.results()
    rows: list[M.MetricComparison] = []
    for m in metrics:
        rows.extend(M.compare(ra[m], rb[m], samples=samples, permutations=permutations, seed=seed))
    return rows


def holm_over(rows: Sequence[M.MetricComparison]) -> list[M.MetricComparison]:
    """The rows with ``p_holm`` recomputed over all of them (Holm over every metric compared)."""
    if not rows:
        return []
    adjusted = stats.holm(np.array([r.p_randomization for r in rows], dtype=np.float64))
    return [replace(r, p_holm=float(h)) for r, h in zip(rows, adjusted.tolist(), strict=True)]


def answer_drift(
    current: AnswerRun,
    baseline: AnswerRun,
    limits: Mapping[str, float],
    *,
    permutations: int = 10_000,
    samples: int = 1000,
    seed: int = 0,
    allow_different_scorers: bool = False,
) -> dict[str, Any]:
    """Drop rules on answer metrics (metric → largest allowed drop of its mean), applied as the
    retrieval drop rules are: a drop fires when it is more than ``limit + TOLERANCE``, and each
    change carries its paired significance (:func:`goldsmith.verdicts.significance`). A metric
    scored differently in the two runs raises :class:`NotComparable` (as
    :func:`compare_answer_runs`). A rule on a metric that reads the response does not fire
    when either run has no answers; ``not_applied`` (only then) says which and why.

    Returns ``{"limits", "current", "baseline", "fired": [{"rule", "metric", "value",
    "limit", "baseline", "message", "significance"}], "significance"}``."""
    from goldsmith.verdicts import significance, with_significance

    # A rule on a metric that reads the response does not apply when either side has no
    # answers: an absent answer is not a drop (and the drop of a metric never scored is none).
    absent = unanswered(
        baseline, current, list(limits), (say("the baseline"), say("the current run"))
    )
    if not allow_different_scorers:
        _check_scorers(baseline, current, [m for m in limits if m not in absent], "a drift rule")
    rc, rb = current.results(), baseline.results()
    out: dict[str, Any] = {
        "limits": dict(limits),
        "current": {},
        "baseline": {},
        "fired": [],
        "significance": {},
    }
    if absent:
        out["not_applied"] = absent
    for metric, limit in limits.items():
        if metric in absent:
            continue
        if metric not in rc or metric not in rb:
            raise ValueError(f"answer drift rule on {metric!r}, which was not scored")
        now_col, before_col = rc[metric].column(metric), rb[metric].column(metric)
        now = float(now_col.mean()) if len(now_col) else math.nan
        before = float(before_col.mean()) if len(before_col) else math.nan
        sig = significance(
            rc[metric], rb[metric], metric, permutations=permutations, samples=samples, seed=seed
        )
        out["current"][metric] = json_number(now)
        out["baseline"][metric] = json_number(before)
        out["significance"][metric] = sig
        if before - now > limit + TOLERANCE:
            drop = say(
                "mean %(metric)s dropped %(drop)s (%(before)s → %(after)s), more than %(limit)s",
                metric=metric,
                drop=f"{before - now:.4f}",
                before=f"{before:.4f}",
                after=f"{now:.4f}",
                limit=f"{limit:g}",
            )
            msg = with_significance(drop, sig)
            out["fired"].append(
                {
                    "rule": "max_answer_drop",
                    "metric": metric,
                    "value": json_number(now),
                    "limit": limit,
                    "baseline": json_number(before),
                    "message": msg,
                    "significance": sig,
                }
            )
    return out
