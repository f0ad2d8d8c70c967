"""One row per visit of the annotation page: a time report sent twice counts once."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0017_project_tokenizer"),
    ]

    operations = [
        migrations.CreateModel(
            name="VisitTime",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("visit", models.CharField(max_length=64)),
                ("seconds", models.FloatField(default=0)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "assignment",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="visits",
                        to="annotation.assignment",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("assignment", "visit"), name="visittime_unique")
                ],
            },
        ),
    ]
