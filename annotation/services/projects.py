from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractUser
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from annotation.models import (
    ApiToken,
    CorpusImport,
    ImportStatus,
    Membership,
    Project,
    QueryLog,
    Role,
    Tokenizer,
    TokenizerOrigin,
)
from annotation.models.projects import token_digest
from goldsmith.intake.tokenizers import detect_language
from sitewide.text_input import single_line

User = get_user_model()


@dataclass(frozen=True)
class ProjectSetup:
    project: Project
    created_users: list[str]
    changed: bool


@transaction.atomic
def project_setup(
    *,
    name: str,
    leads: Sequence[str],
    annotators: Sequence[str] = (),
    viewers: Sequence[str] = (),
    password: str | None = None,
) -> ProjectSetup:
    """Create the project and any missing users, and give each their role.

    Idempotent: running it again with the same arguments changes nothing. An existing user's
    password is never reset; an existing member keeps the highest role named.
    """
    name = single_line(name, gettext("a project's name"))
    if not name:
        raise ValueError(gettext("a project needs a name"))
    if not leads:
        raise ValueError(gettext("a project needs at least one lead"))
    project, changed = Project.objects.get_or_create(name=name.strip())
    created_users: list[str] = []
    wanted: dict[str, str] = {}
    # Later roles in this order do not override earlier ones: lead beats annotator beats viewer.
    for role, usernames in (
        (Role.LEAD, leads),
        (Role.ANNOTATOR, annotators),
        (Role.VIEWER, viewers),
    ):
        for username in usernames:
            wanted.setdefault(username, role)
    for username, role in wanted.items():
        user, user_created = User.objects.get_or_create(username=username)
        if user_created:
            if password:
                user.set_password(password)
            else:
                user.set_unusable_password()
            user.save()
            created_users.append(username)
        _membership, created = Membership.objects.update_or_create(
            project=project, user=user, defaults={"role": role}
        )
        changed = changed or created
    return ProjectSetup(project=project, created_users=created_users, changed=changed)


@transaction.atomic
def membership_set(*, project: Project, username: str, role: str) -> Membership:
    user = User.objects.filter(username=username).first()
    if user is None:
        raise ValueError(gettext("no user named %(username)r") % {"username": username})
    if role not in Role.values:
        raise ValueError(
            gettext("unknown role %(role)r; use one of %(names)s")
            % {"role": role, "names": ", ".join(Role.values)}
        )
    membership, _ = Membership.objects.update_or_create(
        project=project, user=user, defaults={"role": role}
    )
    return membership


@dataclass(frozen=True)
class IssuedToken:
    token: ApiToken
    key: str  # shown once, never stored


def api_token_create(
    *, user: AbstractUser, name: str, expires_at: datetime | None = None
) -> IssuedToken:
    """A new token for `user`, refused from `expires_at` on (never, when None).

    Only a person issues tokens (the API refuses a request authenticated by a token), so a
    token never outlives the revocation of another one it was made with."""
    name = single_line(name, gettext("a token's name"))
    if expires_at is not None and expires_at <= timezone.now():
        raise ValueError(gettext("the expiry must be in the future"))
    key = "gs_" + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        name=name or "token",
        prefix=key[: ApiToken.PREFIX_LENGTH],
        digest=token_digest(key),
        expires_at=expires_at,
    )
    return IssuedToken(token=token, key=key)


def api_token_revoke(*, user: AbstractUser, token_id: int) -> ApiToken:
    token = ApiToken.objects.get(pk=token_id, user=user)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def api_tokens_revoke_all(*, user: AbstractUser) -> int:
    """Revokes every token of `user` still in force; returns how many."""
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )


@transaction.atomic
def user_deactivate(*, user: AbstractUser) -> int:
    """The user can no longer sign in, and every token of theirs is revoked for good (a later
    reactivation does not bring them back). Returns how many tokens were revoked."""
    if user.is_active:
        user.is_active = False
        user.save(update_fields=["is_active"])
    return api_tokens_revoke_all(user=user)


@transaction.atomic
def membership_remove(*, project: Project, username: str) -> int:
    """Takes `username` out of `project`. Their tokens reach this project no more (every request
    checks the membership); when it was their last project, their tokens are revoked too, since
    nothing is left for them to open. A project keeps at least one lead.

    Returns how many tokens were revoked."""
    membership = (
        Membership.objects.select_for_update()
        .select_related("user")
        .filter(project=project, user__username=username)
        .first()
    )
    if membership is None:
        raise Membership.DoesNotExist(
            gettext("%(username)r is not a member of this project") % {"username": username}
        )
    if membership.role == Role.LEAD:
        leads = Membership.objects.select_for_update().filter(project=project, role=Role.LEAD)
        if len(leads.values_list("pk", flat=True)) <= 1:
            raise ValueError(
                gettext("%(username)s is the project's only lead; make someone else lead first")
                % {"username": username}
            )
    membership.delete()
    return api_tokens_revoke_without_membership(user=membership.user)


def api_tokens_revoke_without_membership(*, user: AbstractUser) -> int:
    """Revokes the tokens of a user who is a member of no project any more (after a removal,
    wherever it was made); returns how many."""
    if Membership.objects.filter(user=user).exists():
        return 0
    return api_tokens_revoke_all(user=user)


def project_tokenizer_set(*, project: Project, tokenizer: str) -> Project:
    """A lead chooses how the project's texts are cut into words; imports never change it
    afterwards. Pools already built and runs already made keep what they found with the old
    tokenizer: pool again, run again. When the change calls for another kind of search index
    (English words or Chinese characters), the index is made anew after the commit, by a
    worker; meanwhile the corpus is searched without it."""
    from annotation.services.search import search_index_reset
    from annotation.tasks import project_search_index_build

    if tokenizer not in Tokenizer.values:
        raise ValueError(
            gettext("unknown tokenizer %(tokenizer)r; use one of %(names)s")
            % {"tokenizer": tokenizer, "names": ", ".join(Tokenizer.values)}
        )
    kind = project.search_kind
    project.tokenizer = tokenizer
    project.tokenizer_origin = TokenizerOrigin.LEAD
    with transaction.atomic():
        project.save(update_fields=["tokenizer", "tokenizer_origin"])
        if project.search_kind != kind:
            search_index_reset(project_id=project.pk)
            project_search_index_build.delay_on_commit(project.pk)
    return project


def project_tokenizer_detect(*, project_id: int, texts: Iterable[str]) -> str:
    """On a project's first import (while it runs: no corpus import or query log of the
    project is done yet), while nobody has chosen its tokenizer: ``zh-bigrams`` when most of
    `texts` (a sample of the file's) are Chinese (`goldsmith.intake.tokenizers.detect_language`).
    Bigrams, not jieba's words: on the project's Chinese test collection both retrieve equally
    well (docs/benchmarks.md, "Chinese retrieval") and bigrams cut text 15 times faster.
    The decision is claimed with a conditional UPDATE, so that two first imports at once
    decide once and a lead's choice made meanwhile is never overwritten.

    Returns the tokenizer this import chose, "" when it chose none (the language is not
    Chinese, or this is not the project's first import, or the tokenizer was chosen)."""
    project = Project.objects.filter(pk=project_id).values("tokenizer_origin").first()
    if project is None or project["tokenizer_origin"] != TokenizerOrigin.DEFAULT:
        return ""
    done = ImportStatus.DONE
    if (
        CorpusImport.objects.filter(project_id=project_id, status=done).exists()
        or QueryLog.objects.filter(project_id=project_id, status=done).exists()
    ):
        return ""
    chosen = Tokenizer.ZH_BIGRAMS if detect_language(texts) == "zh" else Tokenizer.DEFAULT
    claimed = Project.objects.filter(
        pk=project_id, tokenizer_origin=TokenizerOrigin.DEFAULT, tokenizer=Tokenizer.DEFAULT
    ).update(tokenizer=chosen, tokenizer_origin=TokenizerOrigin.DETECTED)
    return chosen if claimed and chosen != Tokenizer.DEFAULT else ""


# --- projects made, renamed and archived without the shell ------------------------------------

# "detect": nobody chooses; the first import detects Chinese (project_tokenizer_detect).
DETECT_LANGUAGE = "detect"


def _project_name(name: str, *, other_than: Project | None = None) -> str:
    name = single_line(name, gettext("a project's name"))
    if not name:
        raise ValueError(gettext("a project needs a name"))
    if len(name) > Project._meta.get_field("name").max_length:
        raise ValueError(gettext("a project's name has at most 120 characters"))
    taken = Project.objects.filter(name=name)
    if other_than is not None:
        taken = taken.exclude(pk=other_than.pk)
    if taken.exists():
        raise ValueError(gettext("a project named %(name)r exists already") % {"name": name})
    return name


@transaction.atomic
def project_create(
    *,
    by: AbstractUser,
    name: str,
    description: str = "",
    tokenizer: str = DETECT_LANGUAGE,
    members: Sequence[tuple[str, str]] = (),
) -> Project:
    """A new project whose first lead is `by` (the caller, whom the view has checked may create
    projects: `annotation.permissions.may_create_projects`). `tokenizer` is one of `Tokenizer`
    (chosen, as a lead would) or "detect" (the first import decides). `members` are (username,
    role) of existing users; an unknown user or role refuses the whole project, naming it."""
    project = Project(name=_project_name(name), description=description.strip())
    if tokenizer != DETECT_LANGUAGE:
        if tokenizer not in Tokenizer.values:
            raise ValueError(
                gettext("unknown tokenizer %(tokenizer)r; use one of %(names)s")
                % {"tokenizer": tokenizer, "names": ", ".join([DETECT_LANGUAGE, *Tokenizer.values])}
            )
        project.tokenizer, project.tokenizer_origin = tokenizer, TokenizerOrigin.LEAD
    project.save()
    Membership.objects.create(project=project, user=by, role=Role.LEAD)
    for username, role in members:
        if username != by.username:  # the creator stays lead
            membership_set(project=project, username=username, role=role)
    return project


@transaction.atomic
def project_rename(
    *, project: Project, name: str | None, description: str | None = None
) -> Project:
    """A lead renames the project and/or rewrites its description (None: left as it is).
    Frozen versions keep the content hash they had: the name is not part of it."""
    fields = []
    if name is not None:
        project.name = _project_name(name, other_than=project)
        fields.append("name")
    if description is not None:
        project.description = description.strip()
        fields.append("description")
    if fields:
        project.save(update_fields=fields)
    return project


def project_archive(*, project: Project, by: AbstractUser) -> Project:
    """A lead archives the project: it leaves the project lists and the navigation; every
    row stays (corpus, logs, grades, versions, runs), its pages and API still answer its
    members, and a lead restores it. Archiving twice keeps the first date."""
    Project.objects.filter(pk=project.pk, archived_at__isnull=True).update(
        archived_at=timezone.now(), archived_by=by
    )
    project.refresh_from_db(fields=["archived_at", "archived_by"])
    return project


def project_restore(*, project: Project) -> Project:
    """Back in the lists, as it was."""
    Project.objects.filter(pk=project.pk).update(archived_at=None, archived_by=None)
    project.refresh_from_db(fields=["archived_at", "archived_by"])
    return project
