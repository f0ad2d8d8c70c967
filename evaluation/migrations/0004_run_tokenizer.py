"""A run records how its built-in retriever's index cut the texts (the project's tokenizer when
the run was made). Runs made before hold "" (not recorded)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("evaluation", "0003_h6_report_refuses_nan")]

    operations = [
        migrations.AddField(
            model_name="evaluationrun",
            name="tokenizer",
            field=models.CharField(blank=True, default="", max_length=16),
        ),
    ]
