"""File formats: strict streaming parsers, FILE:LINE errors, writers that read back."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldsmith import metrics as M
from goldsmith.formats import FormatError, beir, detect, goldset, jsonl, labels, trec
from tests.goldset_files import goldset_text


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def error_of(fn, *args) -> str:
    with pytest.raises(FormatError) as e:
        fn(*args)
    return str(e.value)


def columns(c: M.JudgmentColumns | M.RankingColumns) -> dict:
    out = {"query_ids": c.query_ids, "qidx": c.qidx.tolist(), "ids": c.ids.tolist()}
    if isinstance(c, M.JudgmentColumns):
        out["grades"] = c.grades.tolist()
    else:
        out["scores"] = c.scores.tolist()
        out["ranks"] = c.ranks.tolist()
    return out


# --- TREC qrels -----------------------------------------------------------------------------


def test_trec_qrels_are_read_into_columns(tmp_path):
    p = write(tmp_path, "q.txt", "q1 0 c1 2\nq1 0 c2 0\nq2 0 c1 -1\n")
    q = trec.read_trec_qrels(p)
    assert q.query_ids == ("q1", "q2")
    assert q.qidx.tolist() == [0, 0, 1]
    assert q.ids.tolist() == [b"c1", b"c2", b"c1"]
    assert q.grades.tolist() == [2, 0, -1]


def test_comments_blank_lines_tabs_and_crlf_are_accepted(tmp_path):
    p = write(tmp_path, "q.txt", "# header\r\nq1\t0\tc1\t2\r\n\r\n  q1 0 c#2 1  \r\n")
    q = trec.read_trec_qrels(p)
    assert q.ids.tolist() == [b"c1", b"c#2"] and q.grades.tolist() == [2, 1]


def test_a_non_integer_grade_is_reported_with_file_and_line(tmp_path):
    p = write(tmp_path, "qrels.txt", "q1 0 c1 2\n" * 11 + "q1 0 c2 x\n")
    assert error_of(trec.read_trec_qrels, p) == f"{p}:12: grade 'x' is not an integer"


def test_a_wrong_column_count_is_reported(tmp_path):
    p = write(tmp_path, "q.txt", "q1 0 c1 2\nq1 0 c2\n")
    assert error_of(trec.read_trec_qrels, p).endswith(
        ":2: expected 4 columns (qid iter docno grade), found 3"
    )


def test_a_duplicate_judgment_is_reported_on_its_second_line(tmp_path):
    p = write(tmp_path, "q.txt", "q1 0 c1 2\nq2 0 c1 1\nq1 0 c1 0\n")
    assert error_of(trec.read_trec_qrels, p).endswith(
        ":3: duplicate judgment for query 'q1', docno 'c1' (first on line 1)"
    )


def test_bad_utf8_and_control_characters_are_reported(tmp_path):
    p = write(tmp_path, "q.txt", b"q1 0 c1 2\nq1 0 c\xff 2\n")
    assert ":2: invalid UTF-8" in error_of(trec.read_trec_qrels, p)
    p = write(tmp_path, "q2.txt", b"q1 0 c1 2\nq1 0 c\x01 2\n")
    assert ":2: control character" in error_of(trec.read_trec_qrels, p)


def test_an_empty_qrels_file_is_an_error(tmp_path):
    assert "no judgments" in error_of(trec.read_trec_qrels, write(tmp_path, "q.txt", "# nothing\n"))


def test_errors_deep_in_a_large_file_carry_the_right_line(tmp_path, monkeypatch):
    monkeypatch.setattr(trec, "_BLOCK", 64)  # many small blocks
    lines = [f"q{i % 7} Q0 d{i} {i} {1.5 * i} run\n" for i in range(500)]
    lines[321] = "q1 Q0 dx 3 nan run\n"
    p = write(tmp_path, "r.txt", "".join(lines))
    assert error_of(trec.read_trec_run, p) == f"{p}:322: score 'nan' is not a finite number"


# --- TREC run -------------------------------------------------------------------------------


def test_trec_runs_keep_rank_score_and_run_id(tmp_path):
    p = write(tmp_path, "r.txt", "q1 Q0 c1 1 2.5 bm25\nq1 Q0 c2 2 -1e-3 bm25\nq2 Q0 c1 7 3 bm25\n")
    r = trec.read_trec_run(p)
    assert r.run_id == "bm25"
    assert r.ranks.tolist() == [1, 2, 7]
    assert r.scores.tolist() == [2.5, -0.001, 3.0]
    assert r.id_hash is not None and r.id_hash.tolist() == M.id_hash(r.ids).tolist()


def test_a_non_integer_rank_is_reported(tmp_path):
    p = write(tmp_path, "r.txt", "q1 Q0 c1 1 2.5 x\nq1 Q0 c2 two 2.0 x\n")
    assert error_of(trec.read_trec_run, p).endswith(":2: rank 'two' is not an integer")


def test_scores_parse_exactly_like_float(tmp_path):
    rng = np.random.default_rng(0)
    values = rng.normal(size=300) * 10.0 ** rng.integers(-5, 8, size=300)
    texts = [f"{v:.{d}f}" for v, d in zip(values, rng.integers(0, 12, size=300), strict=True)]
    texts += ["5.", ".5", "-0", "+1.25", "1e5", "123456789012345678", "0.1234567890123456789"]
    p = write(tmp_path, "r.txt", "".join(f"q Q0 d{i} {i} {t} r\n" for i, t in enumerate(texts)))
    assert trec.read_trec_run(p).scores.tolist() == [float(t) for t in texts]


def test_the_block_parser_and_the_line_parser_agree(tmp_path, monkeypatch):
    body = "".join(
        f"q{i // 13} Q0 doc-{i * 7919 % 1000} {i % 50} {i / 7:.5f} r\n" for i in range(2000)
    )
    p = write(tmp_path, "r.txt", body)
    fast = columns(trec.read_trec_run(p))
    monkeypatch.setattr(trec, "_BLOCK", 100)
    small_blocks = columns(trec.read_trec_run(p))
    monkeypatch.setattr(trec, "_scan", lambda block, ncols: None)
    slow = columns(trec.read_trec_run(p))
    assert fast == small_blocks == slow


# --- JSONL ----------------------------------------------------------------------------------


def test_jsonl_runs_are_read_in_list_order(tmp_path):
    lines = [
        {"query_id": "q1", "results": [{"id": "c2", "score": 0.5}, {"id": "c1", "score": 0.9}]},
        {"query_id": 7, "results": [{"id": 3, "text": "extra keys are fine"}]},
    ]
    p = write(tmp_path, "r.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")
    r = jsonl.read_jsonl_run(p)
    assert r.query_ids == ("q1", "7")
    assert r.ids.tolist() == [b"c2", b"c1", b"3"]
    assert r.ranks.tolist() == [1, 2, 1]
    assert np.isnan(r.scores[2])
    assert ":2: results[0] has no score" in error_of(jsonl.read_jsonl_run, p, True)


def test_jsonl_errors_name_the_line(tmp_path):
    p = write(tmp_path, "r.jsonl", '{"query_id": "q", "results": []}\n{"query_id": "q", \n')
    assert ":2: invalid JSON" in error_of(jsonl.read_jsonl_run, p)
    p = write(tmp_path, "r2.jsonl", '{"query_id": "q", "results": []}\n' * 2)
    assert error_of(jsonl.read_jsonl_run, p).endswith(":2: query 'q' appears twice")
    p = write(tmp_path, "r3.jsonl", '{"query_id": "q", "results": [{"id": "a", "score": NaN}]}\n')
    assert ":1: invalid JSON" in error_of(jsonl.read_jsonl_run, p)


def test_jsonl_qrels_keep_queries_without_judgments(tmp_path):
    p = write(
        tmp_path,
        "q.jsonl",
        '{"query_id": "q1", "judgments": [{"id": "a", "grade": 2}]}\n'
        '{"query_id": "q2", "judgments": []}\n',
    )
    q = jsonl.read_jsonl_qrels(p)
    assert q.query_ids == ("q1", "q2") and q.grades.tolist() == [2]
    bad = write(tmp_path, "b.jsonl", '{"query_id": "q1", "judgments": [{"id": "a", "grade": 1.5}]}')
    assert error_of(jsonl.read_jsonl_qrels, bad).endswith(":1: grade 1.5 is not an integer")


# --- golden set -----------------------------------------------------------------------------


def golden() -> list[goldset.GoldenQuery]:
    return [
        goldset.GoldenQuery(
            "q2",
            "how do I reset my password?",
            (goldset.GoldJudgment("c9", 2, "doc-1", 0, 120, "unanimous", "Open settings…"),),
            category="account",
            stratum="head",
            split="test",
            reference_answer="Use the settings page.",
        ),
        goldset.GoldenQuery("q1", "refund policy", (), category="billing", weight=2.5),
    ]


def test_a_goldset_reads_back_what_was_written(tmp_path):
    text = goldset_text("acme", "v1", golden(), created_at="2024-01-01T00:00:00Z", note="first")
    p = write(tmp_path, "g.jsonl", text)
    gs = goldset.read_goldset(p)
    assert (gs.header.project, gs.header.label) == ("acme", "v1")
    assert gs.header.content_hash == goldset.goldset_content_hash(golden())
    assert gs.header.created_at == "2024-01-01T00:00:00Z" and gs.header.extra == {"note": "first"}
    assert gs.header.query_count == 2 and gs.header.judgment_count == 1
    assert [q.query_id for q in gs.queries] == ["q1", "q2"]
    assert gs.queries[1] == golden()[0]
    assert detect.detect_format(p) == "goldset"
    cols = detect.read_qrels(p)
    assert cols.query_ids == ("q1", "q2") and cols.ids.tolist() == [b"c9"]


def test_the_content_hash_ignores_order_and_header(tmp_path):
    a = goldset.goldset_content_hash(golden())
    assert a == goldset.goldset_content_hash(list(reversed(golden())))
    assert a.startswith("sha256:") and len(a) == 7 + 64


def test_a_tampered_goldset_fails_its_hash(tmp_path):
    text = goldset_text("acme", "v1", golden()).replace('"grade": 2', '"grade": 1')
    p = write(tmp_path, "g.jsonl", text)
    assert ":1: content_hash" in error_of(goldset.read_goldset, p)


def test_goldset_lines_are_checked_strictly(tmp_path):
    head, *rest = goldset_text("acme", "v1", golden()).splitlines()
    q = json.loads(rest[0]) | {"colour": "red"}
    p = write(tmp_path, "g.jsonl", "\n".join([head, json.dumps(q), rest[1]]) + "\n")
    assert error_of(goldset.read_goldset, p).endswith(":2: query line has unknown key 'colour'")
    h = json.loads(head) | {"format_version": 2}
    p = write(tmp_path, "g2.jsonl", "\n".join([json.dumps(h), *rest]) + "\n")
    assert ":1: unsupported format_version 2" in error_of(goldset.read_goldset, p)


def test_format_detection_tells_trec_from_jsonl(tmp_path):
    assert detect.detect_format(write(tmp_path, "a", "\n\nq 0 d 1\n")) == "trec"
    jsonl_run = write(tmp_path, "b", '{"query_id": "q", "results": []}\n')
    assert detect.detect_format(jsonl_run) == "jsonl"
    # A query id may begin with "{": a TREC line is still TREC (hypothesis found "{" as an id).
    assert detect.detect_format(write(tmp_path, "c", "{ Q0 doc-1 1 0.5 mine\n")) == "trec"
    assert detect.detect_format(write(tmp_path, "d", "{q} 0 doc-1 2\n")) == "trec"
    # A broken JSON line stays JSONL, so that its error is JSON's, with its column.
    assert detect.detect_format(write(tmp_path, "e", '{"query_id": "q", results: []}\n')) == "jsonl"


# --- writers --------------------------------------------------------------------------------


def test_written_trec_files_read_back_bit_identical(tmp_path):
    rows = [("q1", "c1", 1, 0.1 + 0.2), ("q1", "c2", 2, -1e-300), ("q2", "c1", 1, 12345.678)]
    buf = io.StringIO()
    trec.write_trec_run(buf, rows, "mine")
    r = trec.read_trec_run(write(tmp_path, "r.txt", buf.getvalue()))
    assert r.scores.tolist() == [s for *_, s in rows] and r.run_id == "mine"
    qrels = "".join(trec.trec_qrels_pieces([("q1", "c1", 2), ("q1", "c2", 0)]))
    assert trec.read_trec_qrels(write(tmp_path, "q.txt", qrels)).grades.tolist() == [2, 0]


def test_the_qrels_writer_refuses_ids_a_trec_file_cannot_hold():
    for qid, doc in [
        ("q 1", "c1"),
        ("q1", "a chunk"),
        ("", "c1"),
        ("q1", ""),
        ("#q", "c1"),
        ("q1", "c1 "),  # whitespace at an id's edge would be lost on reading
        ("q1\t", "c1"),
        ("q1", "\u3000c1"),
    ]:
        with pytest.raises(ValueError, match="cannot go in a TREC file"):
            "".join(trec.trec_qrels_pieces([("q0", "c0", 1), (qid, doc, 2)]))


def test_the_qrels_writer_refuses_control_characters_the_reader_would_refuse():
    for qid, doc in [("q\x00", "c1"), ("q1", "c\x01"), ("q1", "c\x1b[0m"), ("q\x7f", "c1")]:
        rows = [("q0", "c0", 1), (qid, doc, 2)]
        if qid == "q\x7f":  # DEL is no control character to the readers: written and read back
            assert "".join(trec.trec_qrels_pieces(rows)).endswith("q\x7f 0 c1 2\n")
            continue
        with pytest.raises(ValueError, match="control character cannot go in a TREC file"):
            "".join(trec.trec_qrels_pieces(rows))
        with pytest.raises(ValueError, match="cannot be written to a TREC file"):
            trec.write_trec_run(io.StringIO(), [(qid, doc, 1, 1.0)])


def test_the_qrels_writer_knows_every_whitespace_and_control_character():
    unwritable = {chr(c) for c in range(0x110000) if trec._UNWRITABLE.match(chr(c))}
    expected = {chr(c) for c in range(0x110000) if chr(c).isspace() or c < 32} - {" ", "\n"}
    assert unwritable == expected


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=1, max_size=8), st.text(min_size=1, max_size=8))
def test_what_the_qrels_writer_accepts_the_reader_reads_back(qid, doc):
    """Any ids at all: the writer either refuses them or writes a line that reads back."""
    try:
        text = "".join(trec.trec_qrels_pieces([(qid, doc, 1)]))
    except ValueError:
        return
    with tempfile.TemporaryDirectory() as d:
        try:
            qrels = trec.read_trec_qrels(write(Path(d), "q.txt", text))
        except UnicodeEncodeError:  # a lone surrogate cannot be written as UTF-8 at all
            return
    assert list(qrels.query_ids) == [qid] and bytes(qrels.ids[0]).decode() == doc


# Ids a TREC file can hold; control characters are left out: the reader refuses them.
trec_id = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=10
).filter(lambda s: not any(c.isspace() for c in s))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            trec_id.filter(lambda s: not s.startswith("#")),
            trec_id,
            st.integers(min_value=-1, max_value=3),
        ),
        min_size=1,
        max_size=20,
        unique_by=lambda row: (row[0], row[1]),
    )
)
def test_written_qrels_read_back_as_the_rows_given(rows):
    text = "".join(trec.trec_qrels_pieces(rows))
    assert text == "".join(f"{q} 0 {d} {g}\n" for q, d, g in rows)
    with tempfile.TemporaryDirectory() as d:
        qrels = trec.read_trec_qrels(write(Path(d), "q.txt", text))
    read = [
        (qrels.query_ids[int(i)], bytes(doc).decode(), int(g))
        for i, doc, g in zip(qrels.qidx, qrels.ids, qrels.grades, strict=True)
    ]
    assert read == rows


# --- BEIR -----------------------------------------------------------------------------------


def test_beir_metadata_numbers_are_read_as_text_and_other_values_as_none(tmp_path):
    """A version stores these fields as text and hashes what it stores: a number in a BEIR
    file's metadata becomes its text, so the hash at import is the hash of the stored rows."""
    folder = tmp_path / "beir"
    (folder / "qrels").mkdir(parents=True)
    meta = {"category": 5, "stratum": ["head"], "split": 2.5, "reference_answer": None}
    write(folder, "queries.jsonl", json.dumps({"_id": "q1", "text": "x", "metadata": meta}))
    write(folder, "qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\tc1\t2\n")
    (q,) = beir.read_beir(folder).queries
    assert (q.category, q.stratum, q.split, q.reference_answer) == ("5", None, "2.5", None)


# --- labels CSV -----------------------------------------------------------------------------


def test_labels_csv_is_read_with_optional_group(tmp_path):
    p = write(tmp_path, "l.csv", "group,item,annotator,label\nq1,c1,ann,2\nq1,c1,bob,1\n")
    rows = labels.read_labels_csv(p)
    assert rows == [labels.LabelRow("c1", "ann", 2, "q1"), labels.LabelRow("c1", "bob", 1, "q1")]


def test_labels_csv_errors_name_the_line(tmp_path):
    p = write(tmp_path, "l.csv", "item,annotator,label\nc1,ann,2\nc1,bob,x\n")
    assert error_of(labels.read_labels_csv, p) == f"{p}:3: label 'x' is not an integer"
    p = write(tmp_path, "l2.csv", "item,annotator\nc1,ann\n")
    assert error_of(labels.read_labels_csv, p).endswith(":1: missing column 'label' in the header")
    p = write(tmp_path, "l3.csv", "item,annotator,label\nc1,ann,2\nc1,ann,1\n")
    assert ":3: annotator 'ann' labels item 'c1' twice" in error_of(labels.read_labels_csv, p)


# --- fuzzing --------------------------------------------------------------------------------

READERS = [
    trec.read_trec_qrels,
    trec.read_trec_run,
    jsonl.read_jsonl_run,
    jsonl.read_jsonl_qrels,
    goldset.read_goldset,
    labels.read_labels_csv,
    detect.read_qrels,
    detect.read_run,
]


def parse_bytes(reader, data: bytes):
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "f"
        p.write_bytes(data)
        try:
            return ("ok", reader(p))
        except FormatError as e:
            return ("error", str(e).split(":", 1)[1])


@given(st.binary(max_size=400))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_arbitrary_bytes_raise_only_format_errors(data):
    for reader in READERS:
        parse_bytes(reader, data)


token = st.text(alphabet="0123456789-.eE+#xq\u00e9", min_size=1, max_size=6)


@st.composite
def trec_line(draw: st.DrawFn) -> str:
    toks = draw(st.lists(token, min_size=3, max_size=7))
    gap = draw(st.sampled_from([" ", "\t", "  ", " \t"]))
    return gap.join(toks) + draw(st.sampled_from(["\n", "\r\n", " \n", "\n\n"]))


@given(st.lists(trec_line(), max_size=30))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_block_parser_never_disagrees_with_the_line_parser(lines):
    data = "".join(lines).encode()
    for reader in (trec.read_trec_qrels, trec.read_trec_run):
        fast = parse_bytes(reader, data)
        original = trec._scan
        trec._scan = lambda block, ncols: None  # type: ignore[assignment]
        try:
            slow = parse_bytes(reader, data)
        finally:
            trec._scan = original  # type: ignore[assignment]
        assert fast[0] == slow[0]
        if fast[0] == "ok":
            assert columns(fast[1]) == columns(slow[1])
        else:
            assert fast[1] == slow[1]
