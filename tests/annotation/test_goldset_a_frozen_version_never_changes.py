"""No way changes or deletes a frozen version or its rows, and its hash stays the same:
the ORM, querysets, the admin, the API, raw SQL on PostgreSQL, deleting what it came from."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.models import ProtectedError
from django.test import Client

from annotation.models import (
    Chunk,
    FrozenVersionError,
    GoldenItem,
    GoldenJudgment,
    GoldenSetVersion,
    Query,
)
from annotation.selectors.goldsets import golden_queries
from annotation.services.goldsets import golden_set_version_freeze
from goldsmith.formats.goldset import goldset_content_hash
from tests.annotation.goldset_factories import small_project


@pytest.fixture
def frozen(personas):
    project, _, _ = small_project(personas)
    version = golden_set_version_freeze(project=project, by=personas.alice, note="frozen")
    return version


def assert_untouched(version: GoldenSetVersion) -> None:
    fresh = GoldenSetVersion.objects.get(pk=version.pk)
    assert (fresh.label, fresh.note, fresh.content_hash) == ("v1", "frozen", version.content_hash)
    assert fresh.items.count() == version.query_count
    assert GoldenJudgment.objects.filter(item__version=fresh).count() == version.judgment_count
    assert goldset_content_hash(golden_queries(fresh)) == version.content_hash


def test_it_refuses_to_save_a_changed_version_item_or_judgment(frozen):
    frozen.note = "edited"
    with pytest.raises(FrozenVersionError, match="frozen"):
        frozen.save()
    item = GoldenItem.objects.filter(version=frozen).first()
    item.text = "edited"
    with pytest.raises(FrozenVersionError):
        item.save()
    judgment = GoldenJudgment.objects.filter(item__version=frozen).first()
    judgment.grade = 0 if judgment.grade else 2
    with pytest.raises(FrozenVersionError):
        judgment.save(update_fields=["grade"])
    assert_untouched(frozen)


def test_it_refuses_to_delete_a_version_item_or_judgment(frozen):
    with pytest.raises(FrozenVersionError):
        frozen.delete()
    with pytest.raises(FrozenVersionError):
        GoldenItem.objects.filter(version=frozen).first().delete()
    with pytest.raises(FrozenVersionError):
        GoldenJudgment.objects.filter(item__version=frozen).first().delete()
    assert_untouched(frozen)


@pytest.mark.parametrize("model", [GoldenSetVersion, GoldenItem, GoldenJudgment])
def test_querysets_refuse_update_bulk_update_and_delete(frozen, model):
    with pytest.raises(FrozenVersionError):
        model.objects.all().update(pk=1)
    with pytest.raises(FrozenVersionError):
        model.objects.bulk_update(list(model.objects.all()[:1]), ["pk"])
    with pytest.raises(FrozenVersionError):
        model.objects.all().delete()
    assert_untouched(frozen)


def test_related_managers_refuse_too(frozen):
    with pytest.raises(FrozenVersionError):
        frozen.items.update(text="x")
    with pytest.raises(FrozenVersionError):
        frozen.items.first().judgments.all().delete()
    assert_untouched(frozen)


def test_the_admin_is_read_only_and_refuses_posts(frozen):
    admin = get_user_model().objects.create_superuser("root", password="pw-for-admin-test")
    client = Client()
    client.force_login(admin)
    item = frozen.items.first()
    judgment = GoldenJudgment.objects.filter(item=item).first()
    for url in (
        f"/admin/annotation/goldensetversion/{frozen.pk}/change/",
        f"/admin/annotation/goldenitem/{item.pk}/change/",
        f"/admin/annotation/goldenjudgment/{judgment.pk}/change/",
    ):
        assert client.get(url).status_code == 200  # viewable
        response = client.post(url, {"label": "hacked", "note": "x", "text": "x", "grade": 0})
        assert response.status_code == 403
        deleted = client.post(url.replace("/change/", "/delete/"), {"post": "yes"})
        assert deleted.status_code == 403
    assert (
        client.post("/admin/annotation/goldensetversion/add/", {"label": "v9"}).status_code == 403
    )
    bulk = client.post(
        "/admin/annotation/goldensetversion/",
        {"action": "delete_selected", "_selected_action": [frozen.pk], "post": "yes"},
    )
    assert bulk.status_code in (200, 302)  # the action does not exist: nothing happens
    assert_untouched(frozen)


@pytest.mark.parametrize("method", ["patch", "put", "delete"])
def test_the_api_has_no_write_method_on_a_version(frozen, api_client_for, personas, method):
    client = api_client_for(personas.alice)
    base = f"/api/v1/projects/{frozen.project_id}/goldsets/v1/"
    for url in (base, f"{base}items/", f"{base}export/jsonl/"):
        response = getattr(client, method)(url, {"note": "x"}, format="json")
        assert response.status_code == 405, url
    assert_untouched(frozen)


def test_deleting_the_project_fails_loudly_and_keeps_the_version(frozen):
    with pytest.raises(ProtectedError, match="protected"):
        frozen.project.delete()
    admin = get_user_model().objects.create_superuser("root", password="pw-for-admin-test")
    client = Client()
    client.force_login(admin)
    page = client.post(f"/admin/annotation/project/{frozen.project_id}/delete/", {"post": "yes"})
    assert "Cannot delete project" in page.text and "<li>golden-set version</li>" in page.text
    assert_untouched(frozen)


def test_deleting_chunks_queries_and_the_freezer_leaves_the_version_whole(frozen, personas):
    Chunk.objects.filter(project=frozen.project).delete()
    Query.objects.filter(project=frozen.project).delete()
    get_user_model().objects.filter(pk=personas.alice.pk).delete()
    assert_untouched(frozen)
    assert GoldenSetVersion.objects.get(pk=frozen.pk).created_by == "alice"


POSTGRES_ONLY = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="database triggers are installed on PostgreSQL only (SQLite relies on the ORM guards)",
)


@POSTGRES_ONLY
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE annotation_goldensetversion SET note = 'raw'",
        "UPDATE annotation_goldenitem SET text = 'raw'",
        "UPDATE annotation_goldenjudgment SET grade = 0",
        "DELETE FROM annotation_goldenjudgment",
        "DELETE FROM annotation_goldenitem",
        "DELETE FROM annotation_goldensetversion",
    ],
)
def test_raw_sql_update_and_delete_are_rejected_by_the_database(frozen, sql):
    with (
        pytest.raises(IntegrityError, match="frozen"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    assert_untouched(frozen)
