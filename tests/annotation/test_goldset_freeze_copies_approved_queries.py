"""Freezing copies the approved queries and their final grades into an immutable version."""

from __future__ import annotations

import pytest

from annotation.models import Chunk, GoldenItem, GoldenJudgment, Guideline, Project
from annotation.selectors.goldsets import golden_queries
from annotation.services.goldsets import FreezeIdentical, golden_set_version_freeze
from goldsmith.formats.goldset import goldset_content_hash
from tests.annotation.goldset_factories import make_query, small_project


def test_it_copies_every_approved_query_with_its_graded_chunks(personas):
    project, chunks, queries = small_project(personas)
    Guideline.objects.create(project=project, version=3, markdown="# grade carefully")

    version = golden_set_version_freeze(project=project, by=personas.alice, note="first cut")

    assert version.label == "v1"
    assert version.note == "first cut"
    assert version.created_by == "alice"
    assert version.parent is None
    assert version.guideline_version == 3
    assert version.query_count == 3  # the resolved and the flagged query are left out
    assert version.judgment_count == 6
    items = {i.query_id: i for i in GoldenItem.objects.filter(version=version)}
    refund = items[str(queries[1].pk)]
    assert (refund.text, refund.category, refund.stratum, refund.weight) == (
        "refund policy for annual plans",
        "billing",
        "head",
        2.5,
    )
    graded = [
        (j.chunk_id, j.doc_id, j.start, j.end, j.text, j.grade, j.provenance)
        for j in refund.judgments.order_by("position")
    ]
    assert graded == [
        ("doc-1#0", "doc-1", 0, chunks[3].end, chunks[3].text, 2, "unanimous"),
        ("doc-1#1", "doc-1", 100, chunks[4].end, chunks[4].text, 1, "adjudicated"),
        ("doc-1#2", "doc-1", 200, chunks[5].end, chunks[5].text, 0, "unanimous"),
    ]
    assert version.counts["grades"] == {"0": 2, "1": 2, "2": 2}
    assert version.counts["provenance"] == {"adjudicated": 1, "majority": 3, "unanimous": 2}
    assert version.counts["queries_without_relevant"] == 1
    assert version.agreement_summary["queries_with_agreement"] == 3
    assert version.agreement_summary["mean_kappa"] == pytest.approx(0.8)
    assert version.sampling_provenance == [
        {"sample_id": None, "queries": 3, "strategy": "unsampled"}
    ]
    assert version.content_hash.startswith("sha256:")
    assert goldset_content_hash(golden_queries(version)) == version.content_hash


def test_the_copies_do_not_follow_later_edits_of_the_chunks(personas):
    project, chunks, _ = small_project(personas)
    version = golden_set_version_freeze(project=project, by=personas.alice)
    Chunk.objects.filter(pk=chunks[0].pk).update(text="rewritten later")

    frozen = GoldenJudgment.objects.get(item__version=version, chunk_id="doc-0#0")
    assert frozen.text == chunks[0].text
    assert goldset_content_hash(golden_queries(version)) == version.content_hash


def test_later_versions_are_labelled_in_order_and_name_their_parent(personas):
    project, chunks, _ = small_project(personas)
    v1 = golden_set_version_freeze(project=project, by=personas.alice)
    make_query(project, "approved after v1", {chunks[8]: 2})
    v2 = golden_set_version_freeze(project=project, by=personas.alice, note="one more")
    assert (v1.label, v2.label) == ("v1", "v2")
    assert v2.parent == v1
    assert v2.header["parent"] == {"label": "v1", "content_hash": v1.content_hash}


def test_equal_content_is_not_frozen_again_and_other_content_gets_another_hash(personas):
    project, chunks, _ = small_project(personas)
    v1 = golden_set_version_freeze(project=project, by=personas.alice, note="a")
    with pytest.raises(FreezeIdentical, match="identical to v1"):
        golden_set_version_freeze(project=project, by=personas.bob, note="b", label="again")
    make_query(project, "a new approved query", {chunks[8]: 2})
    v3 = golden_set_version_freeze(project=project, by=personas.alice)
    assert v3.content_hash != v1.content_hash


def test_it_freezes_only_the_categories_or_strata_asked_for(personas):
    project, _, queries = small_project(personas)
    billing = golden_set_version_freeze(project=project, by=personas.alice, categories=["billing"])
    assert set(billing.items.values_list("query_id", flat=True)) == {
        str(queries[1].pk),
        str(queries[2].pk),
    }
    assert billing.filters == {"categories": ["billing"], "strata": []}
    head = golden_set_version_freeze(project=project, by=personas.alice, strata=["head"])
    assert list(head.items.values_list("query_id", flat=True)) == [str(queries[1].pk)]


def test_it_refuses_when_no_approved_query_matches(personas):
    project, _, _ = small_project(personas)
    with pytest.raises(ValueError, match="no approved query matching the filters"):
        golden_set_version_freeze(project=project, by=personas.alice, categories=["nope"])
    with pytest.raises(ValueError, match="no approved query"):
        golden_set_version_freeze(project=Project.objects.create(name="Empty"), by=personas.alice)
    assert not project.golden_set_versions.exists()


def test_it_refuses_a_label_that_is_taken_or_malformed(personas):
    project, _, _ = small_project(personas)
    golden_set_version_freeze(project=project, by=personas.alice, label="2026-q4")
    with pytest.raises(ValueError, match="already exists"):
        golden_set_version_freeze(project=project, by=personas.alice, label="2026-q4")
    with pytest.raises(ValueError, match="not valid"):
        golden_set_version_freeze(project=project, by=personas.alice, label="has space")
    with pytest.raises(ValueError, match="reserved"):
        golden_set_version_freeze(project=project, by=personas.alice, label="diff")
    assert project.golden_set_versions.count() == 1
