"""The retrievers pages: list and add, one retriever (its runs, trend, start a run), edit."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.safestring import mark_safe
from django.utils.translation import gettext

from annotation.permissions import Action
from annotation.services.uploads import UploadRefused
from annotation.views.pages import project_page
from evaluation.forms import RetrieverForm, RunForm, refuse
from evaluation.models import Retriever, RetrieverKind
from evaluation.selectors.retrievers import baseline_run_id, retrievers_of, trend
from evaluation.services.reports import RunInvalid
from evaluation.services.retrievers import RetrieverInvalid, retriever_save
from evaluation.services.runs import evaluation_run_create
from goldsmith import formats, plots
from sitewide.i18n import localize

TREND_METRICS = ("recall", "ndcg", "pass")


@login_required
def retriever_list(request: HttpRequest, project_id: int) -> HttpResponse:
    ctx = project_page(request, project_id)
    project = ctx["project"]
    form = RetrieverForm(request.POST or None, request.FILES or None)
    if request.method == "POST":
        ctx = project_page(request, project_id, Action.LEAD)
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
                refuse(form, error)
            else:
                messages.success(
                    request, gettext("Retriever %(name)s added.") % {"name": retriever.name}
                )
                return redirect(
                    "retriever-detail", project_id=project.pk, retriever_id=retriever.pk
                )
    ctx.update(retrievers=retrievers_of(project=project), form=form)
    return render(request, "evaluation/retrievers.html", ctx)


@login_required
def retriever_detail(request: HttpRequest, project_id: int, retriever_id: int) -> HttpResponse:
    ctx = project_page(request, project_id)
    project = ctx["project"]
    retriever = get_object_or_404(Retriever, project=project, pk=retriever_id)
    run_form = RunForm(request.POST or None, project=project)
    if request.method == "POST":
        project_page(request, project_id, Action.LEAD)
        if run_form.is_valid():
            try:  # the form's fields are the run's settings, by the service's names
                run = evaluation_run_create(
                    project=project, retriever=retriever, by=request.user, **run_form.cleaned_data
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
    ctx = project_page(request, project_id, Action.LEAD)
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
            refuse(form, error)
        else:
            messages.success(request, gettext("Retriever saved."))
            return redirect(
                "retriever-detail", project_id=retriever.project_id, retriever_id=retriever.pk
            )
    ctx.update(retriever=retriever, form=form)
    return render(request, "evaluation/retriever_edit.html", ctx)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}retrievers/", retriever_list, name="retriever-list"),
    path(f"{P}retrievers/<int:retriever_id>/", retriever_detail, name="retriever-detail"),
    path(f"{P}retrievers/<int:retriever_id>/edit/", retriever_edit, name="retriever-edit"),
]
