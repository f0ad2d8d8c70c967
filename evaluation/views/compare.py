"""The compare page: two runs on one golden-set version, metric by metric."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.safestring import mark_safe
from django.utils.translation import gettext

from annotation.views.pages import project_page
from evaluation.models import EvaluationRun
from evaluation.services.reports import RunInvalid, compare_report
from evaluation.wording import FAMILY_LABELS, settings_differ_in_words
from goldsmith import plots
from goldsmith.answers import scoring as S
from sitewide.i18n import localize


@login_required
def run_compare(request: HttpRequest, project_id: int) -> HttpResponse:
    ctx = project_page(request, project_id)
    runs = EvaluationRun.objects.select_related("retriever", "version").filter(
        project=ctx["project"]
    )
    try:
        a = get_object_or_404(runs, pk=int(request.GET.get("a", "")))
        b = get_object_or_404(runs, pk=int(request.GET.get("b", "")))
    except ValueError:
        messages.error(request, gettext("Choose two runs to compare."))
        return redirect("run-list", project_id=project_id)
    try:
        comparison = compare_report(a=a, b=b)
    except RunInvalid as error:
        messages.error(request, localize(error))
        return redirect("run-list", project_id=project_id)
    k = comparison["headline_k"]
    ctx.update(
        a=a,
        b=b,
        comparison=comparison,
        settings_differ=settings_differ_in_words(a, b),
        k=k,
        recall_key=f"recall@{k}",
        headline=next((m for m in comparison["metrics"] if m["metric"] == f"recall@{k}"), None),
        grid=_compare_grid(comparison["metrics"]),
        # The answer metrics left out because a run has no answers are said once, in one
        # sentence; those left out because the scorers differ, one by one.
        not_compared_scorers={
            m: localize(how)
            for m, how in (comparison.get("answers_not_comparable") or {}).items()
            if not (comparison.get("no_answers") and S.is_answer_metric(m) and S.reads_response(m))
        },
        no_answers=[name.upper() for name in comparison.get("no_answers") or []],
        changes=comparison["changes"],
        list_limit=COMPARE_LIST_LIMIT,
        scatter_svg=mark_safe(  # goldsmith.plots escapes every label
            plots.scatter(
                [(p["query_id"], p["a"], p["b"]) for p in comparison["scatter"]],
                label=gettext("Per-query Recall@%(k)s") % {"k": k},
                a=f"A #{a.pk} {plots.metric_name(f'recall@{k}', localize)}",
                b=f"B #{b.pk} {plots.metric_name(f'recall@{k}', localize)}",
                words=localize,
            )
        ),
    )
    return render(request, "evaluation/compare.html", ctx)


# Queries shown in each of the compare page's worse / better lists (the API lists all).
COMPARE_LIST_LIMIT = 25


def _significance_class(m: dict[str, Any]) -> str:
    if m["p_holm"] is None or m["p_holm"] >= 0.05 or not m["diff"]:
        return ""
    return "sig-up" if m["diff"] > 0 else "sig-down"


def _compare_grid(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The compare table grouped by K: one row per metric family, one column per K (a cell is
    the comparison of ``family@K``, or None), the metrics without a cut-off apart, and the
    same comparisons in sections per K for the table of every figure. Each comparison gains
    ``sig``: its CSS class when significant after Holm correction (p < 0.05), else ""."""
    rows = [{**m, "sig": _significance_class(m)} for m in rows]
    by_name = {m["metric"]: m for m in rows}
    cut = [m["metric"].split("@", 1) for m in rows if "@" in m["metric"]]
    ks = sorted({int(k) for _, k in cut if k.isdigit()})
    families = list(dict.fromkeys(f for f, _ in cut))
    return {
        "ks": ks,
        "rows": [
            {
                "family": f,
                "label": FAMILY_LABELS.get(f, f),
                "cells": [by_name.get(f"{f}@{k}") for k in ks],
            }
            for f in families
        ],
        "whole_list": [
            {**m, "label": FAMILY_LABELS.get(m["metric"], m["metric"])}
            for m in rows
            if "@" not in m["metric"]
        ],
        "sections": [
            {
                "title": f"K = {k}",
                "metrics": [by_name[f"{f}@{k}"] for f in families if f"{f}@{k}" in by_name],
            }
            for k in ks
        ]
        + [
            {
                "title": gettext("Whole returned list"),
                "metrics": [m for m in rows if "@" not in m["metric"]],
            }
        ],
    }


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}runs/compare/", run_compare, name="run-compare"),
]
