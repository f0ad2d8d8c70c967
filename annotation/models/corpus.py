from __future__ import annotations

from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.utils.translation import gettext_lazy, pgettext_lazy

from annotation.models.accounts import acting_user
from annotation.models.imports import ImportJob
from annotation.models.projects import Project


class Document(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="documents")
    doc_id = models.CharField(max_length=255)
    title = models.TextField(blank=True)
    metadata = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "doc_id"], name="document_unique_doc_id")
        ]

    def __str__(self) -> str:
        return self.doc_id


class Chunk(models.Model):
    """A passage of a document: the unit annotators grade.

    `start`/`end` are character offsets in the document text, so that judgments can be matched
    by span when a corpus is re-chunked. A removed chunk is kept for golden sets that cite it.
    """

    # No index of their own: (project, chunk_id) and (document, position) lead with them.
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="chunks", db_index=False
    )
    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="chunks", db_index=False
    )
    chunk_id = models.CharField(max_length=255)
    text = models.TextField()
    position = models.PositiveIntegerField(default=0)
    start = models.PositiveIntegerField(null=True, blank=True)
    end = models.PositiveIntegerField(null=True, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    text_sha256 = models.CharField(max_length=64)
    text_changed = models.BooleanField(default=False)
    removed = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "chunk_id"], name="chunk_unique_chunk_id")
        ]
        indexes = [models.Index(fields=["document", "position"])]

    def __str__(self) -> str:
        return self.chunk_id


class ChunkSearch(models.Model):
    """A chunk's entry in the corpus search index (`annotation.services.search`).

    On PostgreSQL, `vector`: the English words of the chunk, or for a Chinese project its
    character bigrams and other words (PostgreSQL has no Chinese parser). On SQLite only
    Chinese projects have rows, holding the chunk's folded `text` (NFKC, lower case,
    simplified characters) that a search matches by substring.

    Kept apart from the chunk so that an import only stores chunks, in one transaction, and
    the search index is built right after it by several database sessions at once
    (`annotation.services.search`). Until then the chunks are in the project's
    :class:`SearchBacklog` and searched without the index, so a search never misses a chunk.
    The GIN index over `vector` is created by migration 0009 on PostgreSQL.
    """

    chunk = models.OneToOneField(
        Chunk, primary_key=True, on_delete=models.CASCADE, related_name="search"
    )
    vector = SearchVectorField()
    text = models.TextField(blank=True, db_default="")

    def __str__(self) -> str:
        return f"search vector of chunk #{self.chunk_id}"


class SearchBacklog(models.Model):
    """The project has chunks that are not in the search index yet (since `since`)."""

    project = models.OneToOneField(
        Project, primary_key=True, on_delete=models.CASCADE, related_name="search_backlog"
    )
    since = models.DateTimeField()

    def __str__(self) -> str:
        return f"search backlog of project #{self.project_id} since {self.since:%Y-%m-%d %H:%M}"


CHANGED_IDS_SHOWN = 100


class FileKind(models.TextChoices):
    CHUNKS = "chunks", gettext_lazy("chunks")
    DOCUMENTS = "documents", gettext_lazy("whole documents")


class CorpusImport(ImportJob):
    """One import of a corpus file: its progress while running, then its report.

    `mode` is the kind of file (chunks, or whole documents that the import chunks); `replace`
    says how it updates the corpus: False (*add or update*, the default) adds new chunk ids and
    updates known ones whose text changed, retiring nothing; True (*replace*: the file is the
    whole corpus now) also retires every live chunk the file does not hold."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="corpus_imports")
    mode = models.CharField(max_length=16, blank=True, choices=FileKind.choices)
    replace = models.BooleanField(default=False)
    chunk_size = models.PositiveIntegerField(default=1000)
    overlap = models.PositiveIntegerField(default=100)
    documents_created = models.PositiveIntegerField(default=0)
    chunks_created = models.PositiveIntegerField(default=0)
    chunks_unchanged = models.PositiveIntegerField(default=0)
    chunks_changed = models.PositiveIntegerField(default=0)
    chunks_removed = models.PositiveIntegerField(default=0)
    chunks_restored = models.PositiveIntegerField(default=0)
    # Chunk ids whose text this import changed (the first CHANGED_IDS_SHOWN), and how many of
    # the changed chunks had been graded: their candidates keep the graded text.
    changed_chunk_ids = models.JSONField(default=list, blank=True)
    judged_chunks_changed = models.PositiveIntegerField(default=0)
    # Of the chunks this import changed or retired, how many frozen versions cite (a golden
    # judgment) and how many open work cites (a grade of a query no frozen version holds).
    cited_by_frozen = models.PositiveIntegerField(default=0)
    cited_by_open = models.PositiveIntegerField(default=0)


class ChangeKind(models.TextChoices):
    ADDED = "added", pgettext_lazy("a chunk in a corpus version", "added")
    CHANGED = "changed", pgettext_lazy("a chunk in a corpus version", "changed")
    RETIRED = "retired", pgettext_lazy("a chunk in a corpus version", "retired")


class CorpusVersionOrigin(models.TextChoices):
    IMPORT = "import", gettext_lazy("corpus import")
    GOLDEN_SET = "golden_set", gettext_lazy("golden-set import")
    BASELINE = "baseline", gettext_lazy("corpus before versions")


class CorpusVersion(models.Model):
    """One state of a project's corpus: every import that changes the live chunks makes the next.

    `content_hash` is :func:`goldsmith.corpus.corpus_hash` over the live chunks after the import
    (``sha256:<hex>``). `added` counts new chunk ids and retired chunks that came back; `changed`
    live chunks whose text changed; `retired` chunks that left the live corpus (kept, never
    deleted). The chunk ids behind each count are its :class:`CorpusChange` rows, so the diff of
    two versions is the changes in between.

    `origin` says what made it: a corpus import, a golden-set import that brought chunks, or
    (``baseline``) migration 0027, which gave each project that already had chunks its version
    1. A baseline lists no change rows: the history before it is not known, so its `added` is
    its live chunks and a diff starts from it.
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="corpus_versions")
    number = models.PositiveIntegerField()
    content_hash = models.CharField(max_length=71)
    live_chunks = models.PositiveIntegerField(default=0)
    added = models.PositiveIntegerField(default=0)
    changed = models.PositiveIntegerField(default=0)
    retired = models.PositiveIntegerField(default=0)
    corpus_import = models.OneToOneField(
        CorpusImport,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="corpus_version",
    )
    filename = models.CharField(max_length=255, blank=True)
    origin = models.CharField(
        max_length=16, choices=CorpusVersionOrigin.choices, default=CorpusVersionOrigin.IMPORT
    )
    replace = models.BooleanField(default=False)  # made by a replace (else add or update)
    created_by = acting_user()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "number"], name="corpusversion_unique_number"
            )
        ]

    def __str__(self) -> str:
        return f"corpus version {self.number} of project #{self.project_id}"

    @property
    def short_hash(self) -> str:
        return self.content_hash.removeprefix("sha256:")[:12]


class CorpusChange(models.Model):
    """One chunk that a corpus version added, changed or retired (its text hashes before/after)."""

    version = models.ForeignKey(CorpusVersion, on_delete=models.CASCADE, related_name="changes")
    chunk = models.ForeignKey(Chunk, on_delete=models.CASCADE, related_name="changes")
    kind = models.CharField(max_length=8, choices=ChangeKind.choices)
    old_sha256 = models.CharField(max_length=64, blank=True)
    new_sha256 = models.CharField(max_length=64, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["version", "chunk"], name="corpuschange_unique_chunk")
        ]

    def __str__(self) -> str:
        return f"{self.kind} chunk #{self.chunk_id} in {self.version}"
