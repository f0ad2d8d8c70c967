# A run's report is stored as strict JSON: NaN and infinities are refused where it is saved.

from django.db import migrations, models

import evaluation.models


class Migration(migrations.Migration):
    dependencies = [
        ("evaluation", "0002_verdict_floors_topk_settings"),
    ]

    operations = [
        migrations.AlterField(
            model_name="evaluationrun",
            name="report",
            field=models.JSONField(
                blank=True, default=dict, encoder=evaluation.models.StrictJSONEncoder
            ),
        ),
    ]
