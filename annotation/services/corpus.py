"""Corpus imports: streaming, all or nothing, and re-imports that update in place.

A re-import compares every chunk with what is stored: an unchanged chunk is not touched; a chunk
whose text changed gets the new text and ``text_changed=True``; a removed chunk that comes back
is restored. What happens to a live chunk missing from the file depends on the import's kind:
*add or update* (the default) leaves it live; *replace* (the file is the whole corpus now)
marks it ``removed`` (retired), kept because golden sets may cite it.

A dry run (:func:`corpus_preview`) reads the file through the same classification and stores
nothing, so its counts are the ones the import then makes. Every import that changes the live
chunks makes the project's next corpus version (`annotation.services.corpus_versions`), in the
import's transaction; an import that changes nothing makes none.

A changed text must not silently change what was graded. Frozen versions already hold the text
and span of every graded chunk as it was at the freeze. Before the new text is stored, every
candidate of a changed chunk that someone graded (a judgment or a final grade) keeps the chunk's
current text and span (``Candidate.judged_text``, once: the first graded text): the query's
annotators and adjudicators keep seeing it and a later freeze copies it, so grades, agreement
and span matching stay about the text that was graded. Candidates nobody graded follow the new
text. The import lists the changed chunk ids (the first ``CHANGED_IDS_SHOWN``) and how many of
the changed chunks were graded, and says so (:func:`changed_text_warning`).
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.core import signing
from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Subquery
from django.utils import timezone, translation
from django.utils.translation import gettext, ngettext

from annotation.models import (
    Candidate,
    Chunk,
    CorpusImport,
    Document,
    FileKind,
    ImportStatus,
    Judgment,
    Project,
    Resolution,
)
from annotation.models.corpus import CHANGED_IDS_SHOWN
from annotation.selectors.corpus import chunks_cited, corpus_version_live
from annotation.services.bulk import bulk_insert
from annotation.services.corpus_versions import ChangeRows, corpus_version_record
from annotation.services.imports import import_run
from annotation.services.progress import ProgressCallback, ProgressWriter, uploads_dir
from annotation.services.projects import project_tokenizer_detect
from annotation.services.search import search_backlog_add, search_index_build, search_vectors_drop
from annotation.services.uploads import Upload, upload_file, upload_name
from goldsmith.intake.chunking import Span, chunk_text
from goldsmith.intake.readers import (
    CORPUS_FORMATS,
    ChunkRecord,
    DocumentRecord,
    detect_format,
    read_ahead,
)
from goldsmith.intake.readers import read_corpus as read_corpus_records

logger = logging.getLogger(__name__)
BATCH = 2000
LANGUAGE_SAMPLE = 2000  # texts whose language chooses a new project's tokenizer
CHUNK_FIELDS = ["project_id", "document_id", "chunk_id", "text", "position", "start", "end",
                "metadata", "text_sha256", "text_changed", "removed", "updated_at"]  # fmt: skip
# What a changed chunk's update writes: all but its project and chunk id.
UPDATE_FIELDS = ["document", *CHUNK_FIELDS[3:]]


def corpus_import_create(
    *,
    project: Project,
    filename: str,
    upload_path: Path | None = None,
    created_by: object | None = None,
    chunk_size: int = 1000,
    overlap: int = 100,
    replace: bool = False,
) -> CorpusImport:
    """A queued import; `corpus_import_run` does the work (in a Celery task for uploads)."""
    _check_settings(filename, chunk_size, overlap)
    return CorpusImport.objects.create(
        replace=replace,
        project=project,
        filename=filename[-255:],
        upload_path=str(upload_path or ""),
        created_by=created_by if getattr(created_by, "pk", None) else None,
        chunk_size=chunk_size,
        overlap=overlap,
    )


def _check_settings(filename: str, chunk_size: int, overlap: int) -> None:
    detect_format(filename, CORPUS_FORMATS)
    if chunk_size < 50 or not 0 <= overlap < chunk_size // 2:
        raise ValueError(
            gettext("chunk size must be ≥ 50 and overlap between 0 and half the chunk size")
        )


def corpus_import_run(
    *,
    corpus_import_id: int,
    path: Path | None = None,
    on_progress: ProgressCallback | None = None,
    index: str = "inline",
) -> CorpusImport:
    """Run a queued import of `path` (or of its stored upload, deleted afterwards).

    The import is done when its chunks are stored: committed, poolable and searchable (chunks
    without a search vector yet are searched without the index, see
    `annotation.services.search`). The search index of the new and changed chunks is built
    after that, apart: with `index="inline"` (the command line) in this call, after the record
    says done; with `index="worker"` (uploads) by the `project_search_index_build` task, whose
    progress the corpus page shows (`annotation.selectors.corpus.search_index_state`)."""
    record = CorpusImport.objects.get(pk=corpus_import_id)

    def work(source: Path, progress: ProgressWriter) -> None:
        with source.open("rb") as handle, transaction.atomic():
            # One import of a project at a time: each compares the file with the corpus as the
            # previous one left it, and numbers the next corpus version.
            Project.objects.select_for_update().filter(pk=record.project_id).first()
            counts = _store(record, handle, progress)
        for name, value in counts.items():
            setattr(record, name, value)
        record.bytes_read = record.bytes_total

    record = import_run(record, path=path, on_progress=on_progress, work=work)
    if record.status == ImportStatus.DONE and (record.chunks_created or record.chunks_changed):
        if index == "worker":
            from annotation.tasks import project_search_index_build

            project_search_index_build.delay(record.project_id)
        else:
            _index_for_search(record)
    return record


def _index_for_search(record: CorpusImport) -> None:
    """Build the search vectors of the chunks just committed. A failure here loses nothing:
    the chunks stay in the project's search backlog, searched without the index until a later
    build (the next import, or the periodic `corpus_search_backlog` task) indexes them."""
    try:
        search_index_build(project_id=record.project_id)
    except Exception:
        logger.exception("search index of corpus import %s failed; left in the backlog", record.pk)


def corpus_import(
    *,
    project: Project,
    path: Path,
    filename: str | None = None,
    created_by: object | None = None,
    chunk_size: int = 1000,
    overlap: int = 100,
    replace: bool = False,
    on_progress: ProgressCallback | None = None,
) -> CorpusImport:
    """Import a file now (the command line's way); the caller's file is left in place."""
    record = corpus_import_create(
        project=project,
        filename=filename or path.name,
        created_by=created_by,
        chunk_size=chunk_size,
        overlap=overlap,
        replace=replace,
    )
    return corpus_import_run(corpus_import_id=record.pk, path=path, on_progress=on_progress)


class _Store:
    """The writing side of one import, inside its transaction; with ``dry_run`` it classifies
    every chunk the same way and writes nothing."""

    def __init__(self, record: CorpusImport, *, dry_run: bool = False) -> None:
        self.record = record
        self.dry_run = dry_run
        self.project_id = record.project_id
        self.docs: dict[str, int] = dict(
            Document.objects.filter(project_id=self.project_id).values_list("doc_id", "id")
        )
        self.existing: dict[str, tuple[int, str, bool]] = {
            chunk_id: (pk, sha, removed)
            for chunk_id, pk, sha, removed in Chunk.objects.filter(
                project_id=self.project_id
            ).values_list("chunk_id", "id", "text_sha256", "removed")
        }
        # Chunks created by this import have larger keys (one import of a project at a time).
        self.max_pk = max((pk for pk, _sha, _removed in self.existing.values()), default=0)
        self.seen: set[str] = set()
        self.next_position: dict[str, int] = {}
        self.counts = dict.fromkeys(
            [
                "records",
                "documents_created",
                "chunks_created",
                "chunks_unchanged",
                "chunks_changed",
                "chunks_removed",
                "chunks_restored",
                "judged_chunks_changed",
            ],
            0,
        )
        self.changes = ChangeRows()  # for the corpus version (created chunks: by key, later)
        self.touched: list[tuple[int, str]] = []  # live chunks changed or retired: (pk, id)
        self.changed_ids: list[str] = []  # the first CHANGED_IDS_SHOWN, in file order
        self.pending: list[ChunkRecord] = []
        self.sample: list[str] = []  # the first texts, to detect the corpus's language
        self.backlog = False  # the project's search backlog row was written

    def add(self, chunk: ChunkRecord) -> None:
        self.pending.append(chunk)
        if len(self.sample) < LANGUAGE_SAMPLE:
            self.sample.append(chunk.text)
        if len(self.pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        new_docs: dict[str, str] = {}
        for chunk in self.pending:
            if chunk.doc_id not in self.docs and chunk.doc_id not in new_docs:
                new_docs[chunk.doc_id] = chunk.title
        if new_docs:
            if self.dry_run:
                self.docs.update(dict.fromkeys(new_docs, 0))
            else:
                self.docs.update(_documents_insert(self.project_id, new_docs))
            self.counts["documents_created"] += len(new_docs)
        to_create: list[tuple[object, ...]] = []
        now = timezone.now()
        to_update: list[Chunk] = []
        restored: list[int] = []
        for chunk in self.pending:
            sha = hashlib.sha256(chunk.text.encode("utf-8")).hexdigest()
            position = chunk.position
            if position is None:
                position = self.next_position.get(chunk.doc_id, 0)
            self.next_position[chunk.doc_id] = position + 1
            self.seen.add(chunk.chunk_id)
            found = self.existing.get(chunk.chunk_id)
            if found is None:
                to_create.append(
                    (self.project_id, self.docs[chunk.doc_id], chunk.chunk_id, chunk.text,
                     position, chunk.start, chunk.end, chunk.metadata, sha, False, False, now)
                )  # fmt: skip
            elif found[1] == sha:
                if found[2]:
                    restored.append(found[0])
                    self.changes.added.append((found[0], sha))
                else:
                    self.counts["chunks_unchanged"] += 1
            else:
                if len(self.changed_ids) < CHANGED_IDS_SHOWN:
                    self.changed_ids.append(chunk.chunk_id)
                if found[2]:  # a retired chunk back with another text: added again
                    self.changes.added.append((found[0], sha))
                else:
                    self.changes.changed.append((found[0], found[1], sha))
                    self.touched.append((found[0], chunk.chunk_id))
                to_update.append(
                    Chunk(
                        pk=found[0],
                        document_id=self.docs[chunk.doc_id],
                        text=chunk.text,
                        position=position,
                        start=chunk.start,
                        end=chunk.end,
                        metadata=chunk.metadata,
                        text_sha256=sha,
                        text_changed=True,
                        removed=False,
                        updated_at=timezone.now(),
                    )
                )
        self.pending = []
        self.counts["chunks_created"] += len(to_create)
        self.counts["chunks_changed"] += len(to_update)
        self.counts["chunks_restored"] += len(restored)
        if self.dry_run:
            return
        if (to_create or to_update) and not self.backlog:
            search_backlog_add(project_id=self.project_id)
            self.backlog = True
        if to_create:
            bulk_insert(Chunk, CHUNK_FIELDS, to_create, json_fields=frozenset({"metadata"}))
        if to_update:
            self.counts["judged_chunks_changed"] += candidates_keep_judged_text(
                chunk_pks=[chunk.pk for chunk in to_update]
            )
            search_vectors_drop(chunk_ids=[chunk.pk for chunk in to_update])
            Chunk.objects.bulk_update(to_update, UPDATE_FIELDS, batch_size=500)
        if restored:
            Chunk.objects.filter(pk__in=restored).update(removed=False, updated_at=timezone.now())

    def finish(self, *, replace: bool) -> dict[str, int]:
        """Write what is left; a replace retires every live chunk the file did not hold."""
        self.flush()
        gone: list[int] = []
        if replace:
            for chunk_id, (pk, sha, removed) in self.existing.items():
                if not removed and chunk_id not in self.seen:
                    gone.append(pk)
                    self.changes.retired.append((pk, sha))
                    self.touched.append((pk, chunk_id))
        if not self.dry_run:
            for start in range(0, len(gone), BATCH):
                Chunk.objects.filter(pk__in=gone[start : start + BATCH]).update(
                    removed=True, updated_at=timezone.now()
                )
        self.counts["chunks_removed"] = len(gone)
        return self.counts


def candidates_keep_judged_text(*, chunk_pks: list[int]) -> int:
    """Before the text of these chunks changes: each of their candidates that someone graded
    (a judgment or a final grade) and that keeps no graded text yet keeps the chunk's current
    text and span. Returns how many of the chunks have graded candidates."""
    graded = Exists(Judgment.objects.filter(candidate=OuterRef("pk"))) | Exists(
        Resolution.objects.filter(candidate=OuterRef("pk"))
    )
    chunk = Chunk.objects.filter(pk=OuterRef("chunk_id"))
    Candidate.objects.filter(chunk_id__in=chunk_pks, judged_text__isnull=True).filter(
        graded
    ).update(
        judged_text=Subquery(chunk.values("text")[:1]),
        judged_start=Subquery(chunk.values("start")[:1]),
        judged_end=Subquery(chunk.values("end")[:1]),
    )
    return (
        Candidate.objects.filter(chunk_id__in=chunk_pks)
        .filter(graded)
        .values("chunk_id")
        .distinct()
        .count()
    )


def changed_text_warning(record: CorpusImport) -> str:
    """What a finished import says about the chunks whose text it changed ("" when none)."""
    n = record.chunks_changed
    if not n:
        return ""
    shown = ", ".join(record.changed_chunk_ids)
    more = n - len(record.changed_chunk_ids)
    if more > 0:
        ids = gettext("%(shown)s and %(more)s more") % {"shown": shown, "more": more}
    else:
        ids = shown
    graded = record.judged_chunks_changed
    changed = ngettext(
        "%(n)s existing chunk got a different text: %(ids)s.",
        "%(n)s existing chunks got a different text: %(ids)s.",
        n,
    ) % {"n": n, "ids": ids}
    if graded:
        judged = gettext(
            "%(graded)s of them had been graded: their candidates keep the text that was graded "
            "(annotators see it, a freeze copies it); re-judge them against the new text if the "
            "change matters."
        ) % {"graded": graded}
    else:
        judged = gettext("None of them had been graded.")
    return gettext("%(changed)s %(judged)s") % {"changed": changed, "judged": judged}


def _documents_insert(project_id: int, titles: dict[str, str]) -> dict[str, int]:
    """Create the documents (doc_id -> title); their primary keys by doc_id. On PostgreSQL the
    keys are drawn from the table's sequence and the rows sent by COPY (bulk_create builds and
    quotes a VALUES row per document in Python: a sixth of a large import's time)."""
    if connection.vendor != "postgresql":
        created = Document.objects.bulk_create(
            [Document(project_id=project_id, doc_id=d, title=t) for d, t in titles.items()],
            batch_size=BATCH,
        )
        return {doc.doc_id: doc.pk for doc in created}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [Document._meta.db_table, len(titles)],
        )
        keys = dict(zip(titles, (row[0] for row in cursor.fetchall()), strict=True))
    bulk_insert(
        Document,
        ["id", "project_id", "doc_id", "title", "metadata"],
        ((keys[d], project_id, d, t, {}) for d, t in titles.items()),
        json_fields=frozenset({"metadata"}),
    )
    return keys


def _document_chunks(record: DocumentRecord, chunk_size: int, overlap: int) -> list[ChunkRecord]:
    # An empty document still gets one (empty) chunk, so that judgments can cite it.
    spans = chunk_text(record.text, max_chars=chunk_size, overlap=overlap) or [Span(0, 0, "")]
    return [
        ChunkRecord(
            line=record.line,
            chunk_id=f"{record.doc_id}#{i}",
            doc_id=record.doc_id,
            text=span.text,
            title=record.title,
            position=i,
            start=span.start,
            end=span.end,
            metadata=dict(record.metadata),
        )
        for i, span in enumerate(spans)
    ]


def _read(store: _Store, handle: IO[bytes], progress: ProgressWriter | None) -> str:
    """Feed the file's chunks to `store`; the kind of file ("chunks" or "documents")."""
    record = store.record
    # Records are parsed a little ahead, in a thread, while the previous batch is written.
    records = read_ahead(
        read_corpus_records(
            handle, record.filename, max_line_bytes=settings.GOLDSMITH_UPLOAD_MAX_LINE_BYTES
        )
    )
    mode = ""
    for item in records:
        store.counts["records"] += 1
        if isinstance(item, DocumentRecord):
            mode = FileKind.DOCUMENTS
            for chunk in _document_chunks(item, record.chunk_size, record.overlap):
                store.add(chunk)
        else:
            mode = FileKind.CHUNKS
            store.add(item)
        if progress is not None and store.counts["records"] % 1000 == 0:
            progress.update(
                phase="importing",
                bytes_read=handle.tell(),
                records=store.counts["records"],
                total=record.bytes_total,
            )
    return str(mode)


def _store(record: CorpusImport, handle: IO[bytes], progress: ProgressWriter) -> dict[str, int]:
    store = _Store(record)
    mode = _read(store, handle, progress)
    counts = store.finish(replace=record.replace)
    cited = chunks_cited(project=record.project, chunks=store.touched)
    record.cited_by_frozen, record.cited_by_open = len(cited.frozen), len(cited.open)
    record.tokenizer_detected = project_tokenizer_detect(
        project_id=record.project_id, texts=store.sample
    )
    record.mode = mode
    record.changed_chunk_ids = store.changed_ids
    corpus_version_record(
        project=record.project,
        changes=store.changes,
        created_after=store.max_pk,
        corpus_import=record,
        replace=record.replace,
        filename=record.filename,
        by=record.created_by,
    )
    return counts


@dataclass(frozen=True)
class CorpusPreview:
    """What importing a file would do, computed without storing anything (a dry run).

    `added` counts new chunk ids and retired chunks the file brings back; `changed` live chunks
    whose text would change; `retired` live chunks a replace would retire (0 for add or
    update). `cited_by_frozen` / `cited_by_open`: how many of the changed and retired chunks
    frozen versions cite, and open work (grades of queries no frozen version holds).
    `live_version` is the corpus version the counts were computed against (None before any)."""

    filename: str
    mode: str
    replace: bool
    records: int
    documents_created: int
    chunks_created: int
    chunks_restored: int
    unchanged: int
    changed: int
    retired: int
    cited_by_frozen: int
    cited_by_open: int
    live_version: int | None
    live_chunks_after: int

    @property
    def added(self) -> int:
        return self.chunks_created + self.chunks_restored

    @property
    def changes_anything(self) -> bool:
        return bool(self.added or self.changed or self.retired)


def corpus_preview(
    *,
    project: Project,
    path: Path,
    filename: str | None = None,
    chunk_size: int = 1000,
    overlap: int = 100,
    replace: bool = False,
) -> CorpusPreview:
    """A dry run of importing `path`: the counts the import would make (:class:`CorpusPreview`),
    read through the import's own classification; stores nothing. Raises ReadError (naming the
    file, line and field) or ValueError for a file the import would refuse."""
    name = filename or path.name
    _check_settings(name, chunk_size, overlap)
    record = CorpusImport(
        project=project, filename=name[-255:], chunk_size=chunk_size, overlap=overlap
    )
    store = _Store(record, dry_run=True)
    with path.open("rb") as handle:
        mode = _read(store, handle, None)
    counts = store.finish(replace=replace)
    cited = chunks_cited(project=project, chunks=store.touched)
    live = corpus_version_live(project=project)
    live_before = sum(1 for _pk, _sha, removed in store.existing.values() if not removed)
    return CorpusPreview(
        filename=name,
        mode=mode,
        replace=replace,
        records=counts["records"],
        documents_created=counts["documents_created"],
        chunks_created=counts["chunks_created"],
        chunks_restored=len(store.changes.added),
        unchanged=counts["chunks_unchanged"],
        changed=len(store.changes.changed),
        retired=counts["chunks_removed"],
        cited_by_frozen=len(cited.frozen),
        cited_by_open=len(cited.open),
        live_version=live.number if live else None,
        live_chunks_after=live_before
        + counts["chunks_created"]
        + len(store.changes.added)
        - counts["chunks_removed"],
    )


# --------------------------------------------------------------------------------------------
# The page's two steps: preview a replace, then confirm it

PREVIEW_PREFIX = "preview-"
PREVIEW_MAX_AGE = 24 * 3600  # seconds a preview can be confirmed; its file is swept after
_PREVIEW_SALT = "annotation.corpus.preview"


@dataclass(frozen=True)
class PendingPreview:
    """A dry run of an uploaded file kept for confirmation: the counts, and `key`, which names
    the kept copy (signed: only this project and uploader can confirm it)."""

    preview: CorpusPreview
    key: str
    seconds: float  # how long the dry run took (the page computes it in the request)


def corpus_preview_upload(
    *,
    project: Project,
    upload: Upload,
    created_by: object,
    chunk_size: int,
    overlap: int,
    replace: bool = True,
) -> PendingPreview:
    """The dry run of an upload, its copy kept for :func:`corpus_preview_confirm`. Nothing is
    stored in the database. Raises ReadError/ValueError for a file the import would refuse."""
    _previews_sweep()
    with upload_file(upload, keep=True) as path:
        started = time.perf_counter()
        preview = corpus_preview(
            project=project,
            path=path,
            filename=upload_name(upload),
            chunk_size=chunk_size,
            overlap=overlap,
            replace=replace,
        )
        seconds = time.perf_counter() - started
        kept = path.with_name(PREVIEW_PREFIX + path.name)
        path.rename(kept)
    key = signing.dumps(
        {
            "project": project.pk,
            "user": getattr(created_by, "pk", None),
            "file": kept.name,
            "name": preview.filename,
            "chunk_size": chunk_size,
            "overlap": overlap,
            "replace": replace,
            "version": preview.live_version,
        },
        salt=_PREVIEW_SALT,
    )
    return PendingPreview(preview=preview, key=key, seconds=seconds)


class PreviewExpired(ValueError):
    """A preview that can no longer be confirmed (too old, already used, or the corpus changed
    since): the lead uploads the file again to see the counts of now."""


def _preview_opened(project: Project, key: str, created_by: object) -> tuple[dict[str, Any], Path]:
    try:
        data = signing.loads(key, salt=_PREVIEW_SALT, max_age=PREVIEW_MAX_AGE)
    except signing.BadSignature:
        raise PreviewExpired(
            gettext("this preview has expired: upload the file again to see its counts")
        ) from None
    if data["project"] != project.pk or data["user"] != getattr(created_by, "pk", None):
        raise PreviewExpired(gettext("this preview belongs to another upload"))
    path = uploads_dir() / Path(data["file"]).name
    if not path.is_file():
        raise PreviewExpired(
            gettext("this preview was already confirmed or cancelled: upload the file again")
        )
    return data, path


def corpus_preview_confirm(*, project: Project, key: str, created_by: object) -> CorpusImport:
    """Queue the import a preview showed. Refused (:class:`PreviewExpired`) when the corpus
    changed since the preview, since its counts would no longer be what the import does."""
    from annotation.tasks import corpus_import_execute

    data, path = _preview_opened(project, key, created_by)
    live = corpus_version_live(project=project)
    if (live.number if live else None) != data["version"]:
        path.unlink(missing_ok=True)
        raise PreviewExpired(
            gettext(
                "the corpus changed since this preview (it is now at version %(number)s): "
                "upload the file again to see the new counts"
            )
            % {"number": live.number if live else 0}
        )
    queued = path.with_name(path.name.removeprefix(PREVIEW_PREFIX))
    path.rename(queued)
    record = corpus_import_create(
        project=project,
        filename=data["name"],
        upload_path=queued,
        created_by=created_by,
        chunk_size=data["chunk_size"],
        overlap=data["overlap"],
        replace=data["replace"],
    )
    corpus_import_execute.delay_on_commit(record.pk, language=translation.get_language())
    return record


def corpus_preview_cancel(*, project: Project, key: str, created_by: object) -> None:
    """Drop a preview's kept copy (nothing else was stored)."""
    try:
        _data, path = _preview_opened(project, key, created_by)
    except PreviewExpired:
        return
    path.unlink(missing_ok=True)


def _previews_sweep() -> None:
    """Delete the copies of previews nobody confirmed within PREVIEW_MAX_AGE."""
    limit = time.time() - PREVIEW_MAX_AGE
    for old in uploads_dir().glob(PREVIEW_PREFIX + "*"):
        try:
            if old.stat().st_mtime < limit:
                old.unlink(missing_ok=True)
        except OSError:
            continue
