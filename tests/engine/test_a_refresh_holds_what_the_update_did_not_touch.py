"""Properties of the refresh plan (goldsmith.refresh): against an unchanged corpus it is the same
version (same content hash); a carried grade is never another grade; a query whose relevant
chunks the update left alone is never touched."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from goldsmith.corpus import text_sha256
from goldsmith.formats.goldset import QueryRecord, goldset_content_hash, record_order
from goldsmith.refresh import FrozenRow, placed, refresh_plan, rows_after

PROVENANCES = ["unanimous", "majority"]
WORDS = ["alpha", "beta", "gamma", "delta", "10", "kg"]


@st.composite
def corpus_and_golden(draw):
    n = draw(st.integers(1, 12))
    texts = [
        " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5))) for _ in range(n)
    ]
    chunks = {}
    at = 0
    for i, text in enumerate(texts):
        doc = f"d{i % 3}"
        chunks[f"c{i}"] = placed(f"c{i}", text_sha256(text), text, doc, at, at + len(text))
        at += len(text) + 1
    golden = {}
    for q in range(draw(st.integers(1, 6))):
        ids = draw(st.lists(st.sampled_from(sorted(chunks)), unique=True, max_size=5))
        golden[f"q{q}"] = sorted(
            (
                FrozenRow(c, draw(st.integers(0, 2)), chunks[c].doc_id, chunks[c].start,
                          chunks[c].end, chunks[c].text, draw(st.sampled_from(PROVENANCES)))
                for c in ids
            ),
            key=lambda r: (-r.grade, r.chunk_id),
        )  # fmt: skip
    return chunks, golden


@st.composite
def updated(draw):
    chunks, golden = draw(corpus_and_golden())
    live = {}
    for cid, c in chunks.items():
        op = draw(st.sampled_from(["keep", "punct", "change", "retire"]))
        if op == "retire":
            continue
        text = {"keep": c.text, "punct": f" {c.text}, !", "change": f"{c.text} 10"}[op]
        live[cid] = placed(cid, text_sha256(text), text, c.doc_id, c.start, c.end)
    for i in range(draw(st.integers(0, 3))):
        text = "alpha beta"
        live[f"new{i}"] = placed(f"new{i}", text_sha256(text), text, "d0", 3 * i, 3 * i + 10)
    return chunks, golden, live


def records(golden) -> list[QueryRecord]:
    return [
        QueryRecord(q, q, None, None, 1.0, None, None,
                    sorted(((r.chunk_id, r.doc_id, r.start, r.end, r.text, r.grade, r.provenance)
                            for r in rows), key=record_order))
        for q, rows in sorted(golden.items())
    ]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(corpus_and_golden())
def test_a_refresh_against_an_unchanged_corpus_is_the_same_version(case):
    chunks, golden = case
    plan = refresh_plan(golden, chunks)
    assert plan.identical and plan.counts()["touched"] == 0
    after = {
        q: rows_after(plan.queries[q], {}) if q in plan.queries else rows
        for q, rows in golden.items()
    }
    assert goldset_content_hash(records(after)) == goldset_content_hash(records(golden))


@settings(max_examples=200, deadline=None)
@given(updated())
def test_a_carried_grade_is_never_another_grade(case):
    _chunks, golden, live = case
    plan = refresh_plan(golden, live)
    for q, p in plan.queries.items():
        frozen = {r.chunk_id: r for r in golden[q]}
        for held in p.held:
            assert held.row.grade == frozen[held.was].grade
            if held.why != "kept":
                assert held.row.provenance == "carried"
                assert held.row.chunk_id in live


@settings(max_examples=200, deadline=None)
@given(updated())
def test_a_query_whose_relevant_chunks_are_untouched_is_never_touched(case):
    _chunks, golden, live = case
    plan = refresh_plan(golden, live)
    for q, rows in golden.items():
        relevant = [r for r in rows if r.grade >= 1]
        moved = [
            r for r in relevant
            if r.chunk_id not in live
            or "".join(ch for ch in live[r.chunk_id].text if ch.isalnum())
            != "".join(ch for ch in (r.text or "") if ch.isalnum())
        ]  # fmt: skip
        if not moved:
            assert q not in plan.effect.touched
            assert not (q in plan.queries and plan.queries[q].touched)
            assert not (q in plan.queries and plan.queries[q].asked)
