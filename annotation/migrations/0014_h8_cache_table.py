"""The database cache's table (goldsmith_cache) when no Redis is configured, so that `migrate`
alone readies a deployment: sign-in and API throttling count in the cache."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    # Creates the table of every database cache in CACHES that lacks one; nothing with Redis.
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("annotation", "0013_h7_unique_query_text_on_a_hash")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
