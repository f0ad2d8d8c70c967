"""The corpus page: figures and search for every member; upload and imports for leads."""

from __future__ import annotations

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.translation import gettext_lazy

from annotation.i18n import localize
from annotation.models import CorpusImport
from annotation.permissions import Action, project_access, role_allows
from annotation.selectors.corpus import chunk_search, corpus_figures, corpus_imports
from annotation.services.corpus import changed_text_warning, corpus_upload_accept
from goldsmith.intake.readers import ReadError


class CorpusUploadForm(forms.Form):
    file = forms.FileField(
        help_text=gettext_lazy(
            "JSONL or CSV: chunks (id, doc_id, text, …) or whole "
            "documents (doc_id, title, text) that Goldsmith chunks."
        )
    )
    chunk_size = forms.IntegerField(
        min_value=50, max_value=100_000, initial=1000, label=gettext_lazy("Chunk size (characters)")
    )
    overlap = forms.IntegerField(
        min_value=0, max_value=50_000, initial=100, label=gettext_lazy("Overlap (characters)")
    )


def page_context(project, membership, **extra: object) -> dict[str, object]:
    return {
        "project": project,
        "membership": membership,
        "can_lead": role_allows(membership.role, Action.LEAD),
        "can_annotate": role_allows(membership.role, Action.ANNOTATE),
        **extra,
    }


@login_required
def corpus_home(request: HttpRequest, project_id: int) -> HttpResponse:
    action = Action.LEAD if request.method == "POST" else Action.VIEW
    project, membership = project_access(user=request.user, project_id=project_id, action=action)
    form = CorpusUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            record = corpus_upload_accept(
                project=project,
                upload=form.cleaned_data["file"],
                created_by=request.user,
                chunk_size=form.cleaned_data["chunk_size"],
                overlap=form.cleaned_data["overlap"],
            )
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
    )
    return render(request, "annotation/corpus.html", context)


@login_required
def corpus_import_page(request: HttpRequest, project_id: int, import_id: int) -> HttpResponse:
    project, membership = project_access(
        user=request.user, project_id=project_id, action=Action.LEAD
    )
    record = get_object_or_404(CorpusImport, pk=import_id, project=project)
    context = page_context(
        project, membership, record=record, changed_warning=changed_text_warning(record)
    )
    return render(request, "annotation/corpus_import.html", context)


urlpatterns = [
    path("projects/<int:project_id>/corpus/", corpus_home, name="corpus"),
    path(
        "projects/<int:project_id>/corpus/imports/<int:import_id>/",
        corpus_import_page,
        name="corpus-import",
    ),
]
