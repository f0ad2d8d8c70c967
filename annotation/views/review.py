"""Leads' pages: pools and assignment, the disagreement queue, adjudication, the dashboard."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, gettext_lazy, ngettext
from django.views.decorators.http import require_POST

from annotation.models import (
    Assignment,
    Membership,
    PoolBuild,
    PoolSource,
    Project,
    Query,
    Role,
)
from annotation.models.judging import AdjudicationReason
from annotation.models.projects import KappaWeights, TieRule
from annotation.permissions import Action, request_access
from annotation.selectors.answers import answer_drafts_view, project_fact_agreement
from annotation.selectors.judging import (
    adjudication_view,
    disagreement_queue,
    escalated_queue,
    escalation_words,
    extra_annotators,
    flag_reasons_in_words,
    resolved_queue,
    review_counts,
)
from annotation.services.adjudication import (
    SettlingChange,
    StaleReview,
    project_escalation_set,
    project_rules_change,
    queries_approve,
    query_adjudicate,
    query_approve,
    settling_status,
)
from annotation.services.agreement import project_agreement
from annotation.services.answers import (
    AnswerKeyError,
    answer_key_set,
    project_annotators_write_answers_set,
)
from annotation.services.assignment import assignment_reassign, queries_assign
from annotation.services.pooling import (
    DEFAULT_K,
    PoolBuildBusy,
    pool_build_queue,
    pool_import_run,
)
from annotation.services.stopping import project_stopping_set
from annotation.services.uploads import upload_file
from annotation.views.annotate import ANSWER_TYPE_LABELS
from annotation.views.pages import page_context
from annotation.views.panels import Place, panels_at
from goldsmith import plots
from sitewide.i18n import localize


class PoolBuildForm(forms.Form):
    retrievers = forms.MultipleChoiceField(
        choices=[("bm25", "BM25"), ("tfidf", "TF-IDF")],
        initial=["bm25", "tfidf"],
        label=gettext_lazy("Built-in retrievers"),
        widget=forms.CheckboxSelectMultiple,
    )
    k = forms.IntegerField(
        min_value=1, max_value=1000, initial=DEFAULT_K, label=gettext_lazy("Top k")
    )


class RunImportForm(forms.Form):
    name = forms.CharField(
        max_length=120,
        label=gettext_lazy("Name of the run"),
        help_text=gettext_lazy("e.g. production-2026-11"),
    )
    format = forms.ChoiceField(
        choices=[
            ("auto", gettext_lazy("Detect from the file")),
            ("trec", gettext_lazy("TREC run")),
            ("jsonl", "JSONL"),
        ],
        label=gettext_lazy("Format"),
    )
    k = forms.IntegerField(
        min_value=1, max_value=1000, initial=DEFAULT_K, label=gettext_lazy("Top k")
    )
    file = forms.FileField(label=gettext_lazy("Run file"))


class AssignForm(forms.Form):
    per_query = forms.IntegerField(
        min_value=1, max_value=20, label=gettext_lazy("Annotators per query")
    )


class TieRuleForm(forms.Form):
    tie_rule = forms.ChoiceField(
        choices=TieRule.choices, label=gettext_lazy("Ties one grade apart")
    )


class KappaWeightsForm(forms.Form):
    kappa_weights = forms.ChoiceField(
        choices=KappaWeights.choices,
        label=gettext_lazy("Kappa the flag rule reads"),
        help_text=gettext_lazy(
            "A query whose figure is below the threshold goes to a lead. Kappa is low on a "
            "query where nearly every chunk is not relevant even when the annotators agree; "
            "Gwet's AC1 and AC2 are not, so fewer such queries reach you."
        ),
    )


def _on_off(label: str, off: str, on: str) -> forms.TypedChoiceField:
    """A setting that is off ("0") or on ("1"), each choice said in words."""
    return forms.TypedChoiceField(
        choices=[("0", off), ("1", on)], coerce=lambda value: value == "1", label=label
    )


class EscalationForm(forms.Form):
    escalate = _on_off(
        gettext_lazy("Flagged queries"),
        gettext_lazy("Go to a lead"),
        gettext_lazy("Go to one more annotator first, then to a lead if still needed"),
    )


class AnnotatorAnswersForm(forms.Form):
    annotators_write_answers = _on_off(
        gettext_lazy("Reference answers and key facts"),
        gettext_lazy("Only a lead sets answer keys"),
        gettext_lazy("Annotators write them after grading; a lead merges"),
    )


class StoppingForm(forms.Form):
    stopping_allowed = _on_off(
        gettext_lazy("Stopping before every candidate is graded"),
        gettext_lazy("Annotators grade every candidate"),
        gettext_lazy(
            "Annotators may finish a query once the estimate says 95% of its relevant "
            "candidates are found"
        ),
    )


class ReassignForm(forms.Form):
    assignment = forms.IntegerField(widget=forms.HiddenInput)
    username = forms.CharField(max_length=150, label=gettext_lazy("Username"))


@login_required
def pools(request: HttpRequest, project_id: int) -> HttpResponse:
    """Build pools, import a production run, assign queries, reassign (leads)."""
    project, membership = request_access(request, project_id, Action.LEAD)
    build_form = PoolBuildForm(prefix="build")
    run_form = RunImportForm(prefix="run")
    assign_form = AssignForm(prefix="assign", initial={"per_query": project.annotators_per_query})
    what = request.POST.get("what") if request.method == "POST" else None
    if what == "build":
        build_form = PoolBuildForm(request.POST, prefix="build")
        if build_form.is_valid():
            try:
                pool_build_queue(
                    project=project,
                    kinds=build_form.cleaned_data["retrievers"],
                    k=build_form.cleaned_data["k"],
                    created_by=request.user,
                )
            except PoolBuildBusy as busy:
                messages.error(request, str(busy))
            else:
                messages.success(
                    request,
                    gettext(
                        "A worker is building the pools; this page shows how far it is and "
                        "what each retriever added."
                    ),
                )
            return redirect("pools", project_id=project.pk)
    elif what == "run":
        run_form = RunImportForm(request.POST, request.FILES, prefix="run")
        if run_form.is_valid():
            try:
                with upload_file(run_form.cleaned_data["file"]) as copy:
                    result = pool_import_run(
                        project=project,
                        name=run_form.cleaned_data["name"],
                        path=copy,
                        format=run_form.cleaned_data["format"],
                        k=run_form.cleaned_data["k"],
                    )
            except ValueError as error:  # FormatError names the upload and the line
                run_form.add_error("file", localize(error))
                result = None
            if result is not None:
                messages.success(
                    request,
                    gettext(
                        "%(source)s: %(new_candidates)s new candidates, %(skipped)s rows "
                        "skipped; %(reopened_queries)s finished queries went back into the "
                        "queues."
                    )
                    % vars(result),
                )
                return redirect("pools", project_id=project.pk)
    elif what == "assign":
        assign_form = AssignForm(request.POST, prefix="assign")
        if assign_form.is_valid():
            try:
                result = queries_assign(
                    project=project, per_query=assign_form.cleaned_data["per_query"]
                )
            except ValueError as error:
                assign_form.add_error("per_query", localize(error))
            else:
                messages.success(
                    request,
                    gettext("%(created)s new assignments over %(queries)s queries.")
                    % {"created": result.created, "queries": result.queries},
                )
                return redirect("pools", project_id=project.pk)
    elif what == "reassign":
        form = ReassignForm(request.POST)
        if not form.is_valid():
            messages.error(request, gettext("Name an assignment and an annotator."))
        else:
            assignment = Assignment.objects.filter(
                pk=form.cleaned_data["assignment"], query__project=project
            ).first()
            if assignment is None:
                raise Http404(gettext("No such assignment in this project"))
            try:
                assignment_reassign(
                    assignment=assignment, to_username=form.cleaned_data["username"]
                )
            except ValueError as error:
                messages.error(request, localize(error))
            else:
                messages.success(
                    request,
                    gettext("Query %(query_id)s now goes to %(annotator)s.")
                    % {"query_id": assignment.query_id, "annotator": assignment.annotator},
                )
                return redirect("pools", project_id=project.pk)
    sources = PoolSource.objects.filter(project=project).annotate(n=Count("hits")).order_by("name")
    pool_build = PoolBuild.objects.filter(project=project).first()
    counts = review_counts(project=project)
    reassign_query = request.GET.get("query", "")
    assignments = []
    if reassign_query.isdigit():
        assignments = list(
            Assignment.objects.filter(query__project=project, query_id=int(reassign_query))
            .select_related("annotator", "query")
            .order_by("annotator__username")
        )
    annotators = (
        Membership.objects.filter(project=project, role=Role.ANNOTATOR)
        .select_related("user")
        .order_by("user__username")
    )
    return render(
        request,
        "annotation/pools.html",
        page_context(
            project,
            membership,
            sources=sources,
            counts=counts,
            build_form=build_form,
            pool_build=pool_build,
            run_form=run_form,
            assign_form=assign_form,
            reassign_query=reassign_query,
            assignments=assignments,
            annotators=annotators,
        ),
        # Every accepted post redirects: a page answering a post shows what was refused.
        status=400 if request.method == "POST" else 200,
    )


@login_required
def review_queue(request: HttpRequest, project_id: int) -> HttpResponse:
    project, membership = request_access(request, project_id, Action.LEAD)
    return _review_queue_page(request, project, membership)


def _review_queue_page(
    request: HttpRequest, project: Project, membership: Membership, status: int = 200
) -> HttpResponse:
    flagged = list(disagreement_queue(project=project)[:500])
    why = flag_reasons_in_words(project=project, reviews=flagged)
    waiting = list(escalated_queue(project=project)[:500])
    extra = extra_annotators(query_ids=[r.query_id for r in flagged + waiting])
    return render(
        request,
        "annotation/review_queue.html",
        page_context(
            project,
            membership,
            flagged=[
                (
                    r,
                    why.get(r.query_id, []),
                    escalation_words(r, extra.get(r.query_id, []), project.escalate),
                )
                for r in flagged
            ],
            waiting=[(r, extra.get(r.query_id, [])) for r in waiting],
            resolved=list(resolved_queue(project=project)[:500]),
            counts=review_counts(project=project),
        ),
        status=status,
    )


@login_required
def adjudicate(request: HttpRequest, project_id: int, query_id: int) -> HttpResponse:
    project, membership = request_access(request, project_id, Action.LEAD)
    hide = request.GET.get("hide_names") == "1" or request.POST.get("hide_names") == "1"
    errors: list[str] = []
    status = 200
    if request.method == "POST":
        if not project.queries.filter(pk=query_id).exists():
            raise Http404(gettext("No such query"))
        grades: dict[int, int] = {}
        for key, value in request.POST.items():
            if key.startswith("grade-") and key[6:].isdigit() and value in {"0", "1", "2"}:
                grades[int(key[6:])] = int(value)
        try:
            version = int(request.POST.get("version", ""))
        except ValueError:
            version = -1
        try:
            query_adjudicate(
                project=project,
                query_id=query_id,
                by=request.user,
                version=version,
                grades=grades,
                reason=request.POST.get("reason", ""),
                note=request.POST.get("note", ""),
            )
        except StaleReview:
            errors.append(
                gettext(
                    "Another lead changed this query while you were looking at it; "
                    "nothing of yours was saved. Here is the current state."
                )
            )
            status = 409
        except ValueError as error:
            errors.append(localize(error))
            status = 400
        else:
            messages.success(
                request, gettext("Query %(query_id)s adjudicated.") % {"query_id": query_id}
            )
            if request.POST.get("then") == "next":
                following = disagreement_queue(project=project).exclude(query_id=query_id).first()
                if following is not None:
                    return redirect(
                        "adjudicate", project_id=project.pk, query_id=following.query_id
                    )
                messages.info(
                    request, gettext("That was the last disagreement: none is left to settle.")
                )
                return redirect("review-queue", project_id=project.pk)
            return redirect("adjudicate", project_id=project.pk, query_id=query_id)
    return _adjudicate_page(request, project, membership, query_id, hide, errors, status)


def _adjudicate_page(
    request: HttpRequest,
    project: Project,
    membership: Membership,
    query_id: int,
    hide: bool,
    errors: list[str],
    status: int,
    merge: dict[str, object] | None = None,
) -> HttpResponse:
    view = adjudication_view(project=project, query_id=query_id, hide_names=hide)
    if view is None:
        raise Http404(gettext("No such query"))
    drafts = answer_drafts_view(project=project, query_id=query_id, hide_names=hide)
    for column in drafts.columns:
        if column.draft is not None:
            column.draft["choices_text"] = "\n".join(column.draft["choices"])
    show_answers = (
        project.annotators_write_answers
        or any(c.draft for c in drafts.columns)
        or drafts.key["reference_answer"] is not None
        or bool(drafts.key["reference_facts"])
    )
    key = merge or {
        **drafts.key,
        "choices_text": "\n".join(drafts.key["choices"]),
        "alternatives_text": "\n".join(drafts.key.get("reference_answers", [])[1:]),
        "facts": [(f["text"], " ".join(f["chunk_ids"])) for f in drafts.key["reference_facts"]],
    }
    return render(
        request,
        "annotation/adjudicate.html",
        page_context(
            project,
            membership,
            view=view,
            hide=hide,
            errors=errors,
            reasons=AdjudicationReason.choices,
            posted=request.POST if status != 200 else None,
            drafts=drafts if show_answers else None,
            merged=key,
            answer_types=ANSWER_TYPE_LABELS,
        ),
        status=status,
    )


@login_required
@require_POST
def answer_key_merge(request: HttpRequest, project_id: int, query_id: int) -> HttpResponse:
    """Save the lead's merge of the annotators' drafts as the query's answer key: the reference
    answer, further reference answers (one per line), its type, the choices (one per line) and
    the key facts (`fact-text` with
    `fact-chunks`, chunk ids between spaces; a row without words is left out)."""
    project, membership = request_access(request, project_id, Action.LEAD)
    hide = request.POST.get("hide_names") == "1"
    answer = request.POST.get("reference_answer", "")
    kind = request.POST.get("answer_type", "")
    choices_text = request.POST.get("choices", "")
    choices = [line.strip() for line in choices_text.splitlines() if line.strip()]
    alternatives_text = request.POST.get("reference_alternatives", "")
    alternatives = [line.strip() for line in alternatives_text.splitlines() if line.strip()]
    rows = list(
        zip(request.POST.getlist("fact-text"), request.POST.getlist("fact-chunks"), strict=False)
    )
    facts = [{"text": t, "chunk_ids": c.split()} for t, c in rows if t.strip()]
    data = {
        "reference_answer": answer if answer.strip() else None,
        "answer_type": kind or None,
        "choices": choices or None,
        "reference_facts": facts,
    }
    if alternatives and data["reference_answer"] is not None:
        data["reference_answers"] = [data["reference_answer"], *alternatives]
    try:
        answer_key_set(project=project, query_id=query_id, data=data)
    except Query.DoesNotExist:
        raise Http404(gettext("No such query")) from None
    except AnswerKeyError as error:
        merge = {
            "reference_answer": data["reference_answer"],
            "answer_type": data["answer_type"],
            "choices_text": choices_text,
            "alternatives_text": alternatives_text,
            "facts": [(t, c) for t, c in rows if t.strip() or c.strip()],
            "error_field": error.field,
        }
        message = gettext("The answer key was not saved: %(field)s: %(message)s") % {
            "field": error.field,
            "message": error.message,
        }
        return _adjudicate_page(
            request, project, membership, query_id, hide, [message], 400, merge=merge
        )
    messages.success(
        request,
        gettext("Query %(query_id)s: answer key saved.") % {"query_id": query_id},
    )
    url = reverse("adjudicate", args=[project.pk, query_id])
    return redirect(url + ("?hide_names=1" if hide else "") + "#answer-merge")


@login_required
@require_POST
def approve(request: HttpRequest, project_id: int, query_id: int) -> HttpResponse:
    project, _ = request_access(request, project_id, Action.LEAD)
    if not project.queries.filter(pk=query_id).exists():
        raise Http404(gettext("No such query"))
    try:
        version = int(request.POST["version"]) if request.POST.get("version") else None
        query_approve(project=project, query_id=query_id, by=request.user, version=version)
    except StaleReview:
        messages.error(
            request, gettext("Another lead changed this query meanwhile; look at it again.")
        )
        return redirect("adjudicate", project_id=project.pk, query_id=query_id)
    except ValueError as error:
        messages.error(request, localize(error))
        return redirect("adjudicate", project_id=project.pk, query_id=query_id)
    messages.success(request, gettext("Query %(query_id)s approved.") % {"query_id": query_id})
    return redirect("review-queue", project_id=project.pk)


@login_required
@require_POST
def approve_bulk(request: HttpRequest, project_id: int) -> HttpResponse:
    project, membership = request_access(request, project_id, Action.LEAD)
    try:
        if request.POST.get("all_resolved") == "1":
            result = queries_approve(project=project, by=request.user, query_ids=None)
        else:
            ids = [int(v) for v in request.POST.getlist("query") if v.isdigit()]
            result = queries_approve(project=project, by=request.user, query_ids=ids)
    except ValueError as error:
        messages.error(request, localize(error))
        return _review_queue_page(request, project, membership, status=400)
    messages.success(
        request,
        (
            gettext("Approved %(approved)s queries; skipped %(skipped)s that were not resolved.")
            if result.skipped
            else gettext("Approved %(approved)s queries.")
        )
        % {"approved": len(result.approved), "skipped": len(result.skipped)},
    )
    return redirect("review-queue", project_id=project.pk)


@login_required
def dashboard(request: HttpRequest, project_id: int) -> HttpResponse:
    project, membership = request_access(request, project_id, Action.LEAD)
    return _dashboard_page(request, project, membership)


# The dashboard's setting forms by their name in the page; each has one field, named after
# the project's setting it changes.
SETTING_FORMS: dict[str, type[forms.Form]] = {
    "tie_rule_form": TieRuleForm,
    "escalation_form": EscalationForm,
    "kappa_form": KappaWeightsForm,
    "answers_form": AnnotatorAnswersForm,
    "stopping_form": StoppingForm,
}


def _setting_form(form_class: type[forms.Form], project: Project) -> forms.Form:
    """The form showing the project's setting as it is."""
    (field,) = form_class.base_fields
    value = getattr(project, field)
    return form_class(
        initial={field: ("1" if value else "0") if isinstance(value, bool) else value}
    )


def _dashboard_page(
    request: HttpRequest,
    project: Project,
    membership: Membership,
    refused: forms.Form | None = None,
) -> HttpResponse:
    """The dashboard; with `refused`, that setting form as it was sent, its errors shown (400)."""
    summary = project_agreement(project=project)
    forms_shown = {
        name: refused if isinstance(refused, form_class) else _setting_form(form_class, project)
        for name, form_class in SETTING_FORMS.items()
    }
    return render(
        request,
        "annotation/dashboard.html",
        page_context(
            project,
            membership,
            summary=summary,
            counts=summary["states"],
            # goldsmith.plots escapes every label
            histogram_svg=mark_safe(
                plots.kappa_histogram(summary["kappa_histogram"], words=localize)
            ),
            matrix=mark_safe(plots.pairwise_matrix(summary["pairwise"], words=localize)),
            # the evaluation app's drift alerts (annotation/views/panels.py)
            top_panels=panels_at(Place.DASHBOARD_TOP, project=project, membership=membership),
            # the evaluation app's machine judges, measured beside the annotators
            bottom_panels=panels_at(Place.DASHBOARD_BOTTOM, project=project, membership=membership),
            settling=settling_status(project=project),
            fact_agreement=project_fact_agreement(project=project),
            **forms_shown,
        ),
        status=400 if refused is not None else 200,
    )


def _setting_view(
    form_class: type[forms.Form], store: Callable[[Project, Any], str]
) -> Callable[..., HttpResponse]:
    """The view a dashboard setting form posts to (lead): the form's one value, stored by
    `store`, which says in a sentence what the change did; a refused value shows the
    dashboard again with the form's errors."""

    @login_required
    @require_POST
    def view(request: HttpRequest, project_id: int) -> HttpResponse:
        project, membership = request_access(request, project_id, Action.LEAD)
        form = form_class(request.POST)
        if not form.is_valid():
            return _dashboard_page(request, project, membership, refused=form)
        (value,) = form.cleaned_data.values()
        messages.success(request, store(project, value))
        return redirect("dashboard", project_id=project.pk)

    return view


def _settling_words(change: SettlingChange) -> str:
    """What a change of tie rule or flag kappa did to the finished queries, in a sentence."""
    if change.changed is None:
        return ngettext(
            "A worker is settling the %(count)s finished query not yet approved again; this "
            "page says when it is done.",
            "A worker is settling the %(count)s finished queries not yet approved again; this "
            "page says when it is done.",
            change.queries,
        ) % {"count": change.queries}
    return ngettext(
        "%(count)s query not yet approved settled differently.",
        "%(count)s queries not yet approved settled differently.",
        change.changed,
    ) % {"count": change.changed}


def _settled_again(first: str, change: SettlingChange) -> str:
    """The new rule in a sentence, then what settling the finished queries again did."""
    # Translators: two sentences one after the other (Chinese puts no space between them).
    return gettext("%(first)s %(second)s") % {"first": first, "second": _settling_words(change)}


def _tie_rule_store(project: Project, value: str) -> str:
    change = project_rules_change(project=project, tie_rule=value)
    rule = gettext("Ties one grade apart now go to: %(rule)s.") % {"rule": TieRule(value).label}
    return _settled_again(rule, change)


def _kappa_weights_store(project: Project, value: str) -> str:
    change = project_rules_change(project=project, kappa_weights=value)
    measure = KappaWeights(value).label
    return _settled_again(
        gettext("The flag rule now reads: %(measure)s.") % {"measure": measure}, change
    )


def _escalation_store(project: Project, on: bool) -> str:
    change = project_escalation_set(project=project, escalate=on)
    if change.escalate:
        return ngettext(
            "Flagged queries now go to one more annotator first. %(count)s flagged query went "
            "to one more annotator now.",
            "Flagged queries now go to one more annotator first. %(count)s flagged queries went "
            "to one more annotator now.",
            change.escalated,
        ) % {"count": change.escalated}
    return ngettext(
        "Flagged queries now go straight to a lead. %(count)s query waiting for one more "
        "annotator went to a lead.",
        "Flagged queries now go straight to a lead. %(count)s queries waiting for one more "
        "annotator went to a lead.",
        change.withdrawn,
    ) % {"count": change.withdrawn}


def _annotator_answers_store(project: Project, on: bool) -> str:
    project_annotators_write_answers_set(project=project, on=on)
    if on:
        return gettext("Annotators now write reference answers and key facts after grading.")
    return gettext("Only a lead sets answer keys now; the annotators' drafts are kept.")


def _stopping_store(project: Project, on: bool) -> str:
    project_stopping_set(project=project, on=on)
    if on:
        return gettext("Annotators may now finish a query once the estimate allows it.")
    return gettext("Annotators now grade every candidate; earlier stops are kept.")


tie_rule_set = _setting_view(TieRuleForm, _tie_rule_store)
kappa_weights_set = _setting_view(KappaWeightsForm, _kappa_weights_store)
escalation_set = _setting_view(EscalationForm, _escalation_store)
annotator_answers_set = _setting_view(AnnotatorAnswersForm, _annotator_answers_store)
stopping_set = _setting_view(StoppingForm, _stopping_store)


P = "projects/<int:project_id>/"
urlpatterns = [
    path(f"{P}pools/", pools, name="pools"),
    path(f"{P}review/", review_queue, name="review-queue"),
    path(f"{P}review/approve/", approve_bulk, name="review-approve-bulk"),
    path(f"{P}review/<int:query_id>/", adjudicate, name="adjudicate"),
    path(f"{P}review/<int:query_id>/approve/", approve, name="review-approve"),
    path(f"{P}review/<int:query_id>/answer-key/", answer_key_merge, name="answer-key-merge"),
    path(f"{P}dashboard/", dashboard, name="dashboard"),
    path(f"{P}dashboard/tie-rule/", tie_rule_set, name="tie-rule-set"),
    path(f"{P}dashboard/escalation/", escalation_set, name="escalation-set"),
    path(f"{P}dashboard/kappa-weights/", kappa_weights_set, name="kappa-weights-set"),
    path(f"{P}dashboard/answers/", annotator_answers_set, name="annotator-answers-set"),
    path(f"{P}dashboard/stopping/", stopping_set, name="stopping-set"),
]
