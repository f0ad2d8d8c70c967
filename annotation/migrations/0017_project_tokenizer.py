"""A project's tokenizer (docs/design.md names the three), who chose it, and the tokenizer an
import chose from its texts' language. Projects that exist keep today's tokenizer; one that
has imported nothing yet still detects its language on its first import."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0016_tie_rule"),
    ]

    operations = [
        migrations.AddField(
            model_name="corpusimport",
            name="tokenizer_detected",
            field=models.CharField(blank=True, max_length=16),
        ),
        migrations.AddField(
            model_name="project",
            name="tokenizer",
            field=models.CharField(
                choices=[
                    ("default", "Words between spaces (English and most languages)"),
                    ("zh-words", "Chinese words (jieba)"),
                    ("zh-bigrams", "Chinese character pairs"),
                ],
                default="default",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="project",
            name="tokenizer_origin",
            field=models.CharField(
                choices=[
                    ("default", "Not chosen yet"),
                    ("detected", "Detected on import"),
                    ("lead", "Chosen by a lead"),
                ],
                default="default",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="querylog",
            name="tokenizer_detected",
            field=models.CharField(blank=True, max_length=16),
        ),
    ]
