"""The runs pages: the list (with drift alerts and the compare form), one run (live progress,
report, answers), its downloads and its buttons. Thin: validate, call one service, render."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from annotation.permissions import Action
from annotation.views.pages import project_page
from evaluation.models import EvaluationRun, RunState
from evaluation.selectors.goldsets import query_texts
from evaluation.selectors.retrievers import baseline_run_id, retrievers_of
from evaluation.selectors.runs import recent_alerts, run_progress, runs_of
from evaluation.services.answers import has_answers, stage_headline, stage_rows
from evaluation.services.reports import (
    RunInvalid,
    corpus_assumed,
    pool_unjudged,
    report_as_shown,
    report_csv,
    report_download,
)
from evaluation.services.runs import baseline_set, evaluation_run_cancel
from evaluation.services.settings import ProjectSettings, project_settings
from evaluation.wording import ANSWER_METRIC_NAMES, corpus_in_words
from goldsmith import bands, metrics, plots, verdicts
from goldsmith.answers import faithfulness as F
from goldsmith.answers import quadrants as Q
from goldsmith.answers.quadrants import QUADRANTS
from goldsmith.text import id_order
from sitewide.downloads import attachment
from sitewide.i18n import localize, localized


@login_required
def run_list(request: HttpRequest, project_id: int) -> HttpResponse:
    ctx = project_page(request, project_id)
    project = ctx["project"]
    runs = runs_of(project=project)[:100]
    finished = [r for r in runs if r.state == RunState.SUCCEEDED]
    ctx.update(
        runs=runs,
        alerts=recent_alerts(project=project),
        finished=finished,
        finished_by_version=_by_version(finished),
        pair=_comparable_pair(finished),
        retrievers=retrievers_of(project=project),
    )
    return render(request, "evaluation/runs.html", ctx)


def _comparable_pair(finished: list[EvaluationRun]) -> tuple[EvaluationRun, EvaluationRun] | None:
    """The pair the compare form starts with: the newest succeeded run as B and, as A, the
    newest earlier one on the same golden-set version (a comparison needs one version). None
    when no two runs share a version. ``finished`` is newest first."""
    for i, b in enumerate(finished):
        for a in finished[i + 1 :]:
            if a.version_id == b.version_id:
                return a, b
    return None


def _by_version(finished: list[EvaluationRun]) -> list[tuple[str, list[EvaluationRun]]]:
    """Succeeded runs grouped by golden-set version (newest version first) for the
    compare form's option groups."""
    groups: dict[int, list[EvaluationRun]] = {}
    for r in finished:
        groups.setdefault(r.version_id, []).append(r)
    ordered = sorted(groups.values(), key=lambda g: -g[0].version_id)
    return [(g[0].version.label, g) for g in ordered]


def _metric_rows(report: dict[str, Any], band_map: dict[str, bands.Band]) -> list[dict[str, Any]]:
    ks = report["settings"]["ks"]
    rows = []
    for family in ("recall", "precision", "hit", "mrr", "ndcg", "map", "pass", "judged"):
        cells = []
        for k in ks:
            name = f"{family}@{k}"
            strict = report["aggregate"].get(name)
            lenient = (report.get("lenient") or {}).get(name)
            weighted = (report.get("weighted") or {}).get(name) if report.get("weighted") else None
            cells.append(
                {
                    "name": name,
                    "strict": strict,
                    "lenient": lenient,
                    "weighted": weighted,
                    "band": bands.band_of(name, strict and strict["mean"], band_map),
                }
            )
        rows.append({"family": family, "cells": cells})
    return rows


@login_required
def run_detail(request: HttpRequest, project_id: int, run_id: int) -> HttpResponse:
    ctx = project_page(request, project_id)
    project = ctx["project"]
    run = get_object_or_404(
        EvaluationRun.objects.select_related("retriever", "version"), project=project, pk=run_id
    )
    settings = project_settings(project=project)
    report = localized(report_as_shown(run, run.report or {}, settings=settings))
    ctx.update(run=run, progress=run_progress(run=run), report=report)
    ctx["is_baseline"] = baseline_run_id(retriever=run.retriever) == run.pk
    ctx["alert"] = getattr(run, "drift_alert", None) if hasattr(run, "drift_alert") else None
    ctx["corpus_assumed"] = corpus_assumed(run)
    if run.state == RunState.SUCCEEDED and report:
        band_map = settings.bands
        k = report["settings"]["headline_k"]
        ctx.update(
            k=k,
            recall_key=f"recall@{k}",
            judged_key=f"judged@{k}",
            metric_rows=_metric_rows(report, band_map),
            ks=report["settings"]["ks"],
            curve_svg=mark_safe(  # goldsmith.plots escapes every label
                plots.line_chart(
                    report["curve"]["ks"],
                    {
                        plots.metric_name("recall@K", localize): report["curve"]["recall"],
                        plots.metric_name("ndcg@K", localize): report["curve"]["ndcg"],
                    },
                    label=gettext("Recall@K curve"),
                    words=localize,
                )
            ),
            hist_svg=mark_safe(
                plots.recall_histogram(
                    report["histogram"]["edges"],
                    report["histogram"]["counts"],
                    label=gettext("Per-query Recall@%(k)s") % {"k": k},
                    words=localize,
                )
            ),
            categories=_group_rows(report.get("by_category") or {}, k),
            strata=_group_rows(report.get("by_stratum") or {}, k),
            thresholds=settings.thresholds(),
            preset=bands.preset(settings.preset),
            verdict=_verdict_shown(report.get("verdict")),
            drift=report.get("drift"),
            others=EvaluationRun.objects.filter(
                project=project, version=run.version, state=RunState.SUCCEEDED
            )
            .exclude(pk=run.pk)
            .select_related("retriever")[:20],
        )
        ctx.update(_diagnosis_context(report, settings))
        ctx.update(_corpus_context(report, k))
        ctx["answers"] = _answers_context(run, report)
    return render(request, "evaluation/run_detail.html", ctx)


def _verdict_shown(verdict: dict[str, Any] | None) -> dict[str, Any] | None:
    """The verdict with what it rests on in sentences (the engine's, from its basis)."""
    if not verdict or not verdict.get("basis"):
        return verdict
    return {**verdict, "basis_lines": [localize(t) for t in verdicts.basis_words(verdict["basis"])]}


ANSWER_ROWS = 500  # queries listed in the answer table of a run page


def _answers_context(run: EvaluationRun, report: dict[str, Any]) -> dict[str, Any] | None:
    """The run page's answer section: the first stage beside the final list, the answer
    metrics, the four quadrants (counts, queries, categories, what to look at) and the
    per-query values with their reasons."""
    answers = report.get("answers")
    if not answers:
        return None
    agg = answers.get("aggregate") or {}
    metric_rows = []
    for name in answers.get("metrics") or []:
        if name.startswith("first_stage:") or name not in agg:
            continue
        family = name.split("@")[0]
        k = name.split("@")[1] if "@" in name else None
        metric_rows.append(
            {
                "name": name,
                "words": ANSWER_METRIC_NAMES.get(family, family),
                "k": k,
                "agg": agg[name],
            }
        )
    texts = query_texts(version_id=run.version_id)
    diag = answers.get("diagnosis")
    quadrants = []
    by_category = []
    # The context recall a row shows: the quadrants', else (a run without answers has no
    # quadrants) the headline K's, the first the report lists.
    recall_metric = next(
        (m for m in answers.get("metrics") or [] if m.startswith("context_recall@")), None
    )
    correctness_metric = None
    if diag:
        recall_metric, correctness_metric = diag["recall_metric"], diag["correctness_metric"]
        unfaithful = diag.get("unfaithful") or {}
        for key in QUADRANTS:
            quadrants.append(
                {
                    "key": key,
                    "title": localize(Q.TITLES[key]),
                    "advice": localize(Q.ADVICE[key]),
                    "count": diag["counts"].get(key, 0),
                    "queries": [
                        {"id": q, "text": texts.get(q, "")}
                        for q in sorted(diag["queries"].get(key, []), key=id_order)
                    ],
                    "unfaithful": sorted(unfaithful.get(key, []), key=id_order),
                    "unfaithful_advice": localize(Q.UNFAITHFUL_ADVICE[key]),
                }
            )
        by_category = [
            {"name": c, "counts": [counts.get(k, 0) for k in QUADRANTS]}
            for c, counts in sorted(diag["by_category"].items())
        ]
    per_query = answers.get("per_query") or {}
    reasons = answers.get("reasons") or {}
    claims = answers.get("claims") or {}
    place = {q: key for key in QUADRANTS for q in (diag or {}).get("queries", {}).get(key, [])}
    rows = [
        {
            "id": q,
            "text": texts.get(q, ""),
            "recall": values.get(recall_metric) if recall_metric else None,
            "correctness": values.get(correctness_metric) if correctness_metric else None,
            "quadrant": localize(Q.TITLES[place[q]]) if q in place else "",
            "faithfulness": values.get("faithfulness"),
            "reasons": _reasons_shown(reasons.get(q) or {}, recall_metric, claims.get(q)),
        }
        for q, values in sorted(per_query.items(), key=lambda item: id_order(item[0]))
        if q in reasons
    ]
    return {
        "stages": stage_rows(report),
        "stage_headline": stage_headline(report),
        "metrics": metric_rows,
        "quadrants": quadrants,
        "quadrant_keys": [localize(Q.TITLES[k]) for k in QUADRANTS],
        "by_category": by_category,
        "diagnosis": diag,
        "rows": rows[:ANSWER_ROWS],
        "more_rows": max(0, len(rows) - ANSWER_ROWS),
        "given": answers.get("stages_given") or {},
        "has_answers": has_answers(answers),
        "responses": answers.get("responses") or {},
        "fact_rules": answers.get("fact_rules") or {},
        "scorer": answers.get("scorer") or {},
        "judged_metrics": [
            {"name": m, "words": ANSWER_METRIC_NAMES[m]}
            for m in ("faithfulness", "answer_relevance")
            if str(((answers.get("scorer") or {}).get("metrics") or {}).get(m, "")).startswith(
                "judge:"
            )
        ],
        "has_faithfulness": "faithfulness" in (answers.get("metrics") or []),
    }


# The reasons a query's row gives, in this order: the quadrant's context recall, then the answer.
REASON_FAMILIES = (
    "context_recall",
    "answer_correctness",
    "exact_match",
    "fact_coverage",
    "answer_f1",
    "faithfulness",
    "answer_relevance",
)


def _reasons_shown(
    reasons: dict[str, str], recall_metric: str | None, claims: dict[str, Any] | None = None
) -> list[dict[str, str | None]]:
    """A query's stored reasons as its row shows them: the context recall the quadrants read
    (not every K's) and each answer metric, named in words, each reason in the reader's
    language (the report is said in it; faithfulness by the rules said again from the claims
    the report kept, `goldsmith.answers.faithfulness.reason_from_json`)."""
    shown = []
    for family in REASON_FAMILIES:
        for name, reason in reasons.items():
            if name.split("@")[0] != family:
                continue
            if family == "context_recall" and recall_metric and name != recall_metric:
                continue
            shown.append(
                {
                    "name": name,
                    "words": ANSWER_METRIC_NAMES.get(family, family),
                    "k": name.split("@")[1] if "@" in name else None,
                    "reason": localize(F.reason_from_json(claims))
                    if family == "faithfulness" and claims
                    else reason,
                }
            )
    return shown


# K rows of the top-K table; the other swept Ks are under "every K".
TOPK_TABLE_KS = frozenset({1, 3, 5, 10, 20, 50, 100, 200, 500, 1000})


def _topk_context(report: dict[str, Any]) -> dict[str, Any] | None:
    """The top-K table (K, each weighted metric, score; the best K marked) and its curve."""
    topk = report.get("topk")
    if not topk or not topk.get("ks"):
        return None
    ks, best = topk["ks"], topk.get("best_k")
    families = list(topk["weights"])
    shown = TOPK_TABLE_KS | set(report["settings"]["ks"]) | {best}
    rows = [
        {
            "k": k,
            "values": [topk["means"][f][i] for f in families],
            "score": topk["score"][i],
            "best": k == best,
            "shown": k in shown,
        }
        for i, k in enumerate(ks)
    ]
    series = {plots.metric_name("score", localize): topk["score"]}
    series.update(
        {
            f"{plots.metric_name(f, localize)} ×{w:g}": topk["means"][f]
            for f, w in topk["weights"].items()
        }
    )
    scenario = metrics.TOPK_SCENARIOS.get(topk["scenario"])
    return {
        **topk,
        "families": [(f, topk["weights"][f]) for f in families],
        "rows": [r for r in rows if r["shown"]],
        "all_rows": rows if len(rows) > sum(r["shown"] for r in rows) else [],
        "scenario_label": scenario.label if scenario else topk["scenario"],
        "svg": mark_safe(  # goldsmith.plots escapes every label
            plots.line_chart(
                ks,
                series,
                label=gettext("Weighted top-K score and its metrics at each K"),
                marker_index=ks.index(best) if best in ks else None,
                marker_label=gettext("best K = %(k)s") % {"k": best},
                words=localize,
            )
        ),
    }


def _figure(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "–" if value is None else str(value)


def _diagnosis_context(report: dict[str, Any], settings: ProjectSettings) -> dict[str, Any]:
    """Top-K choice, hints, the low-recall list's cut-off and the whole-list metrics."""
    low = report.get("low_recall")
    return {
        "topk": _topk_context(report),
        "hints": [
            {
                **h,
                "figure_list": [(name, _figure(v)) for name, v in h["figures"].items()],
            }
            for h in report.get("hints") or []
        ],
        "low_recall": low,
        # a report lists the queries below the cut-off of its day; say when it has changed since
        "low_recall_now": settings.low_recall_cutoff
        if low and settings.low_recall_cutoff != low["cutoff"]
        else None,
        "whole_list": {m: report["aggregate"].get(m) for m in ("precision", "f1")}
        if "precision" in report["aggregate"]
        else None,
    }


def _corpus_context(report: dict[str, Any], k: int) -> dict[str, Any]:
    """The stale-golden-set card: what the corpus update did (in the reader's language), the
    headline metrics over the untouched queries, and the touched queries."""
    section = report.get("corpus")
    if not section:
        return {"corpus": None}
    aggregate = (section.get("untouched") or {}).get("aggregate") or {}
    names = [f"{f}@{k}" for f in ("recall", "ndcg", "mrr", "hit", "pass", "judged")]
    return {
        "corpus": section,
        "corpus_words": corpus_in_words(section),
        "untouched_rows": [{"name": m, "a": aggregate[m]} for m in names if m in aggregate],
    }


def _group_rows(groups: dict[str, Any], k: int) -> list[dict[str, Any]]:
    return [
        {
            "name": name,
            "recall": aggs.get(f"recall@{k}"),
            "ndcg": aggs.get(f"ndcg@{k}"),
            "pass": aggs.get(f"pass@{k}"),
        }
        for name, aggs in sorted(groups.items())
    ]


@login_required
def run_download(request: HttpRequest, project_id: int, run_id: int, fmt: str) -> HttpResponse:
    ctx = project_page(request, project_id)
    run = get_object_or_404(
        EvaluationRun.objects.select_related("retriever", "version"),
        project=ctx["project"],
        pk=run_id,
    )
    if fmt not in ("csv", "json"):
        raise Http404(gettext("A report downloads as report.csv or report.json"))
    if run.state != RunState.SUCCEEDED:
        return HttpResponse(
            gettext("The run has no report yet."), status=409, content_type="text/plain"
        )
    if fmt == "csv":
        response = HttpResponse(report_csv(run), content_type="text/csv; charset=utf-8")
    else:
        response = JsonResponse(report_download(run), json_dumps_params={"indent": 1})
    # The retriever's name may hold anything (names stored before they were checked).
    response["Content-Disposition"] = attachment(f"run-{run.pk}-{run.retriever.name}", fmt)
    return response


@login_required
@require_POST
def run_action(request: HttpRequest, project_id: int, run_id: int, action: str) -> HttpResponse:
    ctx = project_page(request, project_id, Action.LEAD)
    run = get_object_or_404(EvaluationRun, project=ctx["project"], pk=run_id)
    try:
        if action == "cancel":
            evaluation_run_cancel(run=run)
            messages.success(request, gettext("Run cancelled."))
        elif action == "baseline":
            baseline_set(run=run, by=request.user)
            messages.success(request, gettext("This run is now the retriever's baseline."))
        elif action == "pool":
            out = pool_unjudged(run=run)
            messages.success(
                request,
                gettext(
                    "Sent %(chunks)s unjudged chunks of %(queries)s queries to the pools "
                    "(%(new_candidates)s new candidates, %(skipped)s not in the project)."
                )
                % {
                    "chunks": out["chunks"],
                    "queries": out["queries"],
                    "new_candidates": out["new_candidates"],
                    "skipped": out["skipped"],
                },
            )
    except RunInvalid as error:
        messages.error(request, localize(error))
    return redirect("run-detail", project_id=run.project_id, run_id=run.pk)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}runs/", run_list, name="run-list"),
    path(f"{P}runs/<int:run_id>/", run_detail, name="run-detail"),
    path(f"{P}runs/<int:run_id>/report.<str:fmt>", run_download, name="run-download"),
    path(f"{P}runs/<int:run_id>/<str:action>/", run_action, name="run-action"),
]
