"""The freeze hashes plain rows, for speed; it must give exactly what the engine's
`goldset_content_hash` gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith.formats.goldset import (
    GoldenQuery,
    GoldJudgment,
    QueryRecord,
    goldset_content_hash,
    records_content_hash,
)

text = st.text(max_size=30)
maybe_text = st.none() | text
maybe_int = st.none() | st.integers(min_value=0, max_value=10**9)
judgment = st.builds(
    GoldJudgment,
    chunk_id=st.text(min_size=1, max_size=12),
    grade=st.integers(min_value=0, max_value=2),
    doc_id=maybe_text,
    start=maybe_int,
    end=maybe_int,
    provenance=st.sampled_from([None, "unanimous", "majority", "adjudicated"]),
    text=maybe_text,
)
query = st.builds(
    GoldenQuery,
    query_id=st.text(min_size=1, max_size=8),
    query=text,
    judgments=st.lists(judgment, max_size=4).map(tuple),
    category=maybe_text,
    stratum=maybe_text,
    weight=st.floats(min_value=1e-6, max_value=1e6, allow_nan=False),
    split=st.sampled_from([None, "dev", "test"]),
    reference_answer=maybe_text,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(query, max_size=6, unique_by=lambda q: q.query_id))
def test_the_fast_hash_equals_the_engines_hash(queries):
    records = [QueryRecord.of(q) for q in queries]
    assert records_content_hash(records) == goldset_content_hash(queries)
