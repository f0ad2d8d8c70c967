"""Annotators' pages: the queue, the keyboard-first annotation page, the guidelines."""

from __future__ import annotations

import markdown as markdown_lib
import nh3
from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods

from annotation.api.stopping import estimate_payload
from annotation.models import Guideline, PoolDeepening, QueryAnnotation
from annotation.models.judging import JudgingOrder
from annotation.permissions import Action, request_access
from annotation.selectors.answers import answer_draft_get
from annotation.selectors.judging import (
    annotation_view,
    annotator_queue,
    assignment_for,
    next_assignment,
    queue_summary,
)
from annotation.selectors.judging_order import judged_in_order, judging_order_for
from annotation.services.judging import guideline_publish
from annotation.views.pages import page_context
from sitewide.i18n import localize

FLAG_LABELS = [
    ("ambiguous", gettext_lazy("Ambiguous")),
    ("no_answer", gettext_lazy("No answer in the corpus")),
    ("personal_data", gettext_lazy("Contains personal data")),
    ("not_a_query", gettext_lazy("Not a real query")),
]

# The answer types of the native format (goldsmith.answers.model.ANSWER_TYPES), in words.
ANSWER_TYPE_LABELS = [
    ("open", gettext_lazy("Open (in words)")),
    ("number", gettext_lazy("A number with its unit")),
    ("date", gettext_lazy("A date")),
    ("boolean", gettext_lazy("Yes or no")),
    ("choice", gettext_lazy("One choice from a list")),
]


def render_markdown(text: str) -> str:
    """Guidelines are Markdown written by leads; the HTML is sanitised before it is shown."""
    return nh3.clean(markdown_lib.markdown(text, extensions=["tables", "fenced_code"]))


@login_required
def annotate_queue(request: HttpRequest, project_id: int) -> HttpResponse:
    project, membership = request_access(request, project_id, Action.ANNOTATE)
    items = list(annotator_queue(user=request.user, project=project))
    summary = queue_summary(user=request.user, project=project)
    return render(
        request,
        "annotation/annotate_queue.html",
        page_context(project, membership, items=items, summary=summary),
    )


@login_required
def annotate_next(request: HttpRequest, project_id: int) -> HttpResponse:
    """Go to the next unfinished query of the caller's queue (after `?after=<query id>`)."""
    project, _ = request_access(request, project_id, Action.ANNOTATE)
    after = None
    if request.GET.get("after", "").isdigit():
        after = (
            annotator_queue(user=request.user, project=project)
            .filter(query_id=int(request.GET["after"]))
            .first()
        )
    following = next_assignment(user=request.user, project=project, after=after)
    if following is None:
        messages.success(request, gettext("Your queue is done. Thank you!"))
        return redirect("annotate-queue", project_id=project.pk)
    return redirect("annotate-query", project_id=project.pk, query_id=following.query_id)


@login_required
def annotate_query(request: HttpRequest, project_id: int, query_id: int) -> HttpResponse:
    project, membership = request_access(request, project_id, Action.ANNOTATE)
    assignment = assignment_for(user=request.user, project=project, query_id=query_id)
    if assignment is None:
        raise Http404(gettext("That query is not in your queue"))
    view = annotation_view(assignment=assignment)
    # Most likely relevant first (what is left, then what is graded, in the order it was
    # graded), unless asked for the pool's plain order; the order rests on the caller's own
    # grades and resolved queries only.
    order = JudgingOrder.PLAIN if request.GET.get("order") == "plain" else JudgingOrder.LIKELY
    if order == JudgingOrder.LIKELY and view.candidates:
        ranked = [
            *judging_order_for(query=view.query, annotator=request.user),
            *judged_in_order(query_id=view.query.pk, annotator=request.user),
        ]
        place = {pk: i for i, pk in enumerate(ranked)}
        view.candidates.sort(key=lambda c: place.get(c.id, len(place)))
    estimate = estimate_payload(assignment, project) if view.candidates else None
    if estimate and estimate["draw"]:
        # The candidates drawn at random for the stop estimate come next, marked as such.
        drawn = set(estimate["draw"])
        view.candidates.sort(key=lambda c: (c.id not in drawn) or c.grade is not None)
    annotation = view.annotation or QueryAnnotation()
    guideline = Guideline.objects.filter(project=project).order_by("-version").first()
    summary = queue_summary(user=request.user, project=project)
    draft = None
    if project.annotators_write_answers:
        draft = answer_draft_get(query_id=view.query.pk, annotator_id=request.user.pk)
        position = {c.chunk_id: i for i, c in enumerate(view.candidates, start=1)}
        draft["choices_text"] = "\n".join(draft["choices"])
        draft["facts"] = [
            (f["text"], [(cid, position.get(cid)) for cid in f["chunk_ids"]])
            for f in draft["reference_facts"]
        ]
    context = page_context(
        project,
        membership,
        view=view,
        draft=draft,
        answer_types=ANSWER_TYPE_LABELS,
        flags=[(name, label, getattr(annotation, name)) for name, label in FLAG_LABELS],
        note=annotation.note,
        guideline=guideline,
        guideline_html=render_markdown(guideline.markdown) if guideline else "",
        summary=summary,
        api_base=reverse("api-project-detail", args=[project.pk]),
        next_url=reverse("annotate-next", args=[project.pk]) + f"?after={query_id}",
        order=order,
        estimate=estimate,
        deepenings=list(
            PoolDeepening.objects.filter(query=view.query)
            .select_related("source")
            .order_by("created_at", "id")
        ),
        stop_url=reverse("api-query-stop", args=[project.pk, query_id]),
        switch_url=reverse("annotate-query", args=[project.pk, query_id])
        + ("" if order == JudgingOrder.PLAIN else "?order=plain"),
    )
    return render(request, "annotation/annotate.html", context)


class GuidelineForm(forms.Form):
    markdown = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 16}),
        max_length=200_000,
        label=gettext_lazy("Guidelines (Markdown)"),
    )


@login_required
@require_http_methods(["GET", "POST"])
def guidelines(request: HttpRequest, project_id: int) -> HttpResponse:
    """Everyone in the project reads the guidelines; leads publish new versions."""
    action = Action.LEAD if request.method == "POST" else Action.VIEW
    project, membership = request_access(request, project_id, action)
    versions = list(Guideline.objects.filter(project=project).order_by("-version"))
    current = versions[0] if versions else None
    form = GuidelineForm(request.POST or None, initial={"markdown": current and current.markdown})
    if request.method == "POST" and form.is_valid():
        try:
            published = guideline_publish(
                project=project, markdown=form.cleaned_data["markdown"], by=request.user
            )
        except ValueError as error:
            form.add_error("markdown", localize(error))
        else:
            messages.success(
                request,
                gettext("Published guidelines version %(version)s.")
                % {"version": published.version},
            )
            return redirect("guidelines", project_id=project.pk)
    return render(
        request,
        "annotation/guidelines.html",
        page_context(
            project,
            membership,
            current=current,
            current_html=render_markdown(current.markdown) if current else "",
            versions=versions,
            form=form,
        ),
    )


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}annotate/", annotate_queue, name="annotate-queue"),
    path(f"{P}annotate/next/", annotate_next, name="annotate-next"),
    path(f"{P}annotate/<int:query_id>/", annotate_query, name="annotate-query"),
    path(f"{P}guidelines/", guidelines, name="guidelines"),
]
