"""The full-text search vectors move out of the chunk table (PostgreSQL).

Before: a GIN index over ``to_tsvector('english', text)`` on ``annotation_chunk`` itself, kept
up to date inside every import's transaction (70 % of a 200,000-chunk import). After: a table
``annotation_chunksearch`` (chunk id, vector) with a GIN index, filled right after each import
by several sessions at once (``annotation.services.search``). The vectors of the chunks that
exist now are computed here. Also drops two indexes that other indexes already lead with.
"""

import django.contrib.postgres.search
import django.db.models.deletion
from django.db import migrations, models


def index_existing_chunks(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        "INSERT INTO annotation_chunksearch (chunk_id, vector)"
        " SELECT id, to_tsvector('english'::regconfig, text) FROM annotation_chunk"
    )
    schema_editor.execute(
        "CREATE INDEX annotation_chunksearch_vector ON annotation_chunksearch USING gin (vector)"
    )
    schema_editor.execute("DROP INDEX IF EXISTS chunk_text_fts")


def restore_chunk_index(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("DROP INDEX IF EXISTS annotation_chunksearch_vector")
    schema_editor.execute(
        "CREATE INDEX IF NOT EXISTS chunk_text_fts ON annotation_chunk "
        "USING gin (to_tsvector('english'::regconfig, COALESCE(\"text\", '')))"
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0008_goldset_fewer_indexes"),
    ]

    operations = [
        migrations.CreateModel(
            name="ChunkSearch",
            fields=[
                (
                    "chunk",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="search",
                        serialize=False,
                        to="annotation.chunk",
                    ),
                ),
                ("vector", django.contrib.postgres.search.SearchVectorField()),
            ],
        ),
        migrations.RunPython(index_existing_chunks, restore_chunk_index),
        migrations.CreateModel(
            name="SearchBacklog",
            fields=[
                (
                    "project",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="search_backlog",
                        serialize=False,
                        to="annotation.project",
                    ),
                ),
                ("since", models.DateTimeField()),
            ],
        ),
        migrations.AlterField(
            model_name="chunk",
            name="document",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="chunks",
                to="annotation.document",
            ),
        ),
        migrations.AlterField(
            model_name="chunk",
            name="project",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="chunks",
                to="annotation.project",
            ),
        ),
    ]
