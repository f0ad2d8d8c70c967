"""The sampling page (leads): preview a draw with before/after plots, then keep it."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.translation import gettext, gettext_lazy

from annotation.models import ImportStatus, Query, QueryLog, Sample
from annotation.permissions import Action, request_access
from annotation.selectors.querylogs import log_distribution, preview_distribution, samples
from annotation.services.sampling import BY_FIELDS, SamplingError, sample_create, sample_draw
from annotation.views.pages import page_context
from annotation.views.words import ALLOCATION_WORDS, FIELD_WORDS, STRATEGY_WORDS
from goldsmith.intake import sampling
from sitewide.i18n import localize


class SampleForm(forms.Form):
    log = forms.ModelChoiceField(
        queryset=QueryLog.objects.none(), empty_label=None, label=gettext_lazy("Query log")
    )
    n = forms.IntegerField(
        min_value=1, max_value=100_000, initial=50, label=gettext_lazy("Queries (n)")
    )
    strategy = forms.ChoiceField(
        choices=list(STRATEGY_WORDS.items()), label=gettext_lazy("Strategy")
    )
    by = forms.ChoiceField(
        choices=[("", "—"), *[(b, FIELD_WORDS[b]) for b in BY_FIELDS]],
        required=False,
        label=gettext_lazy("Stratify by (stratified only)"),
    )
    allocation = forms.ChoiceField(
        choices=[("", gettext_lazy("the strategy's default")), *ALLOCATION_WORDS.items()],
        required=False,
        label=gettext_lazy("Allocation"),
    )
    seed = forms.IntegerField(
        initial=1, min_value=0, max_value=sampling.SEED_MAX, label=gettext_lazy("Seed")
    )

    def __init__(self, *args, project=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["log"].queryset = QueryLog.objects.filter(
            project=project, status=ImportStatus.DONE
        ).order_by("-id")
        self.fields["log"].label_from_instance = lambda log: (
            gettext("#%(id)s %(name)s (%(n)s distinct queries)")
            % {"id": log.pk, "name": log.filename, "n": log.distinct}
        )


@login_required
def sampling_home(request: HttpRequest, project_id: int) -> HttpResponse:
    project, membership = request_access(request, project_id, Action.LEAD)
    form = SampleForm(request.POST or None, project=project)
    preview = None
    distribution = None
    if request.method == "POST" and form.is_valid():
        params = dict(form.cleaned_data)
        log = params.pop("log")
        try:
            if request.POST.get("what") == "create":
                outcome = sample_create(project=project, log=log, created_by=request.user, **params)
                messages.success(
                    request,
                    gettext("Sampled %(n_rows)s queries into the project.")
                    % {"n_rows": len(outcome.rows)},
                )
                return redirect("sample", project_id=project.pk, sample_id=outcome.sample.pk)
            preview = sample_draw(project=project, log=log, **params)
            distribution = preview_distribution(
                log=log, log_query_ids=[r.log_query_id for r in preview.rows]
            )
        except SamplingError as error:
            form.add_error(None, localize(error))
    elif form.fields["log"].queryset.exists() and request.method != "POST":
        distribution = log_distribution(log=form.fields["log"].queryset.first())
    context = page_context(
        project,
        membership,
        form=form,
        preview=preview,
        distribution=distribution,
        samples=samples(project=project)[:30],
    )
    return render(request, "annotation/sampling.html", context, status=400 if form.errors else 200)


@login_required
def sample_detail(request: HttpRequest, project_id: int, sample_id: int) -> HttpResponse:
    project, membership = request_access(request, project_id, Action.LEAD)
    sample = get_object_or_404(Sample.objects.select_related("log"), pk=sample_id, project=project)
    context = page_context(
        project,
        membership,
        sample=sample,
        queries=Query.objects.filter(sample=sample).order_by("stratum", "id"),
        distribution=log_distribution(log=sample.log, sample=sample) if sample.log else None,
    )
    return render(request, "annotation/sample_detail.html", context)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}sampling/", sampling_home, name="sampling"),
    path(f"{P}samples/<int:sample_id>/", sample_detail, name="sample"),
]
