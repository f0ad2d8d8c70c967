"""Corpus versions: every write that changes a project's live chunks records the next one.

A version holds the content hash of the live chunks after the change
(`goldsmith.corpus.corpus_hash` over (chunk id, text sha256), computed from the stored rows),
its counts, and one `CorpusChange` row per chunk it added, changed or retired. A change of
nothing records nothing. Called inside the writer's transaction, with the project row locked
by it, so versions are numbered one after another and a failed import leaves none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection

from annotation.models import (
    ChangeKind,
    Chunk,
    CorpusChange,
    CorpusImport,
    CorpusVersion,
    CorpusVersionOrigin,
    Project,
)
from annotation.selectors.corpus import live_corpus_hash
from annotation.services.bulk import bulk_insert

CHANGE_FIELDS = ["version_id", "chunk_id", "kind", "old_sha256", "new_sha256"]


@dataclass
class ChangeRows:
    """The chunks a write changed, by primary key, other than the chunks it created (those are
    found by key: every chunk of the project whose key is above the write's `created_after`).

    `added`: (pk, new sha) of retired chunks that came back; `changed`: (pk, old sha, new sha)
    of live chunks whose text changed; `retired`: (pk, old sha)."""

    added: list[tuple[int, str]] = field(default_factory=list)
    changed: list[tuple[int, str, str]] = field(default_factory=list)
    retired: list[tuple[int, str]] = field(default_factory=list)


def corpus_version_record(
    *,
    project: Project,
    changes: ChangeRows,
    created_after: int,
    corpus_import: CorpusImport | None = None,
    replace: bool = False,
    filename: str = "",
    by: object | None = None,
    origin: str = CorpusVersionOrigin.IMPORT,
) -> CorpusVersion | None:
    """Record the project's next corpus version for a write that just changed its chunks (in
    the writer's transaction, the project row locked); None when it changed nothing."""
    created = Chunk.objects.filter(project=project, pk__gt=created_after)
    n_created = created.count()
    if not (n_created or changes.added or changes.changed or changes.retired):
        return None
    last = CorpusVersion.objects.filter(project=project).order_by("-number").first()
    version = CorpusVersion.objects.create(
        project=project,
        number=(last.number if last else 0) + 1,
        content_hash=live_corpus_hash(project=project),
        live_chunks=Chunk.objects.filter(project=project, removed=False).count(),
        added=n_created + len(changes.added),
        changed=len(changes.changed),
        retired=len(changes.retired),
        corpus_import=corpus_import,
        filename=filename[-255:],
        origin=origin,
        replace=replace,
        created_by=by if getattr(by, "pk", None) else None,
    )
    if n_created:
        # One statement in the database: the rows of a large first import never go through
        # Python.
        table = connection.ops.quote_name(CorpusChange._meta.db_table)
        chunks = connection.ops.quote_name(Chunk._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {table} (version_id, chunk_id, kind, old_sha256, new_sha256) "
                f"SELECT %s, id, %s, '', text_sha256 FROM {chunks} "
                "WHERE project_id = %s AND id > %s",
                [version.pk, ChangeKind.ADDED.value, project.pk, created_after],
            )
    rows = [
        *((version.pk, pk, ChangeKind.ADDED.value, "", new) for pk, new in changes.added),
        *((version.pk, pk, ChangeKind.CHANGED.value, o, n) for pk, o, n in changes.changed),
        *((version.pk, pk, ChangeKind.RETIRED.value, old, "") for pk, old in changes.retired),
    ]
    if rows:
        bulk_insert(CorpusChange, CHANGE_FIELDS, rows)
    return version
