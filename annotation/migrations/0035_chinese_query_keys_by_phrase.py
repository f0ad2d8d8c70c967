"""The de-duplication keys of a Chinese project's queries, recomputed with the fold in force
(`goldsmith.intake.normalize.normalize_query`).

Until now the key sent every Han run through OpenCC's round trip via Taiwan's words, which
rewrote mainland words typed in simplified characters into others (查询 → 查找, 接口 → 界面):
a log's 查询 and 查找 shared one key. The key now keeps a simplified run as typed and reads
only traditional text by phrase. `LogQuery.normalized` and `Query.normalized` are recomputed
from each row's stored text (the text the key was computed from), for projects whose tokenizer
is Chinese, in batches; a second run changes nothing. Lines that the old key merged into one
log query stay counted in it (the log's lines are not stored): re-import the log to count
them apart. Two rows that would now share a key (the old key kept them apart) keep the old
key for all but the first, so that no row is merged or lost. The search index is not
affected: it never used this fold (`search_fold` is OpenCC's character conversion).
"""

from django.db import migrations

BATCH = 2000


def _rekey(model, scope: dict, order: str) -> None:
    from goldsmith.intake.normalize import normalize_query

    rows = model.objects.filter(**scope).order_by(order, "pk")
    old: dict[int, str] = {}
    new: dict[int, str] = {}
    for pk, normalized, text in rows.values_list("pk", "normalized", "text").iterator(BATCH):
        old[pk] = normalized
        key = normalize_query(text, chinese=True)
        if key != normalized:
            new[pk] = key
    if not new:
        return
    taken = {key for pk, key in old.items() if pk not in new}
    final: dict[int, str] = {}
    for pk, key in new.items():  # in the scope's order: the most frequent first
        if key not in taken:
            taken.add(key)
            final[pk] = key
    for pk in new:  # a row that cannot take its new key keeps its old one
        if pk not in final and old[pk] in taken:
            final[pk] = f"{old[pk]}\u2063{pk}"  # its old key taken too: made unique
    changed = sorted(final)
    # Two steps, so that a row never takes a key that another row still holds.
    for step in (lambda pk: f"\u2063{pk}\u2063", final.__getitem__):
        for start in range(0, len(changed), BATCH):
            batch = [model(pk=pk, normalized=step(pk)) for pk in changed[start : start + BATCH]]
            model.objects.bulk_update(batch, ["normalized"])


def rekey_chinese_queries(apps, schema_editor):
    Project = apps.get_model("annotation", "Project")
    QueryLog = apps.get_model("annotation", "QueryLog")
    LogQuery = apps.get_model("annotation", "LogQuery")
    Query = apps.get_model("annotation", "Query")
    chinese = Project.objects.filter(tokenizer__startswith="zh").values_list("pk", flat=True)
    for project in chinese.iterator():
        for log in QueryLog.objects.filter(project_id=project).values_list("pk", flat=True):
            _rekey(LogQuery, {"log_id": log}, "rank")
        _rekey(Query, {"project_id": project}, "pk")


class Migration(migrations.Migration):
    dependencies = [("annotation", "0034_judging_stops_and_deeper_pools")]

    operations = [migrations.RunPython(rekey_chinese_queries, migrations.RunPython.noop)]
