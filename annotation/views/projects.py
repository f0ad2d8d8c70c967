from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.translation import gettext, gettext_lazy, ngettext
from django.views.decorators.http import require_POST

from annotation.models import Membership, Role, Tokenizer
from annotation.permissions import Action, project_access, role_allows
from annotation.selectors.overview import project_overview
from annotation.selectors.projects import memberships_of
from annotation.services.projects import membership_remove, membership_set, project_tokenizer_set
from annotation.views.pages import page_context
from annotation.views.panels import Place, panels_at
from sitewide.i18n import localize


@login_required
def project_list(request: HttpRequest) -> HttpResponse:
    return render(
        request, "annotation/project_list.html", {"memberships": memberships_of(request.user)}
    )


@login_required
def project_home(request: HttpRequest, project_id: int) -> HttpResponse:
    project, membership = project_access(
        user=request.user, project_id=project_id, action=Action.VIEW
    )
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
    project, membership = project_access(
        user=request.user, project_id=project_id, action=Action.LEAD
    )
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
        {
            "project": project,
            "membership": membership,
            "form": form,
            "tokenizer_form": TokenizerForm(initial={"tokenizer": project.tokenizer}),
            "members": members,
            "can_lead": True,
        },
    )


@login_required
@require_POST
def project_member_remove(request: HttpRequest, project_id: int, username: str) -> HttpResponse:
    """A lead takes someone out of the project (their last project's removal revokes their API
    tokens)."""
    project, _ = project_access(user=request.user, project_id=project_id, action=Action.LEAD)
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
    project, _ = project_access(user=request.user, project_id=project_id, action=Action.LEAD)
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


urlpatterns = [
    path("", project_list, name="project-list"),
    path("projects/<int:project_id>/", project_home, name="project-home"),
    path("projects/<int:project_id>/members/", project_members, name="project-members"),
    path("projects/<int:project_id>/tokenizer/", project_tokenizer, name="project-tokenizer"),
    path(
        "projects/<int:project_id>/members/<str:username>/remove/",
        project_member_remove,
        name="project-member-remove",
    ),
]
