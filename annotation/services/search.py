"""The corpus's search index, built right after each import.

An import only stores chunks, in one transaction; `search_backlog_add` (in that transaction)
records that the project has chunks without a search vector. Right after the commit,
`search_index_build` computes the missing vectors in batches spread over several database
sessions, each batch its own short transaction, so that PostgreSQL computes the vectors and
updates the GIN index on as many cores at once. Until the backlog is cleared, a search also
looks at the chunks without a vector (slower, never wrong; see
`annotation.selectors.corpus.chunk_search`).

What a vector holds depends on the project's tokenizer (``Project.search_kind``):

- ``default``: ``to_tsvector('english', text)``, computed by PostgreSQL (stemmed English words).
- ``zh-words`` and ``zh-bigrams`` (PostgreSQL has no Chinese parser): the chunk's text is
  folded in Python (`goldsmith.intake.tokenizers.search_fold`: NFKC, lower case, simplified
  characters), then PostgreSQL writes each Han run ``ABCD`` as ``A AB BC CD D`` (two regular
  expressions: its first character, its overlapping bigrams, its last character) and indexes
  that with the ``simple`` configuration. A search for a Chinese word is then the phrase of its
  bigrams (``AB <-> BC``), a single character the prefix of a lexeme: any Chinese word a chunk
  holds is found, whatever a segmenter would cut it into, the same for both tokenizers. Other
  words go through PostgreSQL's parser on both sides (``get_user_id`` is the phrase ``get <->
  user <-> id``). On SQLite the same projects keep each chunk's folded text in
  ``ChunkSearch.text``, which a search matches by substring.

Safe to run twice, or twice at once: a vector is inserted with ON CONFLICT DO NOTHING, and the
backlog row is deleted under its row lock after a last check that no chunk is left, so an
import that commits meanwhile keeps its backlog. On SQLite an English project has no index (a
search reads the chunks' text) and a Chinese project's index is built in the caller's session.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, connections

from annotation.models import Chunk, ChunkSearch, Project
from goldsmith.intake.tokenizers import HAN, search_fold

logger = logging.getLogger(__name__)
BATCH = 5000
WORKERS = 2

_INSERT = (
    "INSERT INTO annotation_chunksearch (chunk_id, vector, text)"
    " SELECT id, to_tsvector('english'::regconfig, text), '' FROM annotation_chunk"
    " WHERE id = ANY(%s) ON CONFLICT (chunk_id) DO NOTHING"
)
# A Han run padded with spaces, then each Han character doubled: ABCD -> " A AB BC CD D ".
_INSERT_CHINESE = (
    "INSERT INTO annotation_chunksearch (chunk_id, vector, text)"
    " SELECT u.id, to_tsvector('simple'::regconfig, regexp_replace(regexp_replace("
    f"u.folded, '([{HAN}]+)', ' \\1 ', 'g'), '([{HAN}])', '\\1 \\1', 'g')), ''"
    " FROM unnest(%s::bigint[], %s::text[]) AS u(id, folded)"
    " ON CONFLICT (chunk_id) DO NOTHING"
)
_TEXTS = "SELECT id, text FROM annotation_chunk WHERE id = ANY(%s)"


def _insert_chinese(cursor: Any, ids: Sequence[int]) -> None:
    cursor.execute(_TEXTS, [list(ids)])
    rows = cursor.fetchall()
    cursor.execute(
        _INSERT_CHINESE, [[pk for pk, _ in rows], [search_fold(text) for _, text in rows]]
    )


def _insert(cursor: Any, ids: Sequence[int], kind: str) -> None:
    if kind == "english":
        cursor.execute(_INSERT, [list(ids)])
    else:
        _insert_chinese(cursor, ids)


def _project_kind(project_id: int) -> str:
    project = Project.objects.only("tokenizer").filter(pk=project_id).first()
    return project.search_kind if project is not None else "english"


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
    if not chunk_ids:
        return
    if not _postgresql():
        ChunkSearch.objects.filter(chunk_id__in=list(chunk_ids)).delete()
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
    kind = _project_kind(project_id)
    if not _postgresql():
        return _build_sqlite(project_id) if kind == "chinese" else 0
    started = time.perf_counter()
    made = 0
    if not connection.in_atomic_block and workers > 1:
        with connection.cursor() as cursor:
            cursor.execute(_MISSING, [project_id])
            ids = [row[0] for row in cursor.fetchall()]
        made = _build_in_parallel(ids, workers, on_progress, kind)
    made += _clear_backlog(project_id, kind)
    if made:
        logger.info(
            "search index of project %s: %d vectors in %.2fs",
            project_id,
            made,
            time.perf_counter() - started,
        )
    return made


def search_index_reset(*, project_id: int) -> None:
    """Forget the project's search vectors (its tokenizer changed the kind of index) and put
    it in the backlog, in the caller's transaction; a build after the commit makes them anew.
    Meanwhile the project's chunks are searched without the index."""
    ChunkSearch.objects.filter(chunk__project_id=project_id).delete()
    search_backlog_add(project_id=project_id)


def _build_sqlite(project_id: int) -> int:
    """SQLite, Chinese project: each chunk without a row gets its folded text."""
    missing = Chunk.objects.filter(project_id=project_id, search__isnull=True).values_list(
        "pk", "text"
    )
    rows = [ChunkSearch(chunk_id=pk, vector="", text=search_fold(text)) for pk, text in missing]
    ChunkSearch.objects.bulk_create(rows, batch_size=BATCH, ignore_conflicts=True)
    return len(rows)


def _build_in_parallel(
    ids: list[int], workers: int, on_progress: Callable[[int, int], None] | None, kind: str
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
                    _insert(cursor, batches[index], kind)
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


def _clear_backlog(project_id: int, kind: str) -> int:
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
            _insert(cursor, left[start : start + BATCH], kind)
        if locked:
            cursor.execute(
                "DELETE FROM annotation_searchbacklog WHERE project_id = %s", [project_id]
            )
    return len(left)
