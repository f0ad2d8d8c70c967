"""The frozen golden-set tables refuse TRUNCATE too.

0006's row triggers refuse UPDATE and DELETE, but TRUNCATE empties a table without touching its
rows one by one, so no row trigger sees it (nor a `TRUNCATE annotation_project CASCADE`, which
reaches the versions through their foreign key). A statement-level BEFORE TRUNCATE trigger on
each of the three tables raises with 0006's function (SQLSTATE 23001, IntegrityError).

Django's flush (`manage.py flush`) is a TRUNCATE of every table, so it is refused once a
version exists: drop the database to start over. The test suite empties the database after
each transactional test as a replica session (`session_replication_role = replica`, which only
a superuser may set), where no ordinary trigger fires: see tests/conftest.py.
"""

from django.db import migrations

TABLES = ["annotation_goldensetversion", "annotation_goldenitem", "annotation_goldenjudgment"]


def install(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(
            f"CREATE TRIGGER {table}_frozen_truncate BEFORE TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION goldsmith_refuse_frozen_change()"
        )


def uninstall(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_frozen_truncate ON {table}")


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0011_judged_text_and_changed_chunk_ids"),
    ]

    operations = [migrations.RunPython(install, uninstall)]
