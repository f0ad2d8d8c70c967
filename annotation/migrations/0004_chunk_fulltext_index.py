"""Full-text index of chunk text on PostgreSQL (SQLite searches with a simple fallback).

The expression is exactly what `SearchVector("text", config="english")` generates, so the
corpus search of `annotation.selectors.corpus` uses it.
"""

from django.db import migrations

INDEX = "chunk_text_fts"


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {INDEX} ON annotation_chunk "
            "USING gin (to_tsvector('english'::regconfig, COALESCE(\"text\", '')))"
        )


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [("annotation", "0003_corpus_querylogs_sampling")]

    operations = [migrations.RunPython(create, drop)]
