"""A project's tie rule, and the provenances of the grades it decides.

Projects that exist already keep today's behaviour (a lead decides every tie); new projects
resolve one-grade ties to the lower grade (docs/design.md "Agreement conventions")."""

from django.db import migrations, models

CHOICES = [
    ("lower", "Lower grade (tie → lower)"),
    ("higher", "Higher grade (tie → higher)"),
    ("lead", "A lead decides"),
]


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0015_h8_token_expiry"),
    ]

    operations = [
        migrations.AddField(
            model_name="project",
            name="tie_rule",
            field=models.CharField(choices=CHOICES, default="lead", max_length=8),
        ),
        migrations.AlterField(
            model_name="project",
            name="tie_rule",
            field=models.CharField(choices=CHOICES, default="lower", max_length=8),
        ),
        migrations.AlterField(
            model_name="resolution",
            name="provenance",
            field=models.CharField(
                choices=[
                    ("unanimous", "Unanimous"),
                    ("majority", "Majority"),
                    ("tie_lower", "Tie → lower"),
                    ("tie_higher", "Tie → higher"),
                    ("adjudicated", "Adjudicated"),
                ],
                max_length=16,
            ),
        ),
    ]
