"""`goldsmith.corpus`: which golden queries an update of the corpus touched, and the hash of a
corpus (the engine's rules behind corpus versions and stale reports)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldsmith.corpus import (
    JudgedChunk,
    LiveChunk,
    chunk_fate,
    corpus_effect,
    corpus_hash,
    text_key,
    text_sha256,
)

ids = st.text(min_size=1, max_size=6)
texts = st.text(max_size=12)


def judged(chunk_id: str, grade: int, text: str | None) -> JudgedChunk:
    sha = None if text is None else text_sha256(text)
    return JudgedChunk(chunk_id, grade, sha, text)


def test_each_fate_of_a_graded_chunk():
    graded = judged("c1", 2, "Refunds take 7 days.")
    assert chunk_fate(graded, None) == "retired"
    assert chunk_fate(graded, LiveChunk(text_sha256("Refunds take 7 days."))) == "kept"
    spaced = "Refunds  take 7 days"
    assert chunk_fate(graded, LiveChunk(text_sha256(spaced), spaced)) == "carried"
    other = "Refunds take 14 days."
    assert chunk_fate(graded, LiveChunk(text_sha256(other), other)) == "changed"
    assert chunk_fate(JudgedChunk("c1", 2), LiveChunk("any")) == "kept"  # graded text unknown


def test_chinese_full_width_punctuation_is_only_punctuation():
    assert text_key("退款，七天到账。") == text_key("退款,七天到账")
    assert text_key("退款七天到账") != text_key("退款十天到账")


def test_the_effect_counts_relevant_chunks_and_partitions_the_queries():
    golden = {
        "q1": [judged("a", 2, "alpha"), judged("b", 0, "beta")],
        "q2": [judged("c", 1, "gamma")],
        "q3": [judged("d", 2, "delta")],
        "q4": [judged("e", 0, "eps")],
    }
    live = {
        "a": LiveChunk(text_sha256("alpha"), "alpha"),
        "b": LiveChunk(text_sha256("BETA"), "BETA"),  # graded 0: does not touch q1
        "d": LiveChunk(text_sha256("delta!"), "delta!"),  # carried
        "e": LiveChunk(text_sha256("eps"), "eps"),
    }
    effect = corpus_effect(golden, live)
    assert effect.touched == {"q2"}
    assert effect.untouched == {"q1", "q3", "q4"}
    assert (effect.relevant_total, effect.relevant_retired, effect.relevant_changed) == (3, 1, 0)
    assert effect.relevant_carried == 1
    assert effect.queries["q1"].chunks("changed", relevant_only=False) == ["b"]
    assert effect.queries["q2"].chunks("retired") == ["c"]


golden_sets = st.dictionaries(
    ids,
    st.lists(st.builds(judged, ids, st.integers(0, 3), st.one_of(st.none(), texts)), max_size=4),
    max_size=8,
)


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    st.dictionaries(ids, st.one_of(st.none(), texts), min_size=1, max_size=8),
    st.data(),
)
def test_an_unchanged_corpus_touches_nothing(corpus, data):
    chunk_ids = sorted(corpus)
    golden = data.draw(
        st.dictionaries(
            ids,
            st.lists(st.tuples(st.sampled_from(chunk_ids), st.integers(0, 3)), max_size=4),
            max_size=8,
        )
    )
    graded = {q: [judged(c, g, corpus[c]) for c, g in pairs] for q, pairs in golden.items()}
    live = {c: LiveChunk(text_sha256(t or ""), t) for c, t in corpus.items()}
    effect = corpus_effect(graded, live)
    assert not effect.touched
    assert effect.untouched == set(golden)
    assert effect.relevant_retired == effect.relevant_changed == effect.relevant_carried == 0


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(
    golden_sets,
    st.dictionaries(ids, st.builds(LiveChunk, st.text(max_size=3), texts), max_size=8),
)
def test_a_query_whose_relevant_chunks_are_untouched_is_never_touched(golden, live):
    effect = corpus_effect(golden, live)
    assert effect.touched | effect.untouched == set(golden)
    assert not effect.touched & effect.untouched
    for query_id, chunks in golden.items():
        seen: set[str] = set()
        fates = []
        for c in chunks:
            if c.chunk_id not in seen and c.grade >= 1:
                fates.append(chunk_fate(c, live.get(c.chunk_id)))
            seen.add(c.chunk_id)
        moved = any(f in ("changed", "retired") for f in fates)
        assert (query_id in effect.touched) == moved


@given(st.lists(st.tuples(ids, st.text(max_size=8)), unique_by=lambda p: p[0]), st.randoms())
def test_the_corpus_hash_ignores_the_order_chunks_come_in(pairs, rng):
    shuffled = list(pairs)
    rng.shuffle(shuffled)
    assert corpus_hash(pairs) == corpus_hash(shuffled)
    assert corpus_hash(pairs).startswith("sha256:")
    if pairs:
        assert corpus_hash(pairs[1:]) != corpus_hash(pairs)
