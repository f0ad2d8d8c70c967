"""Whole documents are chunked by paragraph with a size limit and overlap; the offsets of every
chunk point into the document text, so judgments can later be matched by span."""

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.models import Chunk, Document
from goldsmith.intake.chunking import chunk_text

TEXT = "\n\n".join(
    f"Paragraph {i}. " + " ".join(f"word{i}_{j}" for j in range(30)) for i in range(12)
)


def test_it_chunks_documents_and_records_offsets(personas, write, run_command):
    path = write(
        "docs.jsonl",
        json.dumps({"doc_id": "manual", "title": "Manual", "text": TEXT}) + "\n"
        + json.dumps({"doc_id": "empty", "title": "Empty", "text": ""}) + "\n",
    )  # fmt: skip
    args = ("--chunk-size", 400, "--overlap", 60, "--quiet")
    run_command("import_corpus", "--project", personas.project.name, path, *args)
    chunks = list(Chunk.objects.filter(document__doc_id="manual").order_by("position"))
    assert len(chunks) > 5
    for position, chunk in enumerate(chunks):
        assert chunk.chunk_id == f"manual#{position}"
        assert chunk.position == position
        assert TEXT[chunk.start : chunk.end] == chunk.text
        assert len(chunk.text) <= 400
    # Consecutive chunks overlap (the next one starts before the previous one ends) or touch.
    assert any(b.start < a.end for a, b in itertools.pairwise(chunks))
    # An empty document still has one (empty) chunk that judgments can cite.
    assert Document.objects.get(doc_id="empty").chunks.get().text == ""


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("ab \n.é"), max_size=3000),
    size=st.integers(min_value=50, max_value=600),
    overlap=st.integers(min_value=0, max_value=24),
)
def test_offsets_always_point_at_the_chunk_text(text, size, overlap):
    spans = chunk_text(text, max_chars=size, overlap=overlap)
    for span in spans:
        assert text[span.start : span.end] == span.text
        assert 0 < len(span.text) <= size
    covered = set()
    for span in spans:
        covered.update(range(span.start, span.end))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
