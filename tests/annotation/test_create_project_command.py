from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotation.models import Membership, Project


def run(*args: str) -> str:
    out = StringIO()
    call_command("create_project", *args, stdout=out)
    return out.getvalue()


ARGS = ["--name", "Helpdesk", "--lead", "lena", "--annotator", "ann", "--annotator", "andy",
        "--viewer", "vic", "--password", "pw-for-new-users"]  # fmt: skip


@pytest.mark.django_db
def test_it_creates_the_project_and_missing_users_with_their_roles():
    run(*ARGS)
    project = Project.objects.get(name="Helpdesk")
    roles = dict(Membership.objects.filter(project=project).values_list("user__username", "role"))
    assert roles == {"lena": "lead", "ann": "annotator", "andy": "annotator", "vic": "viewer"}
    assert get_user_model().objects.get(username="ann").check_password("pw-for-new-users")


@pytest.mark.django_db
def test_running_it_twice_changes_nothing():
    run(*ARGS)
    before = (Project.objects.count(), Membership.objects.count(), get_user_model().objects.count())
    out = run(*ARGS)
    after = (Project.objects.count(), Membership.objects.count(), get_user_model().objects.count())
    assert before == after
    assert out.startswith("Unchanged:")


@pytest.mark.django_db
def test_it_never_resets_an_existing_users_password():
    get_user_model().objects.create_user("lena", password="her-own-password")
    run(*ARGS)
    assert get_user_model().objects.get(username="lena").check_password("her-own-password")


@pytest.mark.django_db
def test_it_refuses_an_empty_name():
    with pytest.raises(CommandError, match="needs a name"):
        run("--name", " ", "--lead", "lena")
