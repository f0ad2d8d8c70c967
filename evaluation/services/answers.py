"""A run's answer and stage figures: what the report adds when the version has answer keys or
the run carries stages (first-stage candidates, contexts, responses).

Every figure comes from the engine (`goldsmith.answers.report`): ``answer_report`` for the
run, ``quadrants`` to place the queries again under other thresholds, ``compare_answer_runs``
for comparisons and ``answer_drift`` for the answer drop rules, the last two over the per-query
values the reports stored (no scoring again: a comparison page of two 10,000-query runs would
otherwise score both). Nothing here computes a metric of its own.

The quadrant thresholds are the project's (EvaluationSettings ``quadrant_recall_threshold``,
``quadrant_correctness_threshold``), else the run's pass threshold; a stored report keeps the
thresholds it was computed with, and the page and the API place the stored per-query values
again under today's (or the request's) thresholds without a new run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace
from typing import Any

import numpy as np
from django.utils.translation import gettext

from annotation.models.goldsets import GoldenItem
from evaluation.models import EvaluationRun, EvaluationSettings, Matching
from evaluation.selectors.corpus import chunk_texts
from evaluation.selectors.goldsets import answer_keys, has_answer_keys, query_texts
from evaluation.selectors.runs import has_stages, staged_rows
from goldsmith import metrics as M
from goldsmith import reporting
from goldsmith.answers import judge as J
from goldsmith.answers import quadrants as Q
from goldsmith.answers import report as AR
from goldsmith.answers import scoring as S
from goldsmith.answers.model import AnswerKey, RankedItem, StagedQuery

ANSWER_METRICS = (
    S.ANSWER_CORRECTNESS, S.FACT_COVERAGE, S.ANSWER_F1, S.EXACT_MATCH, S.SQUAD_EM, S.FAITHFULNESS,
)  # fmt: skip
# Scored only by a run's answer judge (no rule pretends to know it).
JUDGE_METRICS = (S.ANSWER_RELEVANCE,)
MAX_FIRST_STAGE_K = 1000


class AnswerSettingsInvalid(ValueError):
    """A quadrant threshold or an answer drop rule that cannot be used; the message says why."""


def quadrant_thresholds(record: EvaluationSettings, pass_threshold: float) -> tuple[float, float]:
    """(recall, correctness) thresholds of the four quadrants: the project's, else the pass
    threshold."""
    r = record.quadrant_recall_threshold
    c = record.quadrant_correctness_threshold
    return (pass_threshold if r is None else r, pass_threshold if c is None else c)


def check_answer_settings(record: EvaluationSettings) -> None:
    """Raise AnswerSettingsInvalid on a threshold outside [0, 1] or an unusable drop rule; the
    drop rules are stored under the metric names the reports use."""
    for value in (record.quadrant_recall_threshold, record.quadrant_correctness_threshold):
        if value is not None and not 0.0 <= float(value) <= 1.0:
            raise AnswerSettingsInvalid(gettext("the quadrant thresholds must be between 0 and 1"))
    drops = record.max_answer_drop or {}
    if not isinstance(drops, dict):
        raise AnswerSettingsInvalid(gettext("the answer drop rules map a metric to a drop"))
    canonical: dict[str, float] = {}
    for metric, limit in drops.items():
        # The engine's own reading of a metric name (as `goldsmith drift --max-answer-drop`):
        # a rule is stored under the name the reports use, or it could never match one.
        try:
            name = S.parse_any_metric(str(metric))
        except ValueError:
            name = ""
        if not (S.is_answer_metric(name) or S.is_stage_metric(name)):
            raise AnswerSettingsInvalid(
                gettext(
                    "%(metric)r is not an answer or first-stage metric (e.g. answer_correctness, "
                    "context_recall@5, first_stage:recall@50)"
                )
                % {"metric": metric}
            )
        if not isinstance(limit, int | float) or isinstance(limit, bool) or not 0 <= limit <= 1:
            raise AnswerSettingsInvalid(
                gettext("the largest drop of %(metric)s must be a number between 0 and 1")
                % {"metric": metric}
            )
        canonical[name] = float(limit)
    record.max_answer_drop = canonical


def _metric_names(
    run: EvaluationRun, keys: Sequence[AnswerKey], staged: Sequence[StagedQuery]
) -> list[str]:
    """The stage and answer metrics this run can be scored on: first-stage recall at each K
    of the run and at the first stage's depth (chunk matching only: the first stage is matched
    by chunk id), and, when the version has answer keys, context recall at each K (the
    headline K first: the quadrants cross it) and the answer metrics (faithfulness among
    them), with answer relevance when the run has an answer judge. Without answer keys, a run
    whose queries carry responses is still scored on faithfulness (it needs no key)."""
    names: list[str] = []
    depth = max((len(s.candidates) for s in staged if s.candidates is not None), default=0)
    if depth and run.matching == Matching.CHUNK:
        ks = sorted({*run.ks, min(depth, MAX_FIRST_STAGE_K)})
        names += [f"{S.FIRST_STAGE}recall@{k}" for k in ks]
    if any(k.has_answer for k in keys):
        head = headline_k(run)
        ks = [head, *(k for k in run.ks if k != head)]
        names += [f"{S.CONTEXT_RECALL}@{k}" for k in ks]
        names += list(ANSWER_METRICS)
    elif any(s.response is not None for s in staged):
        names.append(S.FAITHFULNESS)
    if S.FAITHFULNESS in names and (run.answer_judge_id is not None or run.judge_results):
        names += list(JUDGE_METRICS)
    return names


def headline_k(run: EvaluationRun) -> int:
    """The run's headline K, by the rule its report reads (`reporting.RunSettings.headline_k`:
    the one it was given, else 10 when measured, else its largest K), so that the quadrants,
    the answer section and the extractive answerer read the same K as the verdict."""
    from evaluation.services.reports import run_settings  # reports imports this module

    return run_settings(run).headline_k


def _with_texts(run: EvaluationRun, staged: list[StagedQuery], k: int) -> list[StagedQuery]:
    """The top ``k`` results of queries without contexts get their chunk's whole text (the
    stored snippets are cut short), for the text rule of facts without chunk links."""
    wanted = sorted({r.id for s in staged if s.contexts is None for r in s.results[:k]})
    if not wanted:
        return staged
    texts = chunk_texts(project=run.project, chunk_ids=wanted)
    out = []
    for s in staged:
        if s.contexts is not None:
            out.append(s)
            continue
        top = tuple(
            RankedItem(r.id, r.score, texts.get(r.id, r.text)) if i < k else r
            for i, r in enumerate(s.results)
        )
        out.append(replace(s, results=top))
    return out


def _inputs(
    run: EvaluationRun, items: Sequence[reporting.GoldItem] | None = None
) -> tuple[list[AnswerKey], list[StagedQuery], list[str], dict[str, Any]]:
    """The run's answer keys, staged queries, metric names and scoring arguments."""
    from evaluation.selectors.goldsets import golden_items

    keys = answer_keys(version_id=run.version_id)
    staged = staged_rows(run=run)
    names = _metric_names(run, keys, staged)
    unlinked = any(not f.chunk_ids for k in keys for f in k.facts)
    # Faithfulness reads the top K results' text when a query's contexts were not given.
    unread = S.FAITHFULNESS in names and any(
        s.response is not None and s.contexts is None for s in staged
    )
    if names and (unlinked or unread):
        staged = _with_texts(run, staged, max([*(run.ks or [5]), headline_k(run)]))
    judged = None
    if any(S.is_stage_metric(n) for n in names):
        if items is None:
            items = golden_items(
                version_id=run.version_id, with_texts=False, machine_grades=run.machine_grades
            )
        judged = M.judgments_from_mapping(
            {i.query_id: {j.chunk_id: j.grade for j in i.judgments} for i in items}
        )
    settings = reporting.RunSettings(
        ks=tuple(run.ks),
        relevance_threshold=run.relevance_threshold,
        gain=run.gain,  # type: ignore[arg-type]  # one of the Gain choices
        pass_threshold=run.pass_threshold,
    ).eval_settings()
    answer_settings = S.AnswerSettings(context_k=headline_k(run))
    return (
        keys,
        staged,
        names,
        {
            "judgments": judged,
            "eval_settings": settings,
            "settings": answer_settings,
        },
    )


def run_answer_report(
    run: EvaluationRun,
    items: Sequence[reporting.GoldItem],
    record: EvaluationSettings,
) -> dict[str, Any] | None:
    """The answer section of a run's report (None when the version has no answer key and the
    run carries no stage, or nothing can be scored): the engine's
    ``goldsmith.answers.report.answer_report`` document (aggregate, per_query, reasons,
    quadrants, diagnosis, categories, fact_rules, conflicts, scorer), the metric names, and
    how many queries carried each stage."""
    if not has_stages(run=run) and not has_answer_keys(version_id=run.version_id):
        return None  # two cheap queries: most runs carry neither
    keys, staged, names, scoring = _inputs(run, items)
    if not names:
        return None
    recall_t, correct_t = quadrant_thresholds(record, run.pass_threshold)
    judge = J.JudgeResults.from_json(run.judge_results) if run.judge_results else None
    doc = AR.answer_report(
        keys,
        staged,
        names,
        recall_threshold=recall_t,
        correctness_threshold=correct_t,
        quadrant_k=headline_k(run),
        judge=judge if any(m in names for m in AR.JUDGED_METRICS) else None,
        **scoring,
    )
    # The metrics it holds: a run without answers has none that reads a response (the engine's
    # gate, `report.applicable`), so neither the page, the comparisons nor drift see one.
    doc["metrics"] = [n for n in names if n in doc["aggregate"]]
    doc["stages_given"] = {
        "candidates": sum(s.candidates is not None for s in staged),
        "contexts": sum(s.contexts is not None for s in staged),
        "response": sum(s.response is not None for s in staged),
        "answered": len(staged),
    }
    return doc


def judge_run_answers(run: EvaluationRun) -> dict[str, Any]:
    """Have the run's answer judge score its open answers (the engine's ``judge_items``: open
    answer keys whose query has a response), on the worker that finishes the run; what it
    answered, JSON-ready, for the run to keep (``EvaluationRun.judge_results``). A judge that
    fails a query leaves that query's correctness unscored, with its error; a header that
    cannot be read raises credentials.SecretUnavailable (nothing was sent)."""
    from evaluation import credentials
    from evaluation.services.answer_judges import answer_judge_config, judge_answers

    assert run.answer_judge is not None
    keys, staged, names, _ = _inputs(run)
    # Faithfulness and relevance are about every response, closed answers too: the judge is
    # sent those only when its settings read either (a lead empties both paths to keep a paid
    # judge to the open answers).
    reads_more = bool(answer_judge_config(run.answer_judge).more_paths())
    items = J.judge_items(
        keys,
        staged,
        every_response=reads_more and any(m in names for m in (S.FAITHFULNESS, S.ANSWER_RELEVANCE)),
        context_k=headline_k(run),
    )
    try:
        results = judge_answers(judge=run.answer_judge, items=items)
    except credentials.SecretUnavailable as error:
        # Nothing was sent: every open answer is unscored with the reason, and the rest of the
        # report (retrieval, the rules' answer metrics) stands.
        results = J.JudgeResults(
            answer_judge_config(run.answer_judge).identity,
            tuple(J.JudgedAnswer(i.query_id, None, attempts=0, error=str(error)) for i in items),
        )
    out: dict[str, Any] = results.to_json()
    return out


def stage_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The first stage beside the final list: for each K both were measured at, the mean
    recall of each; the first stage's own depth last, with the final list's headline K."""
    answers = report.get("answers") or {}
    agg = report.get("aggregate") or {}
    first = {
        m[len(S.FIRST_STAGE) :]: v
        for m, v in (answers.get("aggregate") or {}).items()
        if m.startswith(S.FIRST_STAGE)
    }
    rows = []
    for name, value in first.items():
        rows.append({"name": name, "first_stage": value, "final": agg.get(name)})
    return sorted(rows, key=lambda r: M.parse_metric(r["name"]).k or 0)


def stage_headline(report: dict[str, Any]) -> dict[str, Any] | None:
    """ "first stage recall@N X → final recall@K Y": N the first stage's depth (its largest K),
    K the headline K."""
    rows = stage_rows(report)
    if not rows:
        return None
    k = (report.get("settings") or {}).get("headline_k")
    deepest = rows[-1]
    final = (report.get("aggregate") or {}).get(f"recall@{k}")
    return {
        "first_k": M.parse_metric(deepest["name"]).k,
        "first": deepest["first_stage"],
        "k": k,
        "final": final,
    }


def has_answers(answers: Mapping[str, Any]) -> bool:
    """Whether a stored answer section is of a run with answers (a report stored before
    ``has_answers`` existed says it by its count of responses)."""
    if "has_answers" in answers:
        return bool(answers["has_answers"])
    return bool((answers.get("stages_given") or {}).get("response", 1))


def _without_answer_figures(answers: dict[str, Any]) -> dict[str, Any]:
    """A section stored before the engine left the answer figures out of a run without
    answers, as the engine now writes it: no metric that reads a response, no quadrants."""
    kept = [m for m in answers.get("metrics") or [] if not _reads_response(m)]

    def keep(values: Mapping[str, Any]) -> dict[str, Any]:
        return {m: v for m, v in values.items() if not _reads_response(m)}

    out = {k: v for k, v in answers.items() if k not in ("quadrants", "diagnosis", "scored_by")}
    out.update(
        has_answers=False,
        metrics=kept,
        aggregate=keep(answers.get("aggregate") or {}),
        per_query={q: keep(v) for q, v in (answers.get("per_query") or {}).items()},
        reasons={q: keep(v) for q, v in (answers.get("reasons") or {}).items()},
    )
    return out


def _reads_response(metric: str) -> bool:
    return S.is_answer_metric(metric) and S.reads_response(metric)


def answers_as_shown(
    run: EvaluationRun,
    answers: dict[str, Any],
    recall_threshold: float,
    correctness_threshold: float,
) -> dict[str, Any]:
    """The stored answer section with its queries placed again in the quadrants under these
    thresholds (by the engine's ``quadrants``), when they differ from the stored ones. A run
    without answers shows no answer figure, even from a report stored before that rule."""
    if not has_answers(answers) and "has_answers" not in answers:
        answers = _without_answer_figures(answers)
    diag = answers.get("diagnosis")
    if not diag:
        return answers
    if (
        diag["recall_threshold"] == recall_threshold
        and diag["correctness_threshold"] == correctness_threshold
    ):
        return answers
    recall_metric, correct_metric = diag["recall_metric"], diag["correctness_metric"]
    categories = dict(
        GoldenItem.objects.filter(version_id=run.version_id).values_list("query_id", "category")
    )
    per_query: Mapping[str, Mapping[str, float | None]] = answers.get("per_query") or {}
    qids = [q for q in categories if q in per_query]
    nan = float("nan")

    def value(q: str, m: str) -> float:
        v = per_query[q].get(m)
        return nan if v is None else float(v)

    faithful = "unfaithful" in diag  # placed again with the faithfulness the report kept
    quads = Q.quadrants(
        qids,
        [value(q, recall_metric) for q in qids],
        [value(q, correct_metric) for q in qids],
        categories=[categories[q] for q in qids],
        recall_threshold=recall_threshold,
        correctness_threshold=correctness_threshold,
        recall_metric=recall_metric,
        correctness_metric=correct_metric,
        faithfulness=[value(q, S.FAITHFULNESS) for q in qids] if faithful else None,
    )
    return {**answers, "quadrants": dict(quads.counts), "diagnosis": quads.to_json()}


def stored_answer_run(
    run: EvaluationRun, report: dict[str, Any] | None = None
) -> tuple[AR.AnswerRun, list[str]] | None:
    """The engine's ``AnswerRun`` of a run rebuilt from the per-query values its report stored
    (``report``, else the run's), so that comparisons and drift need no new scoring; None when
    the report has no answer section. Values are those the engine computed when the run
    finished; the reasons are not needed here and are left out."""
    answers = (report if report is not None else run.report or {}).get("answers")
    if not answers or not answers.get("metrics"):
        return None
    answered = has_answers(answers)
    if not answered and "has_answers" not in answers:
        answers = _without_answer_figures(answers)
    names: list[str] = list(answers["metrics"])
    per_query: Mapping[str, Mapping[str, float | None]] = answers.get("per_query") or {}
    qids = tuple(query_texts(version_id=run.version_id))
    n = len(qids)

    def matrix(metrics: Sequence[str]) -> np.ndarray:
        values = np.full((n, len(metrics)), np.nan)
        for i, q in enumerate(qids):
            row = per_query.get(q)
            if row:
                for j, m in enumerate(metrics):
                    v = row.get(m)
                    if v is not None:
                        values[i, j] = v
        return values

    answer = [m for m in names if S.is_answer_metric(m)]
    stage = [m for m in names if S.is_stage_metric(m)]
    scored = None
    if answer:
        scored = S.AnswerResult(
            settings=S.AnswerSettings(),
            metrics=tuple(answer),
            query_ids=qids,
            values=matrix(answer),
            reasons=tuple({} for _ in qids),
            fact_checks=tuple({} for _ in qids),
            conflicts=tuple(() for _ in qids),
            categories=tuple(None for _ in qids),
            missing_from_run=tuple(answers.get("missing_from_run") or ()),
            not_in_keys=(),
        )
    first = None
    if stage:
        values = matrix(stage)
        included = ~np.isnan(values[:, 0])
        first = M.EvalResult(
            settings=M.EvalSettings(),
            metrics=tuple(stage),
            query_ids=qids,
            values=values,
            included=included,
            no_relevant=tuple(q for q, inc in zip(qids, included.tolist(), strict=True) if not inc),
            missing_from_run=(),
            not_in_judgments=(),
        )
    run_ = AR.AnswerRun(scored, first, scorers=_stored_scorers(answers), has_answers=answered)
    return run_, names


def _stored_scorers(answers: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Metric → the judge that scored it, as the report stored it (``scorer.metrics`` names
    ``judge:<name>``, ``scorer.judge`` its identity); metrics the rules scored are left out,
    as the engine's ``AnswerRun.scorers`` expects."""
    scorer = answers.get("scorer") or {}
    judge = scorer.get("judge") or {}
    keys = ("scorer", "name", "model", "prompt_version", "temperature")
    return {
        metric: {k: judge.get(k) for k in keys}
        for metric, by in (scorer.get("metrics") or {}).items()
        if by != AR.SCORER and judge
    }


def compare_answers(
    a: EvaluationRun, b: EvaluationRun
) -> tuple[list[dict[str, Any]], dict[str, str], list[str]]:
    """B against A on the answer and stage metrics both were scored on, and scored the same
    way: the engine's paired comparison (``compare_answer_runs``, Holm over them), one row
    per metric in the shape of the retrieval rows of a comparison; the metrics left out, each
    with the engine's sentence saying why (``not_comparable``: a run without answers, or
    scorers that differ: the rules against a judge, or two judges); and which of the runs
    (``"a"``, ``"b"``) have no answers."""
    ra, rb = stored_answer_run(a), stored_answer_run(b)
    if ra is None or rb is None:
        return [], {}, []
    without = [name for name, r in (("a", ra), ("b", rb)) if not r[0].has_answers]
    asked = list(dict.fromkeys([*ra[1], *rb[1]]))
    why = AR.not_comparable(ra[0], rb[0], asked)
    same = [m for m in asked if m in ra[1] and m in rb[1] and m not in why]
    if not same:
        return [], why, without
    rows = AR.holm_over(AR.compare_answer_runs(ra[0], rb[0], same))
    return [_comparison_json(r) for r in rows], why, without


def _comparison_json(row: M.MetricComparison) -> dict[str, Any]:
    out: dict[str, Any] = reporting.strict_json(asdict(row))
    return out


def answer_drift_of(
    run: EvaluationRun,
    baseline: EvaluationRun,
    limits: Mapping[str, float],
    report: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """The answer drop rules (metric → largest allowed drop) of ``run`` (its ``report`` being
    made, else the stored one) against ``baseline``'s stored report, by the engine's
    ``answer_drift``; None when there is no rule or nothing to compare."""
    if not limits:
        return None
    now, before = stored_answer_run(run, report), stored_answer_run(baseline)
    if now is None or before is None:
        return None
    # A rule on a metric the two runs scored differently (a judge against the rules, or two
    # judges) does not apply: the difference would be the scorers', not the pipeline's.
    # Nor does one on a metric that reads the response when either run has no answers.
    differ = AR.not_comparable(now[0], before[0], list(limits))
    usable = {
        m: float(v) for m, v in limits.items() if m in now[1] and m in before[1] and m not in differ
    }
    if not usable:
        return None
    return reporting.strict_json(AR.answer_drift(now[0], before[0], usable))
