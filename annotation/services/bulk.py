"""Fast inserts for imports: COPY on PostgreSQL, `bulk_create` elsewhere (SQLite).

Rows are tuples in the order of `fields` (model field names). Runs inside the caller's
transaction, so an import that fails later still stores nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection, models

BATCH = 2000


def bulk_insert(
    model: type[models.Model],
    fields: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    json_fields: frozenset[str] = frozenset(),
) -> int:
    count = 0
    if connection.vendor == "postgresql":
        meta = model._meta
        columns = ", ".join(connection.ops.quote_name(meta.get_field(f).column) for f in fields)
        positions = [i for i, f in enumerate(fields) if f in json_fields]
        sql = f"COPY {connection.ops.quote_name(meta.db_table)} ({columns}) FROM STDIN"
        with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
            for row in rows:
                if positions:
                    row = list(row)
                    for i in positions:
                        row[i] = json.dumps(row[i])
                copy.write_row(row)
                count += 1
        return count
    batch: list[models.Model] = []
    for row in rows:
        batch.append(model(**dict(zip(fields, row, strict=True))))
        if len(batch) >= BATCH:
            model._default_manager.bulk_create(batch)
            count += len(batch)
            batch = []
    if batch:
        model._default_manager.bulk_create(batch)
        count += len(batch)
    return count
