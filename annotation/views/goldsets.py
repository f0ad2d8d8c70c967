"""Golden-set pages: the versions of a project (and the freeze form for leads), one version with
its counts, agreement and exports, and the diff of two versions."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import path, reverse
from django.utils.translation import gettext, gettext_lazy, ngettext

from annotation.api.goldsets import streamed_export
from annotation.models import GoldenItem, GoldenSetVersion, Project, Query
from annotation.models.judging import Provenance, ReviewState
from annotation.permissions import Action, request_access, role_allows
from annotation.selectors.goldsets import (
    EXPORT_FORMATS,
    golden_queries,
    golden_set_version_get,
    golden_set_versions,
    version_diff,
)
from annotation.selectors.refresh import open_refresh, refresh_for_diff, refresh_progress
from annotation.services.goldsets import FreezeIdentical, SplitSpec, golden_set_version_freeze
from annotation.services.refresh import golden_set_refresh_freeze, golden_set_refresh_open
from annotation.views.pages import page_context
from annotation.views.words import sampling_word
from goldsmith.judging_order import RECALL_TARGET
from sitewide.i18n import localize

PAGE_SIZE = 50
EXPORT_LABELS = {
    "jsonl": gettext_lazy("Native JSONL"),
    "trec": "TREC qrels",
    "topics": gettext_lazy("TREC topics (TSV)"),
    "beir": "BEIR zip",
    "csv": gettext_lazy("CSV (judgments; no reference answers or key facts)"),
    "ragas-jsonl": gettext_lazy("RAGAS JSONL (loads with RAGAS's own loaders)"),
}


def _version_or_404(project: Project, label: str) -> GoldenSetVersion:
    try:
        return golden_set_version_get(project=project, label=label)
    except GoldenSetVersion.DoesNotExist:
        raise Http404(gettext("No such version")) from None


class FreezeForm(forms.Form):
    label = forms.CharField(
        max_length=40,
        required=False,
        label=gettext_lazy("Version name"),
        help_text=gettext_lazy("Leave empty for the next vN."),
    )
    note = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), required=False, label=gettext_lazy("Note")
    )
    categories = forms.MultipleChoiceField(
        label=gettext_lazy("Categories"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("None ticked: all."),
    )
    strata = forms.MultipleChoiceField(
        label=gettext_lazy("Strata"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=gettext_lazy("None ticked: all."),
    )
    split_seed = forms.IntegerField(
        required=False,
        label=gettext_lazy("Dev/test split seed"),
        help_text=gettext_lazy("Optional. Later versions keep the split of their parent."),
    )
    test_share = forms.FloatField(
        required=False,
        min_value=0.01,
        max_value=0.99,
        initial=0.5,
        label=gettext_lazy("Test share"),
    )

    def __init__(self, *args: Any, project: Project, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        approved = Query.objects.filter(project=project, review__state=ReviewState.APPROVED)
        for name, field_name in (("category", "categories"), ("stratum", "strata")):
            values = sorted(set(approved.exclude(**{name: ""}).values_list(name, flat=True)))
            if values:
                labels = [sampling_word(v) if name == "stratum" else v for v in values]
                self.fields[field_name].choices = list(zip(values, labels, strict=True))  # type: ignore[attr-defined]  # a ChoiceField's choices, which Field does not declare
            else:
                del self.fields[field_name]  # nothing to filter by


@login_required
def goldset_list(request: HttpRequest, project_id: int) -> HttpResponse:
    """Every version with its hash; leads freeze a new one here."""
    project, membership = request_access(request, project_id, Action.VIEW)
    can_lead = role_allows(membership.role, Action.LEAD)
    form = FreezeForm(request.POST or None, project=project) if can_lead else None
    if request.method == "POST":
        if not can_lead:
            request_access(request, project_id, Action.LEAD)
        assert form is not None
        if form.is_valid():
            data = form.cleaned_data
            try:
                version = golden_set_version_freeze(
                    project=project,
                    by=request.user,
                    note=data["note"],
                    label=data["label"] or None,
                    categories=data.get("categories"),
                    strata=data.get("strata"),
                    split=SplitSpec.given(data["split_seed"], data["test_share"]),
                )
            except FreezeIdentical as same:
                messages.info(request, str(same))
                return redirect("goldset-detail", project_id=project.pk, label=same.latest.label)
            except ValueError as error:
                form.add_error(None, localize(error))
            else:
                messages.success(
                    request,
                    gettext(
                        "Froze %(label)s: %(query_count)s queries, %(judgment_count)s "
                        "judgments, %(content_hash)s."
                    )
                    % {
                        "label": version.label,
                        "query_count": version.query_count,
                        "judgment_count": version.judgment_count,
                        "content_hash": version.content_hash,
                    },
                )
                return redirect("goldset-detail", project_id=project.pk, label=version.label)
    # How many approved queries await a freeze is the review's progress: not for annotators.
    approved = (
        Query.objects.filter(project=project, review__state=ReviewState.APPROVED).count()
        if role_allows(membership.role, Action.OVERSEE)
        else None
    )
    versions = list(golden_set_versions(project=project))
    return render(
        request,
        "annotation/goldset_list.html",
        page_context(project, membership, versions=versions, form=form, approved=approved),
    )


def stopping_words(stopped: dict[str, Any] | None) -> dict[str, Any] | None:
    """What a version's count of stops says, in words (None when nothing was stopped): the
    expected recall of the judging with its basis, and what the stops rested on, so that a
    figure below the stop's 95 % is read for what it is (the mean the stop estimates expect
    under a rule that stops at 70 % confidence), not as a broken promise."""
    if not stopped or not stopped.get("candidates"):
        return None
    rules = stopped.get("rules")
    if rules is None:
        rested = [gettext("what the stops rested on was not recorded in this version")]
    else:
        rested = []
        for rule in rules:
            n = rule["stops"]
            if rule["confidence"] is None:
                rested.append(
                    ngettext(
                        "%(n)d stop whose confidence was not recorded",
                        "%(n)d stops whose confidence was not recorded",
                        n,
                    )
                    % {"n": n}
                )
                continue
            words = {
                "n": n,
                "confidence": f"{rule['confidence']:.0%}",
                "target": f"{rule['target']:.0%}",
                "checks": rule["checks"] or 0,
            }
            if rule["checks"]:
                rested.append(
                    ngettext(
                        "%(n)d stop at %(confidence)s confidence of %(target)s found, with "
                        "%(checks)d random checks",
                        "%(n)d stops at %(confidence)s confidence of %(target)s found, with "
                        "%(checks)d random checks",
                        n,
                    )
                    % words
                )
            else:
                rested.append(
                    ngettext(
                        "%(n)d stop at %(confidence)s confidence of %(target)s found, on the "
                        "model alone",
                        "%(n)d stops at %(confidence)s confidence of %(target)s found, on the "
                        "model alone",
                        n,
                    )
                    % words
                )
    basis = gettext(
        "Relevant final grades ÷ (those + the relevant chunks the stop estimates expected among "
        "the chunks left): the recall the model expects on average, not a guarantee. A stop is "
        "taken when the model puts at least the confidence named above on %(target)s of the "
        "query's relevant candidates being found, not when it is sure, so this expected figure "
        "can be below %(target)s."
    ) % {"target": f"{(rules[0]['target'] if rules else RECALL_TARGET):.0%}"}
    return {
        "recall": stopped.get("estimated_recall"),
        "queries": stopped.get("queries", 0),
        "rested_on": gettext("; ").join(rested),
        "basis": basis,
    }


@login_required
def goldset_detail(request: HttpRequest, project_id: int, label: str) -> HttpResponse:
    project, membership = request_access(request, project_id, Action.VIEW)
    version = _version_or_404(project, label)
    try:
        page = max(int(request.GET.get("page", "1")), 1)
    except ValueError:
        page = 1
    pages = max((version.query_count + PAGE_SIZE - 1) // PAGE_SIZE, 1)
    page = min(page, pages)
    start = (page - 1) * PAGE_SIZE
    queries = list(golden_queries(version, start=start, stop=start + PAGE_SIZE))
    others = [
        label
        for label in golden_set_versions(project=project).values_list("label", flat=True)
        if label != version.label
    ]
    counts = version.counts
    refresh = open_refresh(version=version) if role_allows(membership.role, Action.LEAD) else None
    return render(
        request,
        "annotation/goldset_detail.html",
        page_context(
            project,
            membership,
            refresh=refresh,
            refresh_progress=refresh_progress(refresh) if refresh else None,
            version=version,
            queries=queries,
            page=page,
            pages=pages,
            exports=[(f, EXPORT_LABELS[f]) for f in EXPORT_FORMATS],
            others=others,
            grades=counts.get("grades", {}),
            # stored values as the page names them ("tie_lower" → "Tie → lower")
            provenance={
                Provenance(name).label if name in Provenance.values else name: n
                for name, n in counts.get("provenance", {}).items()
            },
            splits=counts.get("splits", {}),
            agreement=version.agreement_summary,
            stopping=stopping_words(counts.get("stopped")),
        ),
    )


@login_required
def goldset_export(
    request: HttpRequest, project_id: int, label: str, fmt: str
) -> StreamingHttpResponse:
    project, _ = request_access(request, project_id, Action.VIEW)
    version = _version_or_404(project, label)
    if fmt not in EXPORT_FORMATS:
        raise Http404(gettext("No such format"))
    return streamed_export(version, fmt)


@login_required
def goldset_diff(request: HttpRequest, project_id: int) -> HttpResponse:
    project, membership = request_access(request, project_id, Action.VIEW)
    versions = list(golden_set_versions(project=project))
    a_label, b_label = request.GET.get("a"), request.GET.get("b")
    if not (a_label and b_label) and versions:
        # Default: the latest version against its parent.
        latest = versions[0]
        b_label = b_label or latest.label
        a_label = a_label or (latest.parent.label if latest.parent else latest.label)
    diff = a = b = None
    if a_label and b_label:
        a, b = _version_or_404(project, a_label), _version_or_404(project, b_label)
        diff = version_diff(a, b)
    texts: dict[str, str] = {}
    rows: dict[str, list[tuple[object, ...]]] = {}
    limit = 200
    if diff is not None and a is not None and b is not None:
        wanted = set(diff.added_queries[:limit]) | set(diff.removed_queries[:limit])
        wanted |= {c.query_id for c in diff.changed_grades[:limit]}
        wanted |= set(diff.changed_text[:limit])
        wanted |= set(diff.changed_answers[:limit])
        keys: dict[tuple[int, str], dict[str, object]] = {}
        for v in (a, b):
            for item in GoldenItem.objects.filter(
                version=v, query_id__in=diff.changed_answers[:limit]
            ).values("query_id", "reference_answer", "answer_type", "choices", "reference_facts"):
                keys[(v.pk, str(item["query_id"]))] = item
        for v in (a, b):
            texts.update(
                GoldenItem.objects.filter(version=v, query_id__in=wanted).values_list(
                    "query_id", "text"
                )
            )
        rows = {
            "added": [(q, texts.get(q, "")) for q in diff.added_queries[:limit]],
            "removed": [(q, texts.get(q, "")) for q in diff.removed_queries[:limit]],
            "text": [(q, texts.get(q, "")) for q in diff.changed_text[:limit]],
            "answers": [
                (q, texts.get(q, ""), keys.get((a.pk, q)), keys.get((b.pk, q)))
                for q in diff.changed_answers[:limit]
            ],
            "grades": [
                (c.query_id, texts.get(c.query_id, ""), c.chunk_id, c.old, c.new)
                for c in diff.changed_grades[:limit]
            ],
            "judgments_added": diff.added_judgments[:limit],
            "judgments_removed": diff.removed_judgments[:limit],
        }
    reasons: dict[str, list[dict[str, object]]] = {}
    refresh = refresh_for_diff(a=a, b=b) if a is not None and b is not None else None
    if refresh is not None:
        for reason in refresh.reasons:
            reasons.setdefault(str(reason["query_id"]), []).append(reason)
        wanted_texts = dict(
            GoldenItem.objects.filter(version=b, query_id__in=list(reasons)[:limit]).values_list(
                "query_id", "text"
            )
        )
        texts.update(wanted_texts)
    why = [(q, texts.get(q, ""), reasons[q]) for q in sorted(reasons)[:limit]]
    return render(
        request,
        "annotation/goldset_diff.html",
        page_context(
            project,
            membership,
            versions=versions,
            a=a,
            b=b,
            diff=diff,
            rows=rows,
            limit=limit,
            refresh=refresh,
            why=why,
        ),
    )


@login_required
def goldset_refresh(request: HttpRequest, project_id: int, label: str) -> HttpResponse:
    """A lead opens a refresh of the version on the current corpus (POST only)."""
    project, _ = request_access(request, project_id, Action.LEAD)
    version = _version_or_404(project, label)
    if request.method != "POST":
        return redirect("goldset-detail", project_id=project.pk, label=version.label)
    try:
        opened = golden_set_refresh_open(version=version, by=request.user)
    except ValueError as error:
        messages.error(request, localize(error))
        return redirect("goldset-detail", project_id=project.pk, label=version.label)
    c = opened.counts
    if opened.refresh is None:
        messages.success(
            request,
            gettext(
                "Identical to %(label)s: the current corpus holds every grade of it, nothing to "
                "refresh."
            )
            % {"label": version.label},
        )
    else:
        messages.success(
            request,
            gettext(
                "Opened a refresh of %(label)s: untouched carried %(untouched)s, touched "
                "%(touched)s, judgments asked %(asked)s."
            )
            % {"label": version.label, **c},
        )
    return redirect("goldset-detail", project_id=project.pk, label=version.label)


@login_required
def goldset_refresh_freeze(request: HttpRequest, project_id: int, label: str) -> HttpResponse:
    """A lead freezes the open refresh of the version into the next version (POST only)."""
    project, _ = request_access(request, project_id, Action.LEAD)
    version = _version_or_404(project, label)
    refresh = open_refresh(version=version)
    if request.method != "POST" or refresh is None:
        return redirect("goldset-detail", project_id=project.pk, label=version.label)
    try:
        done = golden_set_refresh_freeze(refresh=refresh, by=request.user)
    except ValueError as error:
        messages.error(request, localize(error))
        return redirect("goldset-detail", project_id=project.pk, label=version.label)
    if done.version is None:
        messages.success(
            request,
            gettext("Identical to %(label)s: nothing stored.") % {"label": done.identical_to},
        )
        return redirect("goldset-detail", project_id=project.pk, label=version.label)
    messages.success(
        request,
        gettext("Froze %(label)s, the refresh of %(base)s.")
        % {"label": done.version.label, "base": version.label},
    )
    return redirect(
        reverse("goldset-diff", args=[project.pk]) + f"?a={version.label}&b={done.version.label}"
    )


P = "projects/<int:project_id>/goldsets/"
urlpatterns = [
    path(P, goldset_list, name="goldset-list"),
    path(f"{P}diff/", goldset_diff, name="goldset-diff"),
    path(f"{P}<str:label>/", goldset_detail, name="goldset-detail"),
    path(f"{P}<str:label>/export/<str:fmt>/", goldset_export, name="goldset-export"),
    path(f"{P}<str:label>/refresh/", goldset_refresh, name="goldset-refresh"),
    path(f"{P}<str:label>/refresh/freeze/", goldset_refresh_freeze, name="goldset-refresh-freeze"),
]
