"""A run's corpus hash is the corpus versions' own (`goldsmith.corpus.corpus_hash`,
``sha256:<hex>`` in code-point order of the ids) instead of a hash of its own (bare hex, in
the database's order), so that a run, a corpus version and a frozen version that saw the same
corpus say so with one value. A run stored before, whose corpus version is known, takes that
version's hash: the live corpus it ran against is the one that version describes. A run
without a corpus version keeps its old hash (a baseline of that age reads as on another corpus
once)."""

from django.db import migrations, models


def to_corpus_versions(apps, schema_editor):
    EvaluationRun = apps.get_model("evaluation", "EvaluationRun")
    runs = EvaluationRun.objects.filter(corpus_version__isnull=False).exclude(
        corpus_hash__startswith="sha256:"
    )
    for run in runs.select_related("corpus_version").iterator(chunk_size=500):
        run.corpus_hash = run.corpus_version.content_hash
        run.save(update_fields=["corpus_hash"])


class Migration(migrations.Migration):
    dependencies = [
        ("evaluation", "0011_report_sentence_templates"),
    ]

    operations = [
        migrations.AlterField(
            model_name="evaluationrun",
            name="corpus_hash",
            field=models.CharField(blank=True, max_length=71),
        ),
        migrations.RunPython(to_corpus_versions, migrations.RunPython.noop, elidable=True),
    ]
