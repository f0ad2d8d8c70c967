from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("evaluation", "0007_stages")]

    operations = [
        migrations.AddField(
            model_name="runfile",
            name="repeated_ids",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="runfile",
            name="first_repeat",
            field=models.JSONField(blank=True, default=None, null=True),
        ),
    ]
