"""Normalisation (NFKC, case, whitespace) and exact de-duplication with counts and first/last
seen; near-duplicates grouped with a configurable threshold, every variant kept visible."""

import json
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from annotation.models import LogQuery
from annotation.selectors.querylogs import top_queries
from annotation.services.querylogs import query_log_import
from goldsmith.intake.normalize import normalize_query

RECORDS = [
    {"query": "How do I parse JSON", "timestamp": "2024-03-02T10:00:00Z", "user": "u1",
     "session": "s1", "category": "json", "feedback": "thumbs_down"},
    {"query": "how  do i parse json", "timestamp": "2024-01-05T08:00:00Z", "user": "u2",
     "session": "s2", "category": "json", "count": 3},
    {"query": "ＨＯＷ do I parse JSON", "timestamp": 1717200000, "user": "u1", "session": "s1",
     "category": "data", "feedback": ["no-click", "Thumbs Down"]},
    {"query": "how do i parse json?", "category": "json"},
    {"query": "how to parse json", "category": "json"},
    {"query": "asyncio gather vs wait", "category": "asyncio"},
]  # fmt: skip


def load(project, tmp_path, **options):
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    return query_log_import(project=project, path=path, **options)


def test_it_merges_exact_duplicates_with_counts_and_dates(personas, tmp_path):
    log = load(personas.project, tmp_path, near_duplicate_threshold=1.0)
    assert (log.lines, log.records, log.volume, log.distinct) == (6, 6, 8, 4)
    merged = LogQuery.objects.get(log=log, normalized="how do i parse json")
    assert merged.text == "How do I parse JSON"  # the first spelling seen, NFKC-normalised
    assert merged.count == 5
    assert merged.first_seen == datetime(2024, 1, 5, 8, tzinfo=UTC)
    assert merged.last_seen == datetime(2024, 6, 1, 0, 0, tzinfo=UTC)
    assert merged.category == "json"  # the most frequent one
    assert merged.feedback == {"thumbs_down": 2, "no_click": 1}
    assert merged.negative == 2
    assert (merged.users, merged.sessions) == (2, 2)  # distinct keyed hashes, not the ids
    assert merged.rank == 0 and merged.band == "head"
    assert normalize_query("  Ｐython\tDocs ") == "python docs"


def test_near_duplicates_are_grouped_and_every_variant_is_kept(personas, tmp_path):
    log = load(personas.project, tmp_path, near_duplicate_threshold=0.6)
    head = LogQuery.objects.get(log=log, normalized="how do i parse json")
    variants = LogQuery.objects.filter(log=log, near_group=head.near_group).exclude(pk=head.pk)
    assert set(variants.values_list("normalized", flat=True)) == {
        "how do i parse json?",
        "how to parse json",
    }
    assert head.is_representative and not any(v.is_representative for v in variants)
    assert (head.group_size, head.group_volume) == (3, 7)
    other = LogQuery.objects.get(log=log, normalized="asyncio gather vs wait")
    assert other.near_group != head.near_group and other.group_size == 1
    assert log.report["near_duplicate_groups"] == 1
    listed = top_queries(log=log)
    assert [len(row["variants"]) for row in listed] == [2, 0]


def test_a_strict_threshold_keeps_them_apart(personas, tmp_path):
    log = load(personas.project, tmp_path, near_duplicate_threshold=0.99)
    assert LogQuery.objects.filter(log=log, is_representative=True).count() == 3


def test_sorted_unique_is_numpys_unique():
    import numpy as np

    from goldsmith.intake.normalize import sorted_unique

    rng = np.random.default_rng(7)
    for values in (
        rng.integers(0, 50, size=1000, dtype=np.uint64),
        rng.integers(-(2**40), 2**40, size=5000),
        np.array([], dtype=np.int64),
        np.array([3], dtype=np.int64),
    ):
        got = sorted_unique(values)
        assert got.dtype == values.dtype
        assert np.array_equal(got, np.unique(values))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.text(alphabet=st.sampled_from("ab cdé\t\n𝔘漢-?"), min_size=0, max_size=12),
        min_size=1,
        max_size=12,
    )
)
def test_the_trigram_vectors_are_scikit_learns(texts):
    """Near-duplicates are grouped by cosine similarity of these vectors: they must be what
    TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 3), sublinear_tf=True) gives."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    from goldsmith.intake.normalize import char_trigram_tfidf

    ours = char_trigram_tfidf(texts)
    try:
        theirs = TfidfVectorizer(
            analyzer="char_wb", ngram_range=(3, 3), sublinear_tf=True
        ).fit_transform(texts)
    except ValueError:  # scikit-learn refuses texts without any 3-gram
        assert ours.nnz == 0
        return
    assert ours.nnz == theirs.nnz
    assert np.allclose((ours @ ours.T).toarray(), (theirs @ theirs.T).toarray(), atol=1e-6)
