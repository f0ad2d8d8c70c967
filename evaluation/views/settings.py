"""The project's evaluation settings page (leads)."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.translation import gettext

from annotation.permissions import Action
from annotation.views.pages import project_page
from evaluation.forms import SettingsForm, refuse
from evaluation.services.settings import (
    SettingsInvalid,
    evaluation_settings_get,
    evaluation_settings_update,
    settings_of,
)
from evaluation.wording import FAMILY_LABELS
from goldsmith import bands, metrics


@login_required
def evaluation_settings(request: HttpRequest, project_id: int) -> HttpResponse:
    ctx = project_page(request, project_id, Action.LEAD)
    record = evaluation_settings_get(project=ctx["project"])
    settings = settings_of(record)
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
        topk_in_force=[
            (FAMILY_LABELS.get(f, f), w)
            for f, w in metrics.topk_weights(*settings.topk_choice).items()
        ],
    )
    form = SettingsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            evaluation_settings_update(project=ctx["project"], **form.cleaned_data)
        except (SettingsInvalid, ValueError) as error:
            refuse(form, error)
        else:
            messages.success(request, gettext("Evaluation settings saved."))
            return redirect("evaluation-settings", project_id=project_id)
    ctx.update(
        form=form,
        presets=bands.PRESETS.values(),
        bands=settings.bands,
        thresholds=settings.thresholds(),
    )
    return render(request, "evaluation/settings.html", ctx)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}evaluation-settings/", evaluation_settings, name="evaluation-settings"),
]
