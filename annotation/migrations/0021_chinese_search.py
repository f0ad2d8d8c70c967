"""The search index of a Chinese project: character bigrams on PostgreSQL, folded text on
SQLite (`annotation.services.search`).

Adds ``ChunkSearch.text`` (SQLite's index of a Chinese project). The English vectors that
Chinese projects hold until now find no Chinese word: they are dropped and the projects put in
the search backlog, which the periodic ``corpus_search_backlog`` task (or the next import)
indexes anew; until then their chunks are searched without the index.
"""

from django.db import migrations, models


def reindex_chinese_projects(apps, schema_editor):
    Project = apps.get_model("annotation", "Project")
    ChunkSearch = apps.get_model("annotation", "ChunkSearch")
    SearchBacklog = apps.get_model("annotation", "SearchBacklog")
    from django.utils import timezone

    chinese = list(Project.objects.exclude(tokenizer="default").values_list("pk", flat=True))
    if not chinese:
        return
    ChunkSearch.objects.filter(chunk__project_id__in=chinese).delete()
    if schema_editor.connection.vendor == "postgresql":
        for pk in chinese:
            SearchBacklog.objects.update_or_create(
                project_id=pk, defaults={"since": timezone.now()}
            )


class Migration(migrations.Migration):
    dependencies = [("annotation", "0020_user_language")]

    operations = [
        migrations.AddField(
            model_name="chunksearch",
            name="text",
            field=models.TextField(blank=True, db_default=""),
        ),
        migrations.RunPython(reindex_chinese_projects, migrations.RunPython.noop),
    ]
