"""Escalation: a project may send a flagged query to one more annotator before a lead."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0018_visit_time"),
    ]

    operations = [
        migrations.AddField(
            model_name="assignment",
            name="escalation",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="project",
            name="escalate",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="queryreview",
            name="escalation",
            field=models.CharField(
                blank=True,
                choices=[
                    ("", "Not escalated"),
                    ("escalated", "Given to one more annotator"),
                    ("no_annotator", "No other annotator could take it"),
                ],
                default="",
                max_length=16,
            ),
        ),
        migrations.AlterField(
            model_name="queryreview",
            name="state",
            field=models.CharField(
                choices=[
                    ("open", "Being annotated"),
                    ("escalated", "Waiting for one more annotator"),
                    ("flagged", "Needs adjudication"),
                    ("resolved", "Resolved"),
                    ("approved", "Approved"),
                ],
                default="open",
                max_length=16,
            ),
        ),
    ]
