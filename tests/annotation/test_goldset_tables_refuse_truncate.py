"""TRUNCATE empties a table without touching its rows one by one, so the row triggers that
refuse UPDATE and DELETE on frozen golden-set rows never see it: a statement-level
BEFORE TRUNCATE trigger refuses it on the three tables, CASCADE from a table above them too.

The test suite still empties the database after each transactional test (Django's flush is a
TRUNCATE of every table): it flushes as a replica session, where no ordinary trigger fires,
and only a superuser may become one (tests/conftest.py)."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import IntegrityError, connection, transaction

from annotation.models import GoldenItem, GoldenJudgment, GoldenSetVersion
from annotation.services.goldsets import golden_set_version_freeze
from tests.annotation.goldset_factories import small_project

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="database triggers are installed on PostgreSQL only (SQLite has no TRUNCATE; "
        "the ORM guards cover it)",
    ),
    # Committed rows, as another client would find them (inside the test's own transaction
    # PostgreSQL refuses any TRUNCATE of a table with pending foreign-key checks first).
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def frozen(personas) -> GoldenSetVersion:
    project, _, _ = small_project(personas)
    return golden_set_version_freeze(project=project, by=personas.alice, note="frozen")


def rows() -> tuple[int, int, int]:
    return (
        GoldenSetVersion.objects.count(),
        GoldenItem.objects.count(),
        GoldenJudgment.objects.count(),
    )


@pytest.mark.parametrize(
    "sql",
    [
        "TRUNCATE annotation_goldenjudgment",
        "TRUNCATE annotation_goldenitem CASCADE",
        "TRUNCATE annotation_goldensetversion CASCADE",
        "TRUNCATE annotation_project CASCADE",  # reaches the versions through their foreign key
        "TRUNCATE annotation_goldenjudgment, annotation_goldenitem, annotation_goldensetversion "
        "CASCADE",
    ],
)
def test_a_raw_truncate_is_refused_by_the_database(frozen, sql):
    before = rows()
    assert before[2] > 0
    with (
        pytest.raises(IntegrityError, match="golden-set versions are frozen: TRUNCATE"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    assert rows() == before


def test_an_operators_flush_of_the_whole_database_is_refused_too(frozen):
    """`manage.py flush` runs the same TRUNCATE; outside the test suite it is not a replica
    session, so the frozen versions stay (drop the database to start over)."""
    sql = connection.ops.sql_flush(
        no_style(), connection.introspection.django_table_names(only_existing=True)
    )
    with (
        pytest.raises(IntegrityError, match="frozen"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        for statement in sql:
            cursor.execute(statement)
    assert rows()[0] == 1


def test_a_transactional_test_that_freezes_a_version_is_flushed_after_it(personas):
    """The test suite's own flush (after this test) must get past the trigger: the next test
    starts from an empty database."""
    project, _, _ = small_project(personas)
    golden_set_version_freeze(project=project, by=personas.alice, note="left for the flush")
    assert rows()[0] == 1
    call_command("flush", interactive=False, verbosity=0)  # what the teardown does
    assert rows() == (0, 0, 0)


def test_the_next_transactional_test_starts_empty(personas):
    small_project(personas)
    golden_set_version_freeze(project=personas.project, by=personas.alice)
    assert rows()[0] == 1  # flushed by the teardown, whose failure would fail this test
