"""A corpus re-import that gives an existing chunk id a different text says so, listing the ids
(bounded), and a chunk someone already graded keeps the text that was graded for that query: its
other annotators see it, a freeze copies it with its span (so span matching stays true), while
the corpus and candidates nobody graded follow the new text."""

from __future__ import annotations

import io
import json

from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, Candidate, Chunk, CorpusImport, PoolSource, Query
from annotation.models.judging import SourceKind
from annotation.selectors.judging import annotation_view
from annotation.services.adjudication import queries_approve
from annotation.services.assignment import queries_assign
from annotation.services.goldsets import golden_set_version_freeze
from annotation.services.judging import judgment_save
from annotation.services.pool_hits import pool_add_hits

V1 = {
    "g-1": "Reset your password from the login page.",
    "g-2": "Refunds take five working days.",
    "g-3": "Contact support by e-mail.",
}
V2 = {
    "g-1": "Passwords are reset by the support desk only, by phone.",
    "g-2": "Refunds take ten working days.",
    "g-3": "Contact support by e-mail.",
}


def corpus(texts: dict[str, str]) -> str:
    lines, at = [], 0
    for chunk_id, text in texts.items():
        record = {"id": chunk_id, "doc_id": "guide", "text": text, "start": at}
        record["end"] = at + len(text)
        lines.append(json.dumps(record))
        at += len(text) + 1
    return "\n".join(lines) + "\n"


def import_corpus(project, write, name: str, texts: dict[str, str]) -> str:
    err = io.StringIO()
    call_command(
        "import_corpus",
        "--project",
        project.name,
        str(write(name, corpus(texts))),
        "--quiet",
        stdout=io.StringIO(),
        stderr=err,
    )
    return err.getvalue()


def grade(user, query, grades: dict[str, int]) -> None:
    assignment = Assignment.objects.get(query=query, annotator=user)
    for candidate in Candidate.objects.filter(query=query).select_related("chunk"):
        if candidate.chunk.chunk_id in grades:
            judgment_save(
                assignment=assignment, candidate=candidate, grade=grades[candidate.chunk.chunk_id]
            )


def test_graded_chunks_keep_their_graded_text_and_the_import_says_which_changed(
    personas, write, api_client_for
):
    project = personas.project
    assert import_corpus(project, write, "v1.jsonl", V1) == ""
    chunks = {c.chunk_id: c for c in Chunk.objects.filter(project=project)}
    graded = Query.objects.create(
        project=project, text="how to reset a password", normalized="how to reset a password"
    )
    ungraded = Query.objects.create(project=project, text="refund delay", normalized="refund delay")
    source = PoolSource.objects.create(project=project, name="bm25", kind=SourceKind.BM25)
    pool_add_hits(
        source=source,
        hits={graded.pk: [c.pk for c in chunks.values()], ungraded.pk: [chunks["g-2"].pk]},
    )
    queries_assign(project=project, per_query=2)
    grade(personas.bob, graded, {"g-1": 2, "g-2": 0, "g-3": 0})  # carol has not graded yet

    warning = import_corpus(project, write, "v2.jsonl", V2)

    assert warning.startswith("warning: 2 existing chunks got a different text: g-1, g-2. ")
    assert "2 of them had been graded: their candidates keep the text that was graded" in warning
    record = CorpusImport.objects.order_by("-id").first()
    assert (record.chunks_changed, record.changed_chunk_ids) == (2, ["g-1", "g-2"])
    assert record.judged_chunks_changed == 2
    # The corpus follows the file ...
    assert Chunk.objects.get(chunk_id="g-1").text == V2["g-1"]
    # ... the graded candidates keep what was graded, with its span; the others follow.
    kept = Candidate.objects.get(query=graded, chunk__chunk_id="g-1")
    assert (kept.judged_text, kept.judged_start, kept.judged_end) == (V1["g-1"], 0, 40)
    assert kept.graded_text == V1["g-1"]
    assert Candidate.objects.get(query=graded, chunk__chunk_id="g-3").judged_text is None
    follows = Candidate.objects.get(query=ungraded, chunk__chunk_id="g-2")
    assert follows.judged_text is None and follows.graded_text == V2["g-2"]

    # carol grades the same text bob graded
    shown = annotation_view(
        assignment=Assignment.objects.get(query=graded, annotator=personas.carol)
    )
    texts = {c.chunk_id: c.text for c in shown.candidates}
    assert texts == {"g-1": V1["g-1"], "g-2": V1["g-2"], "g-3": V1["g-3"]}

    # a later change keeps the first graded text
    import_corpus(project, write, "v3.jsonl", {**V2, "g-1": "Yet another text for g-1."})
    kept.refresh_from_db()
    assert kept.judged_text == V1["g-1"]

    grade(personas.carol, graded, {"g-1": 2, "g-2": 0, "g-3": 0})
    assert queries_approve(project=project, by=personas.alice).approved == [graded.pk]
    version = golden_set_version_freeze(project=project, by=personas.alice)
    frozen = {j.chunk_id: j for item in version.items.all() for j in item.judgments.all()}
    assert (frozen["g-1"].text, frozen["g-1"].start, frozen["g-1"].end) == (V1["g-1"], 0, 40)
    assert frozen["g-1"].grade == 2
    assert frozen["g-3"].text == V1["g-3"]

    detail = api_client_for(personas.alice).get(
        reverse("api-corpus-import-detail", args=[project.pk, record.pk])
    )
    assert detail.status_code == 200
    assert detail.json()["changed_chunk_ids"] == ["g-1", "g-2"]
    assert detail.json()["warning"].startswith("2 existing chunks got a different text")
    client = Client()
    client.force_login(personas.alice)
    page = client.get(reverse("corpus-import", args=[project.pk, record.pk])).content.decode()
    assert "2 existing chunks got a different text: g-1, g-2." in page


def test_the_list_of_changed_ids_is_bounded_and_says_how_many_more(personas, write):
    project = personas.project
    before = {f"c-{n:03d}": f"old text number {n}" for n in range(130)}
    import_corpus(project, write, "v1.jsonl", before)
    warning = import_corpus(
        project, write, "v2.jsonl", {k: v.replace("old", "new") for k, v in before.items()}
    )
    record = CorpusImport.objects.order_by("-id").first()
    assert record.chunks_changed == 130
    assert record.changed_chunk_ids == [f"c-{n:03d}" for n in range(100)]
    assert "c-099 and 30 more." in warning
    assert "None of them had been graded." in warning
    assert record.judged_chunks_changed == 0


def test_an_import_that_changes_no_text_says_nothing(personas, write):
    import_corpus(personas.project, write, "v1.jsonl", V1)
    assert import_corpus(personas.project, write, "again.jsonl", V1) == ""
    assert CorpusImport.objects.order_by("-id").first().changed_chunk_ids == []
