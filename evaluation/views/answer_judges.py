"""The answer judges page: register an HTTP judge of open answers, list them, try one with a
sample answer, remove one (leads only). Thin: validate, call one service, render."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.translation import gettext

from annotation.permissions import Action
from evaluation.forms import AnswerJudgeForm
from evaluation.models import AnswerJudge
from evaluation.selectors.answer_judges import answer_judges_of
from evaluation.services.answer_judges import (
    SAMPLE,
    AnswerJudgeInvalid,
    answer_judge_delete,
    answer_judge_register,
    answer_judge_test_call,
)
from evaluation.views.judges import posted_object
from evaluation.views.pages import page_context


def _register(request: HttpRequest, project: Any, form: AnswerJudgeForm) -> AnswerJudge | None:
    """The registered judge, or None with the refusal on the form (by its field)."""
    if not form.is_valid():
        return None
    d = form.cleaned_data
    try:
        return answer_judge_register(
            project=project,
            name=d["name"],
            url=d["url"],
            model=d["model"],
            prompt_version=d["prompt_version"],
            temperature=d["temperature"],
            config=form.call_settings(),
            auth_header_name=d["auth_header_name"],
            auth_header_value=d["auth_header_value"],
            by=request.user,
        )
    except AnswerJudgeInvalid as error:
        field = error.field.rpartition(".")[2]
        form.add_error(field if field in form.fields else None, str(error))
        return None


@login_required
def answer_judge_list(request: HttpRequest, project_id: int) -> HttpResponse:
    ctx = page_context(request, project_id, Action.LEAD)
    project = ctx["project"]
    action = request.POST.get("action", "") if request.method == "POST" else ""
    form = AnswerJudgeForm(request.POST if action == "register" else None)
    status = 200
    if action == "register":
        judge = _register(request, project, form)
        if judge is not None:
            messages.success(
                request, gettext("Answer judge %(name)s registered.") % {"name": judge.name}
            )
            return redirect("answer-judge-list", project_id=project.pk)
        status = 400
    elif action in ("test", "delete"):
        judge = posted_object(request, AnswerJudge.objects.filter(project=project), "judge")
        if action == "delete":
            answer_judge_delete(judge=judge)
            messages.success(
                request, gettext("Answer judge %(name)s removed.") % {"name": judge.name}
            )
            return redirect("answer-judge-list", project_id=project.pk)
        ctx.update(tried=judge, answer=answer_judge_test_call(judge=judge), sample=SAMPLE)
    elif request.method == "POST":
        messages.error(request, gettext("Unknown action."))
        return redirect("answer-judge-list", project_id=project.pk)
    ctx.update(judges=list(answer_judges_of(project=project)), form=form)
    return render(request, "evaluation/answer_judges.html", ctx, status=status)


urlpatterns = [
    path("projects/<int:project_id>/answer-judges/", answer_judge_list, name="answer-judge-list"),
]
