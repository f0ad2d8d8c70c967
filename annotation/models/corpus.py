from __future__ import annotations

from django.db import models

from .projects import Project


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

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="chunks")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
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
