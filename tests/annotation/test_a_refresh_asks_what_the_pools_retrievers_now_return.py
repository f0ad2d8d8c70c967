"""A refresh asks a touched query's grades for what the pool's built-in retrievers now return in
its top K and nobody graded for it; an untouched query is not re-pooled."""

from __future__ import annotations

from annotation.models import Chunk, Document, PoolSource, RefreshCandidate
from annotation.models.judging import SourceKind
from annotation.services.refresh import golden_set_refresh_open
from annotation.services.search import search_index_build
from tests.annotation.refresh_factories import judged_v1, sha, update_corpus


def test_new_top_k_hits_of_a_builtin_pool_retriever_are_asked(personas):
    judged = judged_v1(personas)
    project = personas.project
    PoolSource.objects.create(project=project, name="bm25", kind=SourceKind.BM25, k=3)
    update_corpus(project)
    doc = Document.objects.create(project=project, doc_id="faq", title="FAQ")
    text = "Reset a forgotten password from the sign-in page."
    Chunk.objects.create(
        project=project, document=doc, chunk_id="faq#0", text=text, start=0, end=len(text),
        text_sha256=sha(text),
    )  # fmt: skip
    search_index_build(project_id=project.pk)

    opened = golden_set_refresh_open(version=judged.version, by=personas.alice)
    pooled = {
        (rc.candidate.query_id, rc.candidate.chunk.chunk_id)
        for rc in RefreshCandidate.objects.filter(
            refresh=opened.refresh, why="pool"
        ).select_related("candidate__chunk")
    }
    assert (judged.password.pk, "faq#0") in pooled
    assert all(q != judged.invoices.pk for q, _ in pooled)  # untouched: not re-pooled
    assert opened.counts["pool"] == len(pooled)
    assert opened.counts["asked"] == 4 + len(pooled)
