"""The corpus's full-text search index (PostgreSQL), built right after each import.

An import only stores chunks, in one transaction; `search_backlog_add` (in that transaction)
records that the project has chunks without a search vector. Right after the commit,
`search_index_build` computes the missing vectors (``to_tsvector('english', text)``) in batches
spread over several database sessions, each batch its own short transaction, so that
PostgreSQL computes the vectors and updates the GIN index on as many cores at once. Until the
backlog is cleared, a search also looks at the chunks without a vector (slower, never wrong;
see `annotation.selectors.corpus.chunk_search`).

Safe to run twice, or twice at once: a vector is inserted with ON CONFLICT DO NOTHING, and the
backlog row is deleted under its row lock after a last check that no chunk is left, so an
import that commits meanwhile keeps its backlog. On SQLite every function here does nothing.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

from django.db import DEFAULT_DB_ALIAS, connection, connections

logger = logging.getLogger(__name__)
BATCH = 5000
WORKERS = 2

_INSERT = (
    "INSERT INTO annotation_chunksearch (chunk_id, vector)"
    " SELECT id, to_tsvector('english'::regconfig, text) FROM annotation_chunk"
    " WHERE id = ANY(%s) ON CONFLICT (chunk_id) DO NOTHING"
)
_MISSING = (
    "SELECT c.id FROM annotation_chunk c WHERE c.project_id = %s"
    " AND NOT EXISTS (SELECT 1 FROM annotation_chunksearch s WHERE s.chunk_id = c.id)"
    " ORDER BY c.id"
)


def _postgresql() -> bool:
    return connection.vendor == "postgresql"


def search_backlog_add(*, project_id: int) -> None:
    """Record (in the caller's transaction) that the project has chunks to index. The upsert
    locks the backlog row until the caller commits, which is what keeps a concurrent
    `search_index_build` from clearing the backlog too early."""
    if not _postgresql():
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO annotation_searchbacklog (project_id, since) VALUES (%s, now())"
            " ON CONFLICT (project_id) DO UPDATE SET since = EXCLUDED.since",
            [project_id],
        )


def search_vectors_drop(*, chunk_ids: Sequence[int]) -> None:
    """Forget the vectors of chunks whose text changed (in the caller's transaction); the
    caller also calls `search_backlog_add`."""
    if not _postgresql() or not chunk_ids:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM annotation_chunksearch WHERE chunk_id = ANY(%s)", [list(chunk_ids)]
        )


def search_backlog_projects() -> list[int]:
    if not _postgresql():
        return []
    with connection.cursor() as cursor:
        cursor.execute("SELECT project_id FROM annotation_searchbacklog ORDER BY since")
        return [row[0] for row in cursor.fetchall()]


def search_index_build(
    *,
    project_id: int,
    workers: int = WORKERS,
    on_progress: Callable[[int, int], None] | None = None,
) -> int:
    """Give every chunk of the project that has no search vector its vector, and clear the
    project's backlog. Returns how many vectors were made.

    Outside a transaction the work is spread over `workers` sessions of their own; inside one
    (a caller that has not committed its chunks yet), it is done in the caller's session."""
    if not _postgresql():
        return 0
    started = time.perf_counter()
    made = 0
    if not connection.in_atomic_block and workers > 1:
        with connection.cursor() as cursor:
            cursor.execute(_MISSING, [project_id])
            ids = [row[0] for row in cursor.fetchall()]
        made = _build_in_parallel(ids, workers, on_progress)
    made += _clear_backlog(project_id)
    if made:
        logger.info(
            "search index of project %s: %d vectors in %.2fs",
            project_id,
            made,
            time.perf_counter() - started,
        )
    return made


def _build_in_parallel(
    ids: list[int], workers: int, on_progress: Callable[[int, int], None] | None
) -> int:
    batches = [ids[i : i + BATCH] for i in range(0, len(ids), BATCH)]
    if not batches:
        return 0
    lock = threading.Lock()
    state = {"next": 0, "done": 0}
    errors: list[BaseException] = []

    def work() -> None:
        own = connections.create_connection(DEFAULT_DB_ALIAS)
        try:
            own.set_autocommit(True)
            with own.cursor() as cursor:
                while not errors:
                    with lock:
                        index = state["next"]
                        state["next"] += 1
                    if index >= len(batches):
                        return
                    cursor.execute(_INSERT, [batches[index]])
                    with lock:
                        state["done"] += len(batches[index])
        except BaseException as error:  # reported by the caller's thread
            errors.append(error)
        finally:
            own.close()

    threads = [
        threading.Thread(target=work, name=f"search-index-{i}", daemon=True)
        for i in range(min(workers, len(batches)))
    ]
    for thread in threads:
        thread.start()
    # Progress is reported from this thread: the caller's connections are not thread-safe.
    alive = threads
    while alive:
        alive[0].join(timeout=0.5)
        alive = [thread for thread in alive if thread.is_alive()]
        if on_progress is not None:
            with lock:
                done = state["done"]
            on_progress(done, len(ids))
    if errors:
        raise errors[0]
    return len(ids)


def _clear_backlog(project_id: int) -> int:
    """Under the backlog row's lock (which waits for an import still holding it), index what
    is left in this session and delete the row. Returns how many vectors that made."""
    from django.db import transaction

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM annotation_searchbacklog WHERE project_id = %s FOR UPDATE",
            [project_id],
        )
        locked = cursor.fetchone() is not None
        cursor.execute(_MISSING, [project_id])
        left = [row[0] for row in cursor.fetchall()]
        for start in range(0, len(left), BATCH):
            cursor.execute(_INSERT, [left[start : start + BATCH]])
        if locked:
            cursor.execute(
                "DELETE FROM annotation_searchbacklog WHERE project_id = %s", [project_id]
            )
    return len(left)
