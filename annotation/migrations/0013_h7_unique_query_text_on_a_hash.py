"""The unique keys of LogQuery and Query on an MD5 of the normalised text instead of the text:
a btree entry holds ~2,700 bytes, and a ~3,000-character query failed its whole import with
"internal error (ProgramLimitExceeded)". The new indexes are built before the old ones go, so
uniqueness holds throughout."""

from django.db import migrations, models
from django.db.models.functions import MD5


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0012_h9_goldset_truncate_trigger"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="logquery",
            constraint=models.UniqueConstraint(
                models.F("log"), MD5("normalized"), name="logquery_unique_normalized_md5"
            ),
        ),
        migrations.AddConstraint(
            model_name="query",
            constraint=models.UniqueConstraint(
                models.F("project"), MD5("normalized"), name="query_unique_text_md5"
            ),
        ),
        migrations.RemoveConstraint(model_name="logquery", name="logquery_unique_normalized"),
        migrations.RemoveConstraint(model_name="query", name="query_unique_text"),
    ]
