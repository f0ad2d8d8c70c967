"""PostgreSQL triggers that make frozen golden-set rows immutable for any client, raw SQL too.

Each of the three tables gets a BEFORE UPDATE OR DELETE row trigger that raises
(SQLSTATE 23001 restrict_violation, which Django reports as IntegrityError). Other databases
(SQLite for a first run) rely on the model and queryset guards alone.
"""

from django.db import migrations

TABLES = ["annotation_goldensetversion", "annotation_goldenitem", "annotation_goldenjudgment"]

FUNCTION = """
CREATE OR REPLACE FUNCTION goldsmith_refuse_frozen_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'golden-set versions are frozen: % on % is not allowed', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation',
              HINT = 'freeze a new version instead';
END;
$$;
"""


def install(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(FUNCTION, params=None)  # no placeholders: RAISE uses %
    for table in TABLES:
        schema_editor.execute(
            f"CREATE TRIGGER {table}_frozen BEFORE UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION goldsmith_refuse_frozen_change()"
        )


def uninstall(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_frozen ON {table}")
    schema_editor.execute("DROP FUNCTION IF EXISTS goldsmith_refuse_frozen_change()")


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0005_goldsets"),
    ]

    operations = [migrations.RunPython(install, uninstall)]
