"""The answer judges page: register an HTTP judge of open answers, list them, try one with a
sample answer, remove one (leads only). Thin: validate, call one service, render."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.translation import gettext, gettext_lazy

from annotation.permissions import Action, project_access, role_allows
from evaluation.models import AnswerJudge
from evaluation.selectors import answer_judges_of
from evaluation.services.answer_judges import (
    SAMPLE,
    AnswerJudgeInvalid,
    answer_judge_delete,
    answer_judge_register,
    answer_judge_test_call,
)
from evaluation.views_judges import posted_object
from goldsmith.answers.judge import AnswerJudgeConfig

DEFAULTS = AnswerJudgeConfig(url="")


class AnswerJudgeForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        label=gettext_lazy("Name"),
        help_text=gettext_lazy("one word; reports say which numbers this judge gave by it"),
    )
    url = forms.CharField(
        max_length=2000,
        label=gettext_lazy("URL"),
        help_text=gettext_lazy("receives one answer per request"),
    )
    model = forms.CharField(
        required=False,
        max_length=200,
        label=gettext_lazy("Model"),
        help_text=gettext_lazy("the model the judge uses, as you configured it"),
    )
    prompt_version = forms.CharField(
        required=False, max_length=200, label=gettext_lazy("Prompt version")
    )
    temperature = forms.FloatField(
        required=False,
        min_value=0,
        label=gettext_lazy("Temperature"),
        help_text=gettext_lazy(
            "the name, model, prompt version and temperature are kept with every run the judge "
            "scores, so that two runs are compared only under the same judge"
        ),
    )
    body_template = forms.CharField(
        required=False,
        initial=DEFAULTS.body_template,
        label=gettext_lazy("Request body"),
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy(
            "JSON whose strings may hold {query}, {reference_answer}, {facts}, {response}, "
            "{model}, {prompt_version}, {temperature}; {response} is required"
        ),
    )
    score_path = forms.CharField(
        required=False,
        initial=DEFAULTS.score_path,
        label=gettext_lazy("Score path"),
        help_text=gettext_lazy("where the answer holds the score, from 0 to 1"),
    )
    reason_path = forms.CharField(
        required=False, initial=DEFAULTS.reason_path, label=gettext_lazy("Reason path")
    )
    timeout = forms.FloatField(
        required=False, min_value=0.1, max_value=300, initial=DEFAULTS.timeout,
        label=gettext_lazy("Timeout"), help_text=gettext_lazy("seconds"),
    )  # fmt: skip
    max_concurrency = forms.IntegerField(
        required=False, min_value=1, max_value=64, initial=DEFAULTS.max_concurrency,
        label=gettext_lazy("Requests at once"),
    )  # fmt: skip
    retries = forms.IntegerField(
        required=False, min_value=0, max_value=10, initial=DEFAULTS.retries,
        label=gettext_lazy("Retries"),
        help_text=gettext_lazy("after a timeout, HTTP 429 or a server error"),
    )  # fmt: skip
    auth_header_name = forms.CharField(required=False, label=gettext_lazy("Auth header name"))
    auth_header_value = forms.CharField(
        required=False,
        label=gettext_lazy("Auth header value"),
        widget=forms.PasswordInput(render_value=False),
        help_text=gettext_lazy("stored encrypted, never shown again"),
    )

    def call_settings(self) -> dict[str, Any]:
        """The settings given (an empty one takes the engine's default)."""
        d = self.cleaned_data
        names = ("body_template", "score_path", "reason_path", "timeout", "max_concurrency")
        return {n: d[n] for n in (*names, "retries") if d.get(n) not in (None, "")}


def _context(request: HttpRequest, project_id: int) -> dict[str, Any]:
    project, membership = project_access(
        user=request.user, project_id=project_id, action=Action.LEAD
    )
    return {
        "project": project,
        "membership": membership,
        "can_lead": True,
        "can_annotate": role_allows(membership.role, Action.ANNOTATE),
    }


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
    ctx = _context(request, project_id)
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
