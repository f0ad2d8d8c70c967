"""The content hash has one definition (`goldsmith.formats.goldset`). It used to be computed
three ways: `goldset_content_hash` over GoldenQuery objects (the native reader, the command line),
`records_content_hash` over plain rows (the freeze and the import) and `StreamingHash` (the export
and the stored-rows check). Frozen versions store hashes made that way and exported files carry
them in their headers, so the one definition must give the same hash: checked on the Cranfield
collection, against a hash those three computed, and on generated queries of every script."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith.formats.beir import cranfield_to_beir, read_beir
from goldsmith.formats.goldset import (
    GoldenQuery,
    GoldJudgment,
    QueryRecord,
    StreamingHash,
    goldset_content_hash,
    parse_grade_map,
)
from tests.conftest import require_shared_data

# Cranfield as BEIR with the grade map of its PROVENANCE.md (225 queries, 1,612 judgments with
# their texts), hashed by each of the three former definitions before they were merged.
CRANFIELD_HASH = "sha256:aad2a44b36221da1b2b3a3630d94c603465ab8a272e465253a1d621508800105"


# The three former definitions, as they were.


def former_goldset_content_hash(queries: Iterable[GoldenQuery]) -> str:
    h = hashlib.sha256()
    for q in sorted(queries, key=lambda q: q.query_id):
        canonical = json.dumps(
            q.to_json(), sort_keys=True, ensure_ascii=False, separators=(",", ":")
        ).encode()
        h.update(canonical + b"\n")
    return "sha256:" + h.hexdigest()


def former_records_content_hash(records: Iterable[QueryRecord]) -> str:
    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    h = hashlib.sha256()
    for r in sorted(records, key=lambda r: r.query_id):
        obj = {
            "category": r.category,
            "judgments": [
                {"chunk_id": c, "doc_id": d, "end": e, "grade": g, "provenance": p,
                 "start": s, "text": t}
                for c, d, s, e, t, g, p in r.judgments
            ],
            "query": r.query,
            "query_id": r.query_id,
            "reference_answer": r.reference_answer,
            "split": r.split,
            "stratum": r.stratum,
            "weight": r.weight,
        }  # fmt: skip
        h.update(encode(obj).encode() + b"\n")
    return "sha256:" + h.hexdigest()


def former_streaming_hash(queries_in_order: Iterable[GoldenQuery]) -> str:
    h = hashlib.sha256()
    for q in queries_in_order:
        canonical = json.dumps(
            q.to_json(), sort_keys=True, ensure_ascii=False, separators=(",", ":")
        )
        h.update(canonical.encode() + b"\n")
    return "sha256:" + h.hexdigest()


def every_way(queries: list[GoldenQuery]) -> dict[str, str]:
    """The hash of `queries` by the one definition, fed every way the app feeds it, and by the
    three former definitions."""
    in_order = sorted(queries, key=lambda q: q.query_id)
    records = [QueryRecord.of(q) for q in queries]
    streamed = StreamingHash()
    for q in in_order:
        streamed.add(q)
    streamed_records = StreamingHash()
    for r in sorted(records, key=lambda r: r.query_id):
        streamed_records.add(r)
    return {
        "queries": goldset_content_hash(queries),
        "records": goldset_content_hash(records),
        "streamed queries": streamed.hexdigest(),
        "streamed records": streamed_records.hexdigest(),
        "former goldset_content_hash": former_goldset_content_hash(queries),
        "former records_content_hash": former_records_content_hash(records),
        "former StreamingHash": former_streaming_hash(in_order),
    }


def test_cranfield_hashes_as_it_did_before_the_merge(tmp_path):
    cranfield_to_beir(require_shared_data("cranfield"), tmp_path / "cranfield")
    grade_map = parse_grade_map("1:2,2:2,3:1,4:1,-1:drop")
    queries = read_beir(tmp_path / "cranfield", grade_map=grade_map).queries
    assert (len(queries), sum(len(q.judgments) for q in queries)) == (225, 1612)
    hashes = every_way(queries)
    assert hashes == dict.fromkeys(hashes, CRANFIELD_HASH)


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


@settings(max_examples=300, deadline=None)
@given(st.lists(query, max_size=6, unique_by=lambda q: q.query_id))
def test_the_one_hash_equals_each_former_definition(queries):
    hashes = every_way(queries)
    assert len(set(hashes.values())) == 1, hashes
