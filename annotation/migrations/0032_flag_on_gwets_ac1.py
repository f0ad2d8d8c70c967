"""A lead may flag queries on Gwet's AC1 or AC2 (linear weights) instead of kappa; every
query's AC2 is stored beside its kappas. Stored figures are marked stale (blank signature) so
the next recomputation fills AC2 in: until then a query flagged on AC2 keeps its flags."""

from django.db import migrations, models


def mark_stale(apps, schema_editor):
    apps.get_model("annotation", "QueryAgreement").objects.update(signature="")


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0031_simulated_provenance"),
    ]

    operations = [
        migrations.AddField(
            model_name="queryagreement",
            name="ac2_linear",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="project",
            name="kappa_weights",
            field=models.CharField(
                choices=[
                    ("unweighted", "Cohen's kappa, every disagreement alike"),
                    ("linear", "Linearly weighted kappa, one grade apart counts half"),
                    (
                        "ac1",
                        "Gwet's AC1, which stays high when people agree that most chunks are "
                        "not relevant",
                    ),
                    (
                        "ac2_linear",
                        "Gwet's AC2 with linear weights: AC1 where one grade apart counts half",
                    ),
                ],
                default="unweighted",
                max_length=12,
            ),
        ),
        migrations.RunPython(mark_stale, migrations.RunPython.noop),
    ]
