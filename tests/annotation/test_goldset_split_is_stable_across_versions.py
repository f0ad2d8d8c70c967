"""An optional dev/test split comes from a seeded hash of the query id, so a query keeps its
split in every later version."""

from __future__ import annotations

from annotation.services.goldsets import SplitSpec, golden_set_version_freeze
from goldsmith.formats.goldset import split_for
from tests.annotation.goldset_factories import make_corpus, make_query


def test_a_query_keeps_its_split_in_later_versions(personas):
    project = personas.project
    chunks = make_corpus(project)
    for i in range(40):
        make_query(project, f"question number {i}", {chunks[i % len(chunks)]: i % 3})
    v1 = golden_set_version_freeze(
        project=project, by=personas.alice, split=SplitSpec(seed=7, test_share=0.3)
    )
    first = dict(v1.items.values_list("query_id", "split"))
    assert set(first.values()) == {"dev", "test"}
    assert v1.counts["splits"]["test"] == sum(1 for s in first.values() if s == "test")
    for i in range(40, 60):
        make_query(project, f"question number {i}", {chunks[0]: 1})
    v2 = golden_set_version_freeze(project=project, by=personas.alice)  # inherits the split
    assert (v2.split_seed, v2.test_share) == (7, 0.3)
    second = dict(v2.items.values_list("query_id", "split"))
    assert all(second[qid] == split for qid, split in first.items())
    assert all(s == split_for(q, seed=7, test_share=0.3) for q, s in second.items())


def test_the_split_depends_on_the_seed_and_not_on_the_order():
    ids = [str(i) for i in range(2000)]
    a = [split_for(q, seed=1, test_share=0.5) for q in ids]
    assert a == [split_for(q, seed=1, test_share=0.5) for q in ids]
    assert a != [split_for(q, seed=2, test_share=0.5) for q in ids]
    assert 0.45 < a.count("test") / len(a) < 0.55
