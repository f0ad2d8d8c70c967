"""Fact agreement: matched facts (identical non-empty chunk sets, one to one) over distinct
facts; the worked examples of docs/design.md and its properties on random drafts."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from goldsmith.fact_agreement import (
    FactAgreement,
    matched_pairs,
    pair_agreement,
    project_agreement,
    query_agreement,
    supports,
)

CHUNKS = st.sampled_from(["c1", "c2", "c3", "c4"])
FACTS = st.lists(st.lists(CHUNKS, max_size=3), max_size=6)


def test_the_worked_example():
    # A: refund period [c1], exceptions [c2, c3], unsupported []; B: [c1], [c3, c2], [c4]
    a = supports([["c1"], ["c2", "c3"], []])
    b = supports([["c1"], ["c3", "c2"], ["c4"]])
    got = pair_agreement(a, b)
    assert (got.matched, got.distinct) == (2, 4)
    assert got.value == 0.5
    assert matched_pairs(a, b) == [(0, 0), (1, 1)]


def test_no_facts_on_either_side_is_undefined_and_one_draft_is_no_query():
    assert pair_agreement([], []).value is None
    assert query_agreement({"bob": supports([["c1"]])}) == FactAgreement()
    assert pair_agreement(supports([["c1"]]), []).value == 0.0


def test_unsupported_facts_never_match():
    got = pair_agreement(supports([[]]), supports([[]]))
    assert (got.matched, got.distinct, got.value) == (0, 2, 0.0)


def test_repeated_supports_match_one_to_one():
    got = pair_agreement(supports([["c1"], ["c1"]]), supports([["c1"]]))
    assert (got.matched, got.distinct) == (1, 2)


def test_the_project_pools_matched_and_distinct_facts():
    q1 = query_agreement({"bob": supports([["c1"]]), "carol": supports([["c1"]])})
    q2 = query_agreement({"bob": supports([["c1"], ["c2"], ["c3"]]), "carol": supports([])})
    total = project_agreement([q1, q2, FactAgreement()])
    assert (total.matched, total.distinct, total.queries) == (1, 4, 2)
    assert total.value == 0.25


@given(FACTS, FACTS)
def test_a_pair_is_symmetric_bounded_and_order_free(a, b):
    sa, sb = supports(a), supports(b)
    ab, ba = pair_agreement(sa, sb), pair_agreement(sb, sa)
    assert (ab.matched, ab.distinct) == (ba.matched, ba.distinct)
    assert 0 <= ab.matched <= min(len(a), len(b))
    assert ab.distinct == len(a) + len(b) - ab.matched
    if ab.value is not None:
        assert 0.0 <= ab.value <= 1.0
    assert pair_agreement(sa[::-1], [frozenset(reversed(sorted(s))) for s in sb]) == ab
    assert len(matched_pairs(sa, sb)) == ab.matched
    for i, j in matched_pairs(sa, sb):
        assert sa[i] == sb[j] and sa[i]


@given(FACTS)
def test_identical_supported_facts_agree_fully(a):
    s = [x for x in supports(a) if x]
    got = pair_agreement(s, list(s))
    assert got.value == (1.0 if s else None)


@given(st.dictionaries(st.sampled_from(["bob", "carol", "dan"]), FACTS, max_size=3))
def test_a_query_sums_its_pairs(drafts):
    got = query_agreement({k: supports(v) for k, v in drafts.items()})
    if len(drafts) < 2:
        assert got == FactAgreement()
        return
    pairs = [
        pair_agreement(supports(drafts[x]), supports(drafts[y]))
        for x, y in itertools.combinations(sorted(drafts), 2)
    ]
    assert got.matched == sum(p.matched for p in pairs)
    assert got.distinct == sum(p.distinct for p in pairs)
    assert got.queries == 1
