"""Through the real judging services: grades settled by rule or by a lead, then approved, are
what a freeze copies, with their provenance."""

from __future__ import annotations

from annotation.models import Assignment, Candidate, PoolSource, Query
from annotation.models.judging import SourceKind
from annotation.services.adjudication import queries_approve, query_adjudicate
from annotation.services.assignment import queries_assign
from annotation.services.goldsets import golden_set_version_freeze
from annotation.services.judging import judgment_save
from annotation.services.pool_hits import pool_add_hits
from goldsmith.formats.goldset import goldset_content_hash, read_goldset
from tests.annotation.goldset_factories import make_corpus


def grade(user, query, grades: dict[str, int]) -> None:
    assignment = Assignment.objects.get(query=query, annotator=user)
    for candidate in Candidate.objects.filter(query=query).select_related("chunk"):
        judgment_save(
            assignment=assignment, candidate=candidate, grade=grades[candidate.chunk.chunk_id]
        )


def test_settled_and_adjudicated_grades_are_frozen_with_their_provenance(personas):
    project = personas.project
    chunks = make_corpus(project, docs=1, chunks_per_doc=3)
    agreed = Query.objects.create(
        project=project, text="how to reset a password", normalized="how to reset a password"
    )
    disputed = Query.objects.create(
        project=project, text="refunds for annual plans", normalized="refunds for annual plans"
    )
    source = PoolSource.objects.create(project=project, name="bm25", kind=SourceKind.BM25)
    pool_add_hits(source=source, hits={q.pk: [c.pk for c in chunks] for q in (agreed, disputed)})
    queries_assign(project=project, per_query=2)

    grade(personas.bob, agreed, {"doc-0#0": 2, "doc-0#1": 0, "doc-0#2": 1})
    grade(personas.carol, agreed, {"doc-0#0": 2, "doc-0#1": 0, "doc-0#2": 1})
    grade(personas.bob, disputed, {"doc-0#0": 2, "doc-0#1": 0, "doc-0#2": 0})
    grade(personas.carol, disputed, {"doc-0#0": 0, "doc-0#1": 2, "doc-0#2": 0})
    disputed.review.refresh_from_db()
    assert disputed.review.state == "flagged"
    cands = {c.chunk.chunk_id: c.pk for c in Candidate.objects.filter(query=disputed)}
    query_adjudicate(
        project=personas.project,
        query_id=disputed.pk,
        by=personas.alice,
        version=disputed.review.version,
        grades={cands["doc-0#0"]: 1, cands["doc-0#1"]: 2, cands["doc-0#2"]: 0},
        reason="guideline_gap",
    )
    approval = queries_approve(project=project, by=personas.alice)
    assert sorted(approval.approved) == sorted([agreed.pk, disputed.pk])

    version = golden_set_version_freeze(project=project, by=personas.alice)

    frozen = {
        (i.query_id, j.chunk_id): (j.grade, j.provenance)
        for i in version.items.all()
        for j in i.judgments.all()
    }
    a, d = str(agreed.pk), str(disputed.pk)
    assert frozen[(a, "doc-0#0")] == (2, "unanimous")
    assert frozen[(a, "doc-0#1")] == (0, "unanimous")
    assert frozen[(d, "doc-0#0")] == (1, "adjudicated")
    assert frozen[(d, "doc-0#1")] == (2, "adjudicated")
    assert version.agreement_summary["adjudicated_queries"] == 1
    assert version.agreement_summary["queries_with_agreement"] == 2


def test_grades_decided_by_the_tie_rule_are_frozen_and_exported_as_such(
    personas, tmp_path, run_command
):
    project = personas.project  # tie rule "lower", the default
    project.kappa_threshold = -1.0  # only the tie rule decides here
    project.save()
    chunks = make_corpus(project, docs=1, chunks_per_doc=3)
    query = Query.objects.create(
        project=project, text="how to close an account", normalized="how to close an account"
    )
    source = PoolSource.objects.create(project=project, name="bm25", kind=SourceKind.BM25)
    pool_add_hits(source=source, hits={query.pk: [c.pk for c in chunks]})
    queries_assign(project=project, per_query=2)
    grade(personas.bob, query, {"doc-0#0": 2, "doc-0#1": 1, "doc-0#2": 0})
    grade(personas.carol, query, {"doc-0#0": 1, "doc-0#1": 1, "doc-0#2": 0})
    queries_approve(project=project, by=personas.alice)
    version = golden_set_version_freeze(project=project, by=personas.alice)

    out = tmp_path / "v1.jsonl"
    run_command(
        "export_goldset", "--project", project.name, "--version", version.label,
        "--format", "jsonl", "-o", out,
    )  # fmt: skip
    exported = read_goldset(out)
    judgments = {j.chunk_id: (j.grade, j.provenance) for q in exported.queries for j in q.judgments}
    assert judgments == {
        "doc-0#0": (1, "tie_lower"),
        "doc-0#1": (1, "unanimous"),
        "doc-0#2": (0, "unanimous"),
    }
    assert goldset_content_hash(exported.queries) == version.content_hash
