from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.translation import gettext, gettext_lazy, ngettext
from django.views.decorators.http import require_POST

from annotation.models import Membership, Role, Tokenizer
from annotation.permissions import Action, may_create_projects, request_access, role_allows
from annotation.selectors.overview import project_overview
from annotation.selectors.projects import memberships_of
from annotation.services.projects import (
    DETECT_LANGUAGE,
    membership_remove,
    membership_set,
    project_archive,
    project_create,
    project_rename,
    project_restore,
    project_tokenizer_set,
)
from annotation.views.pages import page_context
from annotation.views.panels import Place, panels_at
from sitewide.i18n import localize


@login_required
def project_list(request: HttpRequest) -> HttpResponse:
    """The caller's projects in use; `?archived=1` lists the archived ones (leads restore)."""
    archived = request.GET.get("archived") == "1"
    return render(
        request,
        "annotation/project_list.html",
        {
            "memberships": memberships_of(request.user, archived=archived),
            "archived": archived,
            "archived_count": memberships_of(request.user, archived=True).count(),
            "may_create": may_create_projects(request.user),
        },
    )


LANGUAGE_CHOICES = [
    (DETECT_LANGUAGE, gettext_lazy("Detect it from the first import")),
    *Tokenizer.choices,
]


def _usernames(text: str) -> list[str]:
    return [name for name in text.replace(",", " ").replace("，", " ").split() if name]


class ProjectCreateForm(forms.Form):
    name = forms.CharField(max_length=120, label=gettext_lazy("Name"))
    description = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2}), label=gettext_lazy("Description")
    )
    tokenizer = forms.ChoiceField(
        choices=LANGUAGE_CHOICES,
        initial=DETECT_LANGUAGE,
        label=gettext_lazy("Language of the texts"),
        help_text=gettext_lazy(
            "How queries and chunks are cut into words; a lead can change it later."
        ),
    )
    leads = forms.CharField(
        required=False,
        label=gettext_lazy("Other leads"),
        help_text=gettext_lazy("User names, separated by spaces or commas. You are a lead."),
    )
    annotators = forms.CharField(required=False, label=gettext_lazy("Annotators"))
    viewers = forms.CharField(required=False, label=gettext_lazy("Viewers"))

    def members(self) -> list[tuple[str, str]]:
        data = self.cleaned_data
        return [
            (username, role)
            for role, field in (
                (Role.VIEWER, "viewers"),
                (Role.ANNOTATOR, "annotators"),
                (Role.LEAD, "leads"),
            )
            for username in _usernames(data[field])
        ]  # a later role wins: lead over annotator over viewer


@login_required
def project_new(request: HttpRequest) -> HttpResponse:
    """Site staff create a project; they are its first lead (docs/projects.md)."""
    if not may_create_projects(request.user):
        raise PermissionDenied(
            gettext("Only site staff may create projects: ask an administrator.")
        )
    form = ProjectCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            project = project_create(
                by=request.user,
                name=data["name"],
                description=data["description"],
                tokenizer=data["tokenizer"],
                members=form.members(),
            )
        except ValueError as error:
            form.add_error(None, localize(error))
        else:
            messages.success(
                request,
                gettext("Project %(name)s created; you are its lead.") % {"name": project.name},
            )
            return redirect("project-home", project_id=project.pk)
    return render(
        request,
        "annotation/project_new.html",
        {"form": form},
        status=400 if form.is_bound and form.errors else 200,
    )


class ProjectRenameForm(forms.Form):
    name = forms.CharField(max_length=120, label=gettext_lazy("Name"))
    description = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 2}), label=gettext_lazy("Description")
    )


@login_required
@require_POST
def project_rename_view(request: HttpRequest, project_id: int) -> HttpResponse:
    project, _ = request_access(request, project_id, Action.LEAD)
    form = ProjectRenameForm(request.POST)
    if form.is_valid():
        try:
            project_rename(project=project, **form.cleaned_data)
        except ValueError as error:
            messages.error(request, gettext("%(error)s.") % {"error": localize(error)})
        else:
            messages.success(
                request, gettext("The project is now %(name)s.") % {"name": project.name}
            )
    else:
        messages.error(request, gettext("A project needs a name of at most 120 characters."))
    return redirect("project-members", project_id=project_id)


@login_required
@require_POST
def project_archive_view(request: HttpRequest, project_id: int, action: str) -> HttpResponse:
    """A lead archives the project or restores it."""
    project, _ = request_access(request, project_id, Action.LEAD)
    if action == "archive":
        project_archive(project=project, by=request.user)
        messages.success(
            request,
            gettext(
                "%(name)s is archived: it left the project lists, and everything in it is kept."
                " Restore it from the archived projects."
            )
            % {"name": project.name},
        )
        return redirect("project-list")
    project_restore(project=project)
    messages.success(request, gettext("%(name)s is restored.") % {"name": project.name})
    return redirect("project-home", project_id=project_id)


@login_required
def project_home(request: HttpRequest, project_id: int) -> HttpResponse:
    project, membership = request_access(request, project_id, Action.VIEW)
    can_oversee = role_allows(membership.role, Action.OVERSEE)
    context = page_context(
        project,
        membership,
        can_oversee=can_oversee,
        members=project.memberships.select_related("user").order_by("role", "user__username"),
        overview=project_overview(project=project, user=request.user, with_review=can_oversee),
        # the evaluation app's runs and drift alerts (annotation/views/panels.py)
        top_panels=panels_at(Place.PROJECT_TOP, project=project, membership=membership),
        card_panels=panels_at(Place.PROJECT_CARDS, project=project, membership=membership),
    )
    return render(request, "annotation/project_home.html", context)


class MembershipForm(forms.Form):
    username = forms.CharField(max_length=150, label=gettext_lazy("Username"))
    role = forms.ChoiceField(choices=Role.choices, label=gettext_lazy("Role"))


class TokenizerForm(forms.Form):
    tokenizer = forms.ChoiceField(choices=Tokenizer.choices, label=gettext_lazy("Cut texts into"))


@login_required
def project_members(request: HttpRequest, project_id: int) -> HttpResponse:
    """Leads add members or change their role."""
    project, membership = request_access(request, project_id, Action.LEAD)
    form = MembershipForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            membership_set(project=project, **form.cleaned_data)
        except ValueError as error:
            form.add_error("username", localize(error))
        else:
            username, role = form.cleaned_data["username"], form.cleaned_data["role"]
            now = {
                Role.LEAD: gettext("%(username)s is now a lead."),
                Role.ANNOTATOR: gettext("%(username)s is now an annotator."),
                Role.VIEWER: gettext("%(username)s is now a viewer."),
            }[role]
            messages.success(request, now % {"username": username})
            return redirect("project-members", project_id=project.pk)
    members = project.memberships.select_related("user").order_by("role", "user__username")
    return render(
        request,
        "annotation/project_members.html",
        page_context(
            project,
            membership,
            form=form,
            tokenizer_form=TokenizerForm(initial={"tokenizer": project.tokenizer}),
            rename_form=ProjectRenameForm(
                initial={"name": project.name, "description": project.description}
            ),
            members=members,
        ),
    )


@login_required
@require_POST
def project_member_remove(request: HttpRequest, project_id: int, username: str) -> HttpResponse:
    """A lead takes someone out of the project (their last project's removal revokes their API
    tokens)."""
    project, _ = request_access(request, project_id, Action.LEAD)
    try:
        revoked = membership_remove(project=project, username=username)
    except Membership.DoesNotExist:
        raise Http404(gettext("No such member")) from None
    except ValueError as error:
        messages.error(request, gettext("%(error)s.") % {"error": error})
    else:
        if revoked:
            gone = ngettext(
                "%(username)s is no longer a member and %(count)s API token revoked.",
                "%(username)s is no longer a member and %(count)s API tokens revoked.",
                revoked,
            )
        else:
            gone = gettext("%(username)s is no longer a member.")
        messages.success(request, gone % {"username": username, "count": revoked})
    return redirect("project-members", project_id=project.pk)


@login_required
@require_POST
def project_tokenizer(request: HttpRequest, project_id: int) -> HttpResponse:
    """A lead chooses the project's tokenizer (on the members page, the project's settings)."""
    project, _ = request_access(request, project_id, Action.LEAD)
    form = TokenizerForm(request.POST)
    if form.is_valid():
        project_tokenizer_set(project=project, tokenizer=form.cleaned_data["tokenizer"])
        label = Tokenizer(project.tokenizer).label
        messages.success(
            request,
            gettext(
                "Texts are now cut into: %(label)s. Pool again and run again for the built-in"
                " retrievers to use it."
            )
            % {"label": label},
        )
    else:
        messages.error(request, gettext("Choose one of the tokenizers listed."))
    return redirect("project-members", project_id=project.pk)


P = "projects/<int:project_id>/"
urlpatterns = [
    path("", project_list, name="project-list"),
    path("projects/new/", project_new, name="project-new"),
    path(f"{P}rename/", project_rename_view, name="project-rename"),
    path(f"{P}archive/", project_archive_view, {"action": "archive"}, name="project-archive"),
    path(f"{P}restore/", project_archive_view, {"action": "restore"}, name="project-restore"),
    path(P, project_home, name="project-home"),
    path(f"{P}members/", project_members, name="project-members"),
    path(f"{P}tokenizer/", project_tokenizer, name="project-tokenizer"),
    path(f"{P}members/<str:username>/remove/", project_member_remove, name="project-member-remove"),
]
