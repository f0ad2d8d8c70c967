"""A stop records what it rested on: the model's probability that the target share of the
relevant candidates was found (`p_target`), the probability the rule asked for (`confidence`)
and the random checks it asked for (`checks`), as they were at the moment of the stop.

Stops taken before this migration keep null in all three: what they rested on was not
recorded, and pages and the API say so rather than read today's rule into them."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0036_pool_builds_in_a_worker"),
    ]

    operations = [
        migrations.AddField(
            model_name="judgingstop",
            name="p_target",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="judgingstop",
            name="confidence",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="judgingstop",
            name="checks",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
    ]
