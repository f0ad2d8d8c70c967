"""The machine judges page: register a judge, run it, upload its grades, let it fill gaps, and
read its agreement with the people (leads only)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.translation import gettext, ngettext

from annotation.models import MachineJudge, MachineJudgeKind
from annotation.permissions import Action
from annotation.selectors.machine import judges_of
from annotation.services.machine import (
    JudgeInvalid,
    machine_grades_fill_gaps,
    machine_grades_import,
)
from annotation.services.uploads import UploadRefused
from evaluation.forms import JudgeForm
from evaluation.models import JudgeEndpoint, JudgingJob, JudgingScope
from evaluation.services.judges import (
    judge_agreement_shown,
    judge_register,
    judging_job_cancel,
    judging_job_create,
)
from evaluation.views.pages import page_context


def posted_object(request: HttpRequest, queryset: QuerySet[Any], name: str) -> Any:
    """The row of `queryset` whose id the form posted as `name`: 404 for an id that is
    missing, not a number or not in `queryset` (another project's)."""
    value = request.POST.get(name, "")
    if not value.isdigit():
        raise Http404(gettext("No such item"))
    return get_object_or_404(queryset, pk=int(value))


def _act(request: HttpRequest, project: Any) -> str:
    """Carry out one button's action; returns what to tell the lead (raises JudgeInvalid)."""
    action = request.POST.get("action", "")
    judge = posted_object(request, MachineJudge.objects.filter(project=project), "judge")
    if action == "run":
        job = judging_job_create(
            judge=judge, scope=request.POST.get("scope", "all"), by=request.user
        )
        return ngettext(
            "%(judge)s is judging %(n)s chunk.", "%(judge)s is judging %(n)s chunks.", job.total
        ) % {"judge": judge.name, "n": job.total}
    if action == "upload":
        upload = request.FILES.get("file")
        if upload is None:
            raise JudgeInvalid(gettext("choose a file of grades (CSV or JSONL)"))
        stored = machine_grades_import(judge=judge, source=upload)
        return ngettext(
            "%(n)s grade of %(judge)s stored.", "%(n)s grades of %(judge)s stored.", stored
        ) % {"judge": judge.name, "n": stored}
    if action == "cancel":
        job = posted_object(request, JudgingJob.objects.filter(judge=judge), "job")
        judging_job_cancel(job=job)
        return gettext("%(judge)s's job is cancelled; the grades it stored are kept.") % {
            "judge": judge.name
        }
    if action == "fill":
        result = machine_grades_fill_gaps(project=project, judge=judge, by=request.user)
        filled = ngettext(
            "%(n)s chunk no person graded now takes %(judge)s's grade;",
            "%(n)s chunks no person graded now take %(judge)s's grade;",
            result.filled,
        ) % {"n": result.filled, "judge": judge.name}
        ready = ngettext(
            "%(n)s query is ready to approve.",
            "%(n)s queries are ready to approve.",
            result.queries_resolved,
        ) % {"n": result.queries_resolved}
        return gettext("%(first)s %(second)s") % {"first": filled, "second": ready}
    raise JudgeInvalid(gettext("unknown action"))


@login_required
def judge_list(request: HttpRequest, project_id: int) -> HttpResponse:
    ctx = page_context(request, project_id, Action.LEAD)
    project = ctx["project"]
    form = JudgeForm(request.POST if request.POST.get("action") == "register" else None)
    status = 200
    if request.method == "POST":
        try:
            if request.POST.get("action") == "register":
                if form.is_valid():
                    d = form.cleaned_data
                    is_http = d["kind"] == MachineJudgeKind.HTTP
                    judge = judge_register(
                        project=project,
                        name=d["name"],
                        kind=d["kind"],
                        config=form.http_config() if is_http else None,
                        auth_header_name=d["auth_header_name"] if is_http else None,
                        auth_header_value=d["auth_header_value"] if is_http else None,
                        by=request.user,
                    )
                    messages.success(
                        request, gettext("Judge %(name)s registered.") % {"name": judge.name}
                    )
                    return redirect("judge-list", project_id=project.pk)
                status = 400
            else:
                messages.success(request, _act(request, project))
                return redirect("judge-list", project_id=project.pk)
        except (JudgeInvalid, UploadRefused) as error:
            if request.POST.get("action") == "register":
                form.add_error(None, str(error))
            else:
                messages.error(request, str(error))
            status = 400
    judges = list(judges_of(project=project))
    endpoints = {e.judge_id: e for e in JudgeEndpoint.objects.filter(judge__in=judges)}
    rows = [
        {
            "judge": j,
            "endpoint": endpoints.get(j.pk),
            "graded": j.grades.count(),
            "job": JudgingJob.objects.filter(judge=j).first(),
        }
        for j in judges
    ]
    ctx.update(
        judges=rows,
        form=form,
        scopes=JudgingScope.choices,
        running=any(r["job"] is not None and not r["job"].finished for r in rows),
        agreement=(shown := judge_agreement_shown(project=project)).figures,
        shown=shown,
    )
    return render(request, "evaluation/judges.html", ctx, status=status)


urlpatterns = [
    path("projects/<int:project_id>/judges/", judge_list, name="judge-list"),
]
