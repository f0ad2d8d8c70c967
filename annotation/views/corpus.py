"""The corpus page: figures, search and corpus versions for every member; upload and imports
for leads. A replace is shown with its counts first (computed in the request: a dry run reads
the file without storing anything) and stored only when the lead confirms."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.translation import gettext, gettext_lazy

from annotation.models import CorpusImport, CorpusVersion
from annotation.permissions import Action, request_access
from annotation.selectors.corpus import (
    chunk_search,
    corpus_figures,
    corpus_imports,
    corpus_version_diff,
    corpus_version_live,
    corpus_versions,
)
from annotation.services.corpus import (
    changed_text_warning,
    corpus_import_create,
    corpus_preview_cancel,
    corpus_preview_confirm,
    corpus_preview_upload,
)
from annotation.services.imports import upload_accept
from annotation.views.pages import page_context
from goldsmith.intake.readers import ReadError
from sitewide.i18n import localize

DIFF_SHOWN = 500  # chunks listed on the diff page (the API and the command list every one)


class CorpusUploadForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("Corpus file"),
        help_text=gettext_lazy(
            "JSONL or CSV: chunks (id, doc_id, text, …) or whole "
            "documents (doc_id, title, text) that Goldsmith chunks."
        ),
    )
    chunk_size = forms.IntegerField(
        min_value=50, max_value=100_000, initial=1000, label=gettext_lazy("Chunk size (characters)")
    )
    overlap = forms.IntegerField(
        min_value=0, max_value=50_000, initial=100, label=gettext_lazy("Overlap (characters)")
    )
    mode = forms.ChoiceField(
        choices=[
            (
                "add",
                gettext_lazy(
                    "Add or update: new chunks are added, changed ones updated, nothing is retired"
                ),
            ),
            (
                "replace",
                gettext_lazy(
                    "Replace: this file is the whole corpus now; chunks it "
                    "lacks are retired (you see the counts first)"
                ),
            ),
        ],
        initial="add",
        required=False,  # a form posted without it (a script) adds, as the API does
        widget=forms.RadioSelect,
        label=gettext_lazy("What the file does"),
    )


@login_required
def corpus_home(request: HttpRequest, project_id: int) -> HttpResponse:
    action = Action.LEAD if request.method == "POST" else Action.VIEW
    project, membership = request_access(request, project_id, action)
    form = CorpusUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        given = {
            "project": project,
            "upload": data["file"],
            "created_by": request.user,
            "chunk_size": data["chunk_size"],
            "overlap": data["overlap"],
        }
        try:
            if data["mode"] == "replace":
                pending = corpus_preview_upload(**given)
                context = page_context(project, membership, pending=pending)
                return render(request, "annotation/corpus_preview.html", context)
            record = upload_accept(corpus_import_create, **given)
        except (ReadError, ValueError) as error:
            form.add_error("file", localize(error))
        else:
            return redirect("corpus-import", project_id=project.pk, import_id=record.pk)
    query = request.GET.get("q", "").strip()
    hits = chunk_search(project=project, text=query, limit=30) if query else []
    context = page_context(
        project,
        membership,
        figures=corpus_figures(project=project),
        form=form,
        query=query,
        hits=hits,
        imports=corpus_imports(project=project)[:20],
        versions=corpus_versions(project=project)[:50],
        live=corpus_version_live(project=project),
    )
    return render(request, "annotation/corpus.html", context)


@login_required
def corpus_preview_decide(request: HttpRequest, project_id: int) -> HttpResponse:
    """The second step of a replace: confirm (queue the import the preview showed) or cancel."""
    project, _membership = request_access(request, project_id, Action.LEAD)
    if request.method != "POST":
        return redirect("corpus", project_id=project.pk)
    key = request.POST.get("key", "")
    if request.POST.get("decision") != "confirm":
        corpus_preview_cancel(project=project, key=key, created_by=request.user)
        messages.info(request, gettext("Replace cancelled: nothing was stored."))
        return redirect("corpus", project_id=project.pk)
    try:
        record = corpus_preview_confirm(project=project, key=key, created_by=request.user)
    except ValueError as error:
        messages.error(request, localize(error))
        return redirect("corpus", project_id=project.pk)
    return redirect("corpus-import", project_id=project.pk, import_id=record.pk)


@login_required
def corpus_version_diff_page(request: HttpRequest, project_id: int) -> HttpResponse:
    """The chunks added, changed and retired between two corpus versions (?a=3&b=5)."""
    project, membership = request_access(request, project_id, Action.VIEW)
    try:
        a, b = int(request.GET.get("a", "")), int(request.GET.get("b", ""))
        diff = corpus_version_diff(project=project, old=a, new=b)
    except (ValueError, CorpusVersion.DoesNotExist):
        raise Http404(gettext("no such corpus version in this project")) from None
    context = page_context(
        project,
        membership,
        diff=diff,
        shown=diff.chunks[:DIFF_SHOWN],
        more=max(0, len(diff.chunks) - DIFF_SHOWN),
    )
    return render(request, "annotation/corpus_diff.html", context)


@login_required
def corpus_import_page(request: HttpRequest, project_id: int, import_id: int) -> HttpResponse:
    project, membership = request_access(request, project_id, Action.LEAD)
    record = get_object_or_404(CorpusImport, pk=import_id, project=project)
    context = page_context(
        project, membership, record=record, changed_warning=changed_text_warning(record)
    )
    return render(request, "annotation/corpus_import.html", context)


urlpatterns = [
    path("projects/<int:project_id>/corpus/", corpus_home, name="corpus"),
    path("projects/<int:project_id>/corpus/preview/", corpus_preview_decide, name="corpus-preview"),
    path(
        "projects/<int:project_id>/corpus/versions/diff/",
        corpus_version_diff_page,
        name="corpus-version-diff",
    ),
    path(
        "projects/<int:project_id>/corpus/imports/<int:import_id>/",
        corpus_import_page,
        name="corpus-import",
    ),
]
