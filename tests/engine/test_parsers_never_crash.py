"""Fuzzing the readers: whatever the bytes, they yield records or raise ReadError, nothing else."""

import io

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldsmith.intake.readers import ReadError, read_corpus, read_querylog

FRAGMENTS = st.sampled_from(
    [b'{"id": "c1", "doc_id": "d", "text": "t"}', b'{"query": "q", "count": 2}', b"query,count",
     b"id,doc_id,text", b'"', b",", b"\n", b"\r\n", b"{", b"}", b"\xff", b"\x00", b"\xef\xbb\xbf",
     b'"start": -1', b'"timestamp": "2024-13-01"', b'"feedback": [1]', b"9" * 30, b"[[[[[[",
     b"a,b,c", b'"metadata": "x"', b"null", b"\xc3"]
)  # fmt: skip
CONTENT = st.one_of(
    st.binary(max_size=400),
    st.lists(FRAGMENTS, max_size=30).map(b"".join),
    st.lists(st.text(max_size=30), max_size=10).map(lambda xs: "\n".join(xs).encode("utf-8")),
)


def drain(iterator) -> None:
    for _ in iterator:
        pass


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=CONTENT, name=st.sampled_from(["f.jsonl", "f.csv"]))
def test_the_corpus_reader_raises_only_read_errors(content, name):
    try:
        drain(read_corpus(io.BytesIO(content), name))
    except ReadError as error:
        assert str(error).startswith(name)
        assert "\n" not in error.reason


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=CONTENT, name=st.sampled_from(["f.jsonl", "f.csv", "f.txt"]))
def test_the_query_log_reader_raises_only_read_errors(content, name):
    try:
        drain(read_querylog(io.BytesIO(content), name))
    except ReadError as error:
        assert str(error).startswith(name)
