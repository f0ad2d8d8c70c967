"""Browser pages of the evaluation app: retrievers, runs (live progress, report), compare,
trend, settings. Thin: validate, call one service, render."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.safestring import mark_safe
from django.utils.text import format_lazy
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_POST

from annotation.downloads import attachment
from annotation.i18n import localize
from annotation.permissions import Action, project_access, role_allows
from annotation.services.uploads import UploadRefused
from evaluation.models import (
    Answerer,
    EvaluationRun,
    Matching,
    Retriever,
    RetrieverKind,
    RunState,
    Schedule,
)
from evaluation.selectors import (
    answer_judges_of,
    baseline_run_id,
    query_texts,
    recent_alerts,
    retrievers_of,
    run_progress,
    runs_of,
    trend,
    versions_of,
)
from evaluation.services import (
    RetrieverInvalid,
    RunInvalid,
    baseline_set,
    evaluation_run_cancel,
    evaluation_run_create,
    evaluation_settings_get,
    evaluation_settings_update,
    retriever_save,
)
from evaluation.services.answers import has_answers, stage_headline, stage_rows
from evaluation.services.reports import (
    band_table,
    compare_report,
    corpus_assumed,
    pool_unjudged,
    report_as_shown,
    report_csv,
    report_download,
)
from evaluation.services.retrievers import effective_thresholds, topk_choice
from evaluation.wording import (
    ANSWER_METRIC_NAMES,
    QUADRANT_ADVICE,
    QUADRANT_TITLES,
    UNFAITHFUL_ADVICE,
    answer_reason_words,
    corpus_in_words,
    drift_in_words,
    settings_differ_in_words,
    verdict_in_words,
)
from goldsmith import bands, formats, metrics, plots
from goldsmith.answers import faithfulness as F
from goldsmith.answers import scoring as S
from goldsmith.answers.quadrants import QUADRANTS
from goldsmith.retrievers.http import HTTP_SETTINGS, HttpSetting
from goldsmith.text import id_order

TREND_METRICS = ("recall", "ndcg", "pass")


def _context(request: HttpRequest, project_id: int, action: Action = Action.VIEW) -> dict[str, Any]:
    project, membership = project_access(user=request.user, project_id=project_id, action=action)
    return {
        "project": project,
        "membership": membership,
        "can_lead": role_allows(membership.role, Action.LEAD),
        "can_annotate": role_allows(membership.role, Action.ANNOTATE),
    }


# --------------------------------------------------------------------------------------------
# Retrievers


class HeaderLinesField(forms.CharField):
    """Headers as the page shows them: one per line, ``Name: value``."""

    widget = forms.Textarea(attrs={"rows": 2})

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, dict):
            return "\n".join(f"{name}: {text}" for name, text in value.items())
        return value

    def to_python(self, value: Any) -> dict[str, str]:
        headers: dict[str, str] = {}
        for line in str(value or "").splitlines():
            if not line.strip():
                continue
            name, colon, text = line.partition(":")
            if not colon or not name.strip():
                raise forms.ValidationError(
                    gettext("write each header as Name: value, not %(line)r") % {"line": line}
                )
            headers[name.strip()] = text.strip()
        return headers


def _http_field(setting: HttpSetting) -> forms.Field:
    """The form field of one HTTP setting. None is required here: the form serves every kind,
    and the service says what an HTTP retriever lacks."""
    common: dict[str, Any] = {
        "label": setting.label[:1].upper() + setting.label[1:],
        "help_text": setting.help,
        "required": False,
        "initial": setting.default,
    }
    if setting.choices:
        return forms.ChoiceField(choices=[(c, c) for c in setting.choices], **common)
    if setting.value_type in (int, float):
        number = forms.IntegerField if setting.value_type is int else forms.FloatField
        return number(min_value=setting.minimum, max_value=setting.maximum, **common)
    if setting.value_type is dict:
        return HeaderLinesField(**common)
    widget = forms.Textarea(attrs={"rows": 2}) if setting.lines else None
    return forms.CharField(widget=widget, **common)


class RetrieverForm(forms.Form):
    """A retriever's fields; the HTTP ones are made from `HTTP_SETTINGS`."""

    name = forms.CharField(max_length=120)
    kind = forms.ChoiceField(choices=RetrieverKind.choices)
    auth_header_name = forms.CharField(required=False, help_text=gettext_lazy("e.g. Authorization"))
    auth_header_value = forms.CharField(
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text=gettext_lazy(
            "Stored encrypted, never shown again. Leave empty to keep the stored one."
        ),
    )
    auth_header_env = forms.CharField(
        required=False,
        help_text=gettext_lazy(
            "…or the name of an environment variable on the workers: GOLDSMITH_SECRET_… "
            "or one listed in GOLDSMITH_RETRIEVER_SECRET_ENV"
        ),
    )
    schedule = forms.ChoiceField(choices=Schedule.choices, required=False)
    answerer = forms.ChoiceField(
        choices=Answerer.choices,
        required=False,
        label=gettext_lazy("Answers"),
        help_text=gettext_lazy(
            "Who answers a query the retriever gives no response for; the extractive "
            "baseline picks the best-matching sentence of the top chunks"
        ),
    )
    run_file = forms.FileField(
        required=False, help_text=gettext_lazy("TREC or JSONL run (kind: run file)")
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for setting in HTTP_SETTINGS:
            self.fields[setting.name] = _http_field(setting)

    def http_fields(self) -> list[forms.BoundField]:
        return [self[s.name] for s in HTTP_SETTINGS]

    def http_config(self) -> dict[str, Any]:
        """The HTTP settings given. An empty number or choice is left out (its default when
        adding, the stored value when editing); an empty text is a value ('' is the top level
        of a response, or no score field)."""
        config: dict[str, Any] = {}
        for setting in HTTP_SETTINGS:
            value = self.cleaned_data[setting.name]
            if value is not None and (value != "" or not setting.choices):
                config[setting.name] = value
        return config


@login_required
def retriever_list(request: HttpRequest, project_id: int) -> HttpResponse:
    ctx = _context(request, project_id)
    project = ctx["project"]
    form = RetrieverForm(request.POST or None, request.FILES or None)
    if request.method == "POST":
        ctx = _context(request, project_id, Action.LEAD)
        if form.is_valid():
            d = form.cleaned_data
            try:
                retriever = retriever_save(
                    project=project,
                    name=d["name"],
                    kind=d["kind"],
                    config=form.http_config() if d["kind"] == RetrieverKind.HTTP else None,
                    auth_header_name=d["auth_header_name"],
                    auth_header_value=d["auth_header_value"],
                    auth_header_env=d["auth_header_env"],
                    schedule=d["schedule"] or "",
                    answerer=d["answerer"] or "",
                    run_file=d["run_file"],
                    by=request.user,
                )
            except (RetrieverInvalid, formats.FormatError, UploadRefused) as error:
                form.add_error(None, localize(error))
            else:
                messages.success(
                    request, gettext("Retriever %(name)s added.") % {"name": retriever.name}
                )
                return redirect(
                    "retriever-detail", project_id=project.pk, retriever_id=retriever.pk
                )
    ctx.update(retrievers=retrievers_of(project=project), form=form)
    return render(request, "evaluation/retrievers.html", ctx)


class RunForm(forms.Form):
    version = forms.ModelChoiceField(queryset=None, empty_label=None)
    ks = forms.CharField(
        initial="5 10", label=gettext_lazy("Cut-offs K"), help_text=gettext_lazy("e.g. 5 10 20")
    )
    relevance_threshold = forms.TypedChoiceField(
        choices=[(2, "2 — strict"), (1, "1 — lenient")], coerce=int, initial=2
    )
    gain = forms.ChoiceField(choices=[("linear", "linear"), ("exp", "exponential")])
    matching = forms.ChoiceField(choices=Matching.choices)
    pass_threshold = forms.FloatField(required=False, min_value=0, max_value=1)
    machine_grades = forms.BooleanField(
        required=False,
        initial=True,
        label=gettext_lazy("Count machine grades"),
        help_text=gettext_lazy(
            "grades a machine judge filled where no person graded; unticked, those "
            "chunks count as unjudged"
        ),
    )

    answer_judge = forms.ModelChoiceField(
        queryset=None,
        required=False,
        label=gettext_lazy("Answer judge"),
        empty_label=gettext_lazy("None: the rules score every answer"),
        help_text=gettext_lazy("scores the open answers' correctness when the run finishes"),
    )

    def __init__(self, *args: Any, project: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["version"].queryset = versions_of(project=project)  # type: ignore[attr-defined]  # a ModelChoiceField's queryset, which Field does not declare
        self.fields["answer_judge"].queryset = answer_judges_of(project=project)  # type: ignore[attr-defined]  # as above

    def clean_ks(self) -> list[int]:
        try:
            values = [int(x) for x in self.cleaned_data["ks"].replace(",", " ").split()]
        except ValueError:
            raise forms.ValidationError(gettext("cut-offs are whole numbers, e.g. 5 10")) from None
        if not values:
            raise forms.ValidationError(gettext("give at least one cut-off"))
        return values


@login_required
def retriever_detail(request: HttpRequest, project_id: int, retriever_id: int) -> HttpResponse:
    ctx = _context(request, project_id)
    project = ctx["project"]
    retriever = get_object_or_404(Retriever, project=project, pk=retriever_id)
    run_form = RunForm(request.POST or None, project=project)
    if request.method == "POST":
        _context(request, project_id, Action.LEAD)
        if run_form.is_valid():
            d = run_form.cleaned_data
            try:
                run = evaluation_run_create(
                    project=project,
                    retriever=retriever,
                    version=d["version"],
                    ks=d["ks"],
                    relevance_threshold=d["relevance_threshold"],
                    gain=d["gain"],
                    matching=d["matching"],
                    pass_threshold=d["pass_threshold"],
                    machine_grades=d["machine_grades"],
                    answer_judge=d["answer_judge"],
                    by=request.user,
                )
            except RunInvalid as error:
                run_form.add_error(None, localize(error))
            else:
                return redirect("run-detail", project_id=project.pk, run_id=run.pk)
    data = trend(retriever=retriever, metrics=[f"{m}@10" for m in TREND_METRICS])
    runs = data["runs"]
    baseline = data["baseline"]
    marker = next((i for i, r in enumerate(runs) if r["id"] == baseline), None)
    ctx.update(
        retriever=retriever,
        run_form=run_form,
        runs=retriever.runs.select_related("version").order_by("-created_at")[:50],
        baseline_id=baseline_run_id(retriever=retriever),
        trend_svg=mark_safe(  # goldsmith.plots escapes every label
            plots.line_chart(
                [r["id"] for r in runs],
                {plots.metric_name(k, localize): v for k, v in data["series"].items()},  # type: ignore[union-attr]  # series is a dict in a finished report
                label=gettext("Metrics across runs"),
                marker_index=marker,
                x_labels=[f"#{r['id']}" for r in runs],
                words=localize,
            )
        ),
        config_json=json.dumps(retriever.config, indent=1),
        run_file=retriever.run_files.first(),
    )
    return render(
        request,
        "evaluation/retriever_detail.html",
        ctx,
        status=400 if run_form.is_bound and run_form.errors else 200,
    )


@login_required
def retriever_edit(request: HttpRequest, project_id: int, retriever_id: int) -> HttpResponse:
    ctx = _context(request, project_id, Action.LEAD)
    retriever = get_object_or_404(Retriever, project=ctx["project"], pk=retriever_id)
    initial = {
        **retriever.config,
        "name": retriever.name,
        "kind": retriever.kind,
        "auth_header_name": retriever.auth_header_name,
        "auth_header_env": retriever.auth_header_env,
        "schedule": retriever.schedule,
        "answerer": retriever.answerer,
    }
    form = RetrieverForm(request.POST or None, request.FILES or None, initial=initial)
    form.fields["name"].disabled = True
    form.fields["kind"].disabled = True
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            retriever_save(
                project=ctx["project"],
                retriever=retriever,
                config=form.http_config() if retriever.kind == RetrieverKind.HTTP else None,
                auth_header_name=d["auth_header_name"],
                auth_header_value=d["auth_header_value"] or None,
                auth_header_env=d["auth_header_env"] or None,
                schedule=d["schedule"] or "",
                answerer=d["answerer"] or "",
                run_file=d["run_file"],
            )
        except (RetrieverInvalid, formats.FormatError, UploadRefused) as error:
            form.add_error(None, localize(error))
        else:
            messages.success(request, gettext("Retriever saved."))
            return redirect(
                "retriever-detail", project_id=retriever.project_id, retriever_id=retriever.pk
            )
    ctx.update(retriever=retriever, form=form)
    return render(request, "evaluation/retriever_edit.html", ctx)


# --------------------------------------------------------------------------------------------
# Runs


@login_required
def run_list(request: HttpRequest, project_id: int) -> HttpResponse:
    ctx = _context(request, project_id)
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
    ctx = _context(request, project_id)
    project = ctx["project"]
    run = get_object_or_404(
        EvaluationRun.objects.select_related("retriever", "version"), project=project, pk=run_id
    )
    report = report_as_shown(run, run.report or {})
    ctx.update(run=run, progress=run_progress(run=run), report=report)
    ctx["is_baseline"] = baseline_run_id(retriever=run.retriever) == run.pk
    ctx["alert"] = getattr(run, "drift_alert", None) if hasattr(run, "drift_alert") else None
    ctx["corpus_assumed"] = corpus_assumed(run)
    if run.state == RunState.SUCCEEDED and report:
        band_map = band_table(project)
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
            thresholds=effective_thresholds(evaluation_settings_get(project=project)),
            preset=bands.preset(evaluation_settings_get(project=project).preset),
            verdict=verdict_in_words(report.get("verdict")),
            drift=drift_in_words(report.get("drift")),
            others=EvaluationRun.objects.filter(
                project=project, version=run.version, state=RunState.SUCCEEDED
            )
            .exclude(pk=run.pk)
            .select_related("retriever")[:20],
        )
        ctx.update(_diagnosis_context(run, report))
        ctx.update(_corpus_context(report, k))
        ctx["answers"] = _answers_context(run, report)
    return render(request, "evaluation/run_detail.html", ctx)


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
                    "title": QUADRANT_TITLES[key],
                    "advice": QUADRANT_ADVICE[key],
                    "count": diag["counts"].get(key, 0),
                    "queries": [
                        {"id": q, "text": texts.get(q, "")}
                        for q in sorted(diag["queries"].get(key, []), key=id_order)
                    ],
                    "unfaithful": sorted(unfaithful.get(key, []), key=id_order),
                    "unfaithful_advice": UNFAITHFUL_ADVICE[key],
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
            "quadrant": QUADRANT_TITLES.get(place.get(q, ""), ""),
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
        "quadrant_keys": [QUADRANT_TITLES[k] for k in QUADRANTS],
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
    language (`answer_reason_words`; faithfulness by the rules said again from the claims the
    report kept, `goldsmith.answers.faithfulness.reason_from_json`)."""
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
                    else answer_reason_words(reason),
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


def _diagnosis_context(run: EvaluationRun, report: dict[str, Any]) -> dict[str, Any]:
    """Top-K choice, hints, the low-recall list's cut-off and the whole-list metrics."""
    record = evaluation_settings_get(project=run.project)
    low = report.get("low_recall")
    return {
        "topk": _topk_context(report),
        "hints": [
            {
                **h,
                "title": localize(h["title"]),
                "detail": localize(h["detail"]),
                "figure_list": [(name, _figure(v)) for name, v in h["figures"].items()],
            }
            for h in report.get("hints") or []
        ],
        "low_recall": low,
        # a report lists the queries below the cut-off of its day; say when it has changed since
        "low_recall_now": record.low_recall_cutoff
        if low and record.low_recall_cutoff != low["cutoff"]
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
    ctx = _context(request, project_id)
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
    ctx = _context(request, project_id, Action.LEAD)
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


@login_required
def run_compare(request: HttpRequest, project_id: int) -> HttpResponse:
    ctx = _context(request, project_id)
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
            m: how
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
FAMILY_LABELS = {
    "recall": "Recall",
    "precision": "Precision",
    "hit": "Hit rate",
    "mrr": "MRR",
    "ndcg": "nDCG",
    "map": "MAP",
    "pass": "Pass rate",
    "judged": "Judged",
    "f1": "F1",
}


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


# --------------------------------------------------------------------------------------------
# Settings


class SettingsForm(forms.Form):
    preset = forms.ChoiceField(choices=[(p.key, p.label) for p in bands.PRESETS.values()])
    pass_threshold = forms.FloatField(
        required=False, min_value=0, max_value=1, help_text=gettext_lazy("Empty: the preset's")
    )
    min_recall = forms.FloatField(
        required=False,
        min_value=0,
        max_value=1,
        label=gettext_lazy("Recall target"),
        help_text=gettext_lazy("Mean Recall@K for a pass verdict. Empty: the preset's"),
    )
    recall_floor = forms.FloatField(
        required=False,
        min_value=0,
        max_value=1,
        label=gettext_lazy("Recall floor"),
        help_text=gettext_lazy(
            "Below it the verdict is fail and the alarm fires. Empty: the preset's"
        ),
    )
    min_pass_rate = forms.FloatField(
        required=False,
        min_value=0,
        max_value=1,
        label=gettext_lazy("Pass-rate target"),
        help_text=gettext_lazy("Share of passing queries for a pass verdict. Empty: the preset's"),
    )
    pass_rate_floor = forms.FloatField(
        required=False,
        min_value=0,
        max_value=1,
        label=gettext_lazy("Pass-rate floor"),
        help_text=gettext_lazy(
            "Below it the verdict is fail and the alarm fires. Empty: the preset's"
        ),
    )
    headline_k = forms.IntegerField(
        min_value=1,
        max_value=1000,
        initial=5,
        label=gettext_lazy("Headline K"),
        help_text=gettext_lazy(
            "The K of verdicts, baselines and drift (new runs always measure it)"
        ),
    )
    max_recall_drop = forms.FloatField(required=False, min_value=0, max_value=1)
    max_pass_rate_drop = forms.FloatField(required=False, min_value=0, max_value=1)
    webhook_url = forms.URLField(required=False, max_length=500, assume_scheme="https")
    band_overrides = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy('JSON, e.g. {"recall": {"good": 0.85, "fair": 0.7}}'),
    )
    topk_scenario = forms.ChoiceField(
        required=False,
        label=gettext_lazy("Top-K scenario"),
        choices=[
            ("", metrics.TOPK_SCENARIOS[metrics.DEFAULT_TOPK_SCENARIO].label),
            *(
                (s.key, s.label)
                for s in metrics.TOPK_SCENARIOS.values()
                if s.key != metrics.DEFAULT_TOPK_SCENARIO
            ),
        ],
        help_text=gettext_lazy("The weights of the top-K choice on the run page"),
    )
    topk_weights = forms.CharField(
        required=False,
        label=gettext_lazy("Top-K weight edits"),
        # lazily, in the reader's language (a gettext here would run once, at import)
        help_text=format_lazy(
            gettext_lazy(
                "Laid over the scenario's, e.g. mrr=0.5, recall=0.2 (0 drops a metric; metrics: "
                "{names}). Empty: the scenario's"
            ),
            names=", ".join(metrics.TOPK_FAMILIES),
        ),
    )
    low_recall_cutoff = forms.FloatField(
        min_value=0,
        max_value=1,
        initial=0.2,
        label=gettext_lazy("Low-recall cut-off"),
        help_text=gettext_lazy(
            "Runs list the queries whose Recall@K is below it, for diagnosis (apart from "
            "the pass threshold); applies to runs that finish after the change"
        ),
    )

    quadrant_recall_threshold = forms.FloatField(
        required=False,
        min_value=0,
        max_value=1,
        label=gettext_lazy("Quadrants: context recall threshold"),
        help_text=gettext_lazy(
            "Context recall at or above it counts as high in the answer diagnosis. Empty: the "
            "run's pass threshold"
        ),
    )
    quadrant_correctness_threshold = forms.FloatField(
        required=False,
        min_value=0,
        max_value=1,
        label=gettext_lazy("Quadrants: answer correctness threshold"),
        help_text=gettext_lazy(
            "Answer correctness at or above it counts as high. Empty: the run's pass threshold"
        ),
    )
    max_answer_drop = forms.CharField(
        required=False,
        label=gettext_lazy("Largest answer drops"),
        help_text=gettext_lazy(
            "Drift rules on answer metrics against the baseline, e.g. answer_correctness=0.05, "
            "context_recall@5=0.1. Empty: none"
        ),
    )

    def clean_max_answer_drop(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for part in (self.cleaned_data["max_answer_drop"] or "").split(","):
            if not part.strip():
                continue
            name, _, value = part.partition("=")
            try:
                out[name.strip()] = float(value)
            except ValueError:  # no "=" too: float("") refuses it
                raise forms.ValidationError(
                    gettext("write each rule as metric=drop, not %(part)r") % {"part": part.strip()}
                ) from None
        return out

    def clean_topk_weights(self) -> dict[str, float]:
        try:
            return metrics.parse_topk_weights(self.cleaned_data["topk_weights"] or "")
        except ValueError as error:
            raise forms.ValidationError(localize(error)) from None

    def clean_band_overrides(self) -> dict[str, Any]:
        raw = self.cleaned_data["band_overrides"].strip()
        if not raw:
            return {}
        try:
            value = json.loads(raw)
        except ValueError as error:
            raise forms.ValidationError(gettext("not JSON: %(error)s") % {"error": error}) from None
        if not isinstance(value, dict):
            raise forms.ValidationError(gettext("a JSON object of metric → {good, fair}"))
        return value


@login_required
def evaluation_settings(request: HttpRequest, project_id: int) -> HttpResponse:
    ctx = _context(request, project_id, Action.LEAD)
    record = evaluation_settings_get(project=ctx["project"])
    initial = {f: getattr(record, f) for f in SettingsForm.base_fields}
    initial["band_overrides"] = json.dumps(record.band_overrides) if record.band_overrides else ""
    initial["topk_weights"] = metrics.format_topk_weights(record.topk_weights or {})
    initial["max_answer_drop"] = ", ".join(
        f"{m}={v:g}" for m, v in (record.max_answer_drop or {}).items()
    )
    if record.topk_scenario == metrics.DEFAULT_TOPK_SCENARIO:
        initial["topk_scenario"] = ""  # the form offers the default scenario as ""
    ctx.update(
        topk_scenarios=metrics.TOPK_SCENARIOS.values(),
        topk_in_force=metrics.topk_weights(*topk_choice(record)),
    )
    form = SettingsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            evaluation_settings_update(project=ctx["project"], **form.cleaned_data)
        except (RetrieverInvalid, ValueError) as error:
            form.add_error(None, localize(error))
        else:
            messages.success(request, gettext("Evaluation settings saved."))
            return redirect("evaluation-settings", project_id=project_id)
    ctx.update(
        form=form,
        presets=bands.PRESETS.values(),
        bands=band_table(ctx["project"]),
        thresholds=effective_thresholds(record),
    )
    return render(request, "evaluation/settings.html", ctx)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}retrievers/", retriever_list, name="retriever-list"),
    path(f"{P}retrievers/<int:retriever_id>/", retriever_detail, name="retriever-detail"),
    path(f"{P}retrievers/<int:retriever_id>/edit/", retriever_edit, name="retriever-edit"),
    path(f"{P}runs/", run_list, name="run-list"),
    path(f"{P}runs/compare/", run_compare, name="run-compare"),
    path(f"{P}runs/<int:run_id>/", run_detail, name="run-detail"),
    path(f"{P}runs/<int:run_id>/report.<str:fmt>", run_download, name="run-download"),
    path(f"{P}runs/<int:run_id>/<str:action>/", run_action, name="run-action"),
    path(f"{P}evaluation-settings/", evaluation_settings, name="evaluation-settings"),
]
