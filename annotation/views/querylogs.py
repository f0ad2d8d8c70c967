"""Query-log pages (leads): upload with progress, the import report, the log's distribution."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.translation import gettext_lazy, ngettext

from annotation.models import QueryLog, ScrubPattern
from annotation.permissions import Action, request_access
from annotation.selectors.querylogs import (
    log_distribution,
    query_logs,
    scrubbed_counts,
    top_queries,
)
from annotation.services.imports import upload_accept
from annotation.services.querylogs import query_log_create, scrub_pattern_set
from annotation.views.pages import page_context
from goldsmith.intake.pii import parse_patterns
from goldsmith.intake.readers import ReadError
from sitewide.i18n import localize


class QueryLogUploadForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("Query log file"),
        help_text=gettext_lazy(
            "JSONL or CSV with a 'query' column (optional timestamp, user, session, "
            "category, count, feedback), or one query per line."
        ),
    )
    near_duplicate_threshold = forms.FloatField(
        min_value=0.01,
        max_value=1.0,
        initial=0.85,
        label=gettext_lazy("Near-duplicate threshold (cosine)"),
    )
    clusters = forms.IntegerField(
        min_value=1, max_value=200, initial=12, label=gettext_lazy("Intent clusters")
    )


class ScrubPatternForm(forms.Form):
    patterns = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        label=gettext_lazy("Project patterns (NAME=REGEX, one a line)"),
        help_text=gettext_lazy(
            "Replaced by <NAME> in imported queries (after e-mails, phones, cards, IBANs and IPs)."
        ),
    )

    def clean_patterns(self) -> list[str]:
        lines = self.cleaned_data["patterns"].splitlines()
        try:
            parse_patterns(lines)
        except ValueError as error:
            raise forms.ValidationError(localize(error)) from None
        return lines


@login_required
def querylog_list(request: HttpRequest, project_id: int) -> HttpResponse:
    project, membership = request_access(request, project_id, Action.LEAD)
    form = QueryLogUploadForm(prefix="log")
    existing = "\n".join(
        f"{p.name}={p.pattern}" for p in ScrubPattern.objects.filter(project=project)
    )
    pattern_form = ScrubPatternForm(prefix="pii", initial={"patterns": existing})
    what = request.POST.get("what") if request.method == "POST" else None
    if what == "patterns":
        pattern_form = ScrubPatternForm(request.POST, prefix="pii")
        if pattern_form.is_valid():
            saved = scrub_pattern_set(project=project, lines=pattern_form.cleaned_data["patterns"])
            messages.success(
                request,
                ngettext(
                    "%(count)s project pattern saved.",
                    "%(count)s project patterns saved.",
                    len(saved),
                )
                % {"count": len(saved)},
            )
            return redirect("querylogs", project_id=project.pk)
    elif what == "upload":
        form = QueryLogUploadForm(request.POST, request.FILES, prefix="log")
        if form.is_valid():
            try:
                log = upload_accept(
                    query_log_create,
                    project=project,
                    upload=form.cleaned_data["file"],
                    created_by=request.user,
                    near_duplicate_threshold=form.cleaned_data["near_duplicate_threshold"],
                    clusters=form.cleaned_data["clusters"],
                )
            except (ReadError, ValueError) as error:
                form.add_error("file", localize(error))
            else:
                return redirect("querylog", project_id=project.pk, log_id=log.pk)
    context = page_context(
        project,
        membership,
        logs=query_logs(project=project)[:50],
        form=form,
        pattern_form=pattern_form,
    )
    return render(request, "annotation/querylogs.html", context)


@login_required
def querylog_detail(request: HttpRequest, project_id: int, log_id: int) -> HttpResponse:
    project, membership = request_access(request, project_id, Action.LEAD)
    log = get_object_or_404(QueryLog, pk=log_id, project=project)
    done = log.status == "done"
    context = page_context(
        project,
        membership,
        log=log,
        scrubbed=scrubbed_counts(log=log),
        distribution=log_distribution(log=log) if done else None,
        top=top_queries(log=log, limit=60) if done else [],
    )
    return render(request, "annotation/querylog_detail.html", context)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}querylogs/", querylog_list, name="querylogs"),
    path(f"{P}querylogs/<int:log_id>/", querylog_detail, name="querylog"),
]
