"""RAGAS datasets: exported from a golden set and a run (JSONL), loaded by the ``datasets``
package's JSON loader with the expected columns, and read back byte for byte. RAGAS's own
loaders and its ID-based context recall are in test_ragas_reads_our_datasets_as_we_claim.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldsmith.answers.model import AnswerKey, Context, KeyFact, RankedItem, StagedQuery
from goldsmith.formats import FormatError, goldset
from goldsmith.formats.ragas import (
    GOLDEN_COLUMNS,
    RUN_COLUMNS,
    RagasRow,
    ragas_answer_keys,
    ragas_jsonl_lines,
    ragas_rows,
    read_ragas_jsonl,
)

GOLD = goldset.GoldSet(
    goldset.GoldsetHeader("acme", "v1", "sha256:x"),
    (
        goldset.GoldenQuery(
            "q1",
            "How long is the refund period?",
            (
                goldset.GoldJudgment("c7", 2, text="The refund period is 7 days."),
                goldset.GoldJudgment("c8", 2, text="Exceptions: beyond 7 days, none."),
                goldset.GoldJudgment("c9", 0, text="=HYPERLINK(1)"),
            ),
            reference_answer="7 days",
            answer_type="number",
            reference_facts=(KeyFact("refund period is 7 days", ("c7",)),),
        ),
        goldset.GoldenQuery(
            "q2",
            "退款需要什么？",
            (goldset.GoldJudgment("c1", 2, text="退款需要订单号。"),),
        ),
    ),
)
RUN = [
    StagedQuery(
        "q1",
        results=(RankedItem("c9", 1.0, "=HYPERLINK(1)"), RankedItem("c7", 0.5, "The refund...")),
        response="7 days",
    ),
    StagedQuery("q2", contexts=(Context("c1", "退款需要订单号。"),), response="订单号"),
]


def chunks_of(gs: goldset.GoldSet) -> dict[str, list[tuple[str, str | None, int]]]:
    return {q.query_id: [(j.chunk_id, j.text, j.grade) for j in q.judgments] for q in gs.queries}


def test_reference_contexts_are_the_chunks_the_facts_link_else_the_relevant_ones():
    rows = ragas_rows(goldset.goldset_answer_keys(GOLD), chunks_of(GOLD), RUN, k=5)
    assert rows[0].reference_context_ids == ("c7",)
    assert rows[0].reference_contexts == ("The refund period is 7 days.",)
    assert rows[1].reference_context_ids == ("c1",) and rows[1].reference is None
    assert rows[0].retrieved_context_ids == ("c9", "c7") and rows[0].response == "7 days"
    assert rows[1].retrieved_contexts == ("退款需要订单号。",)


@pytest.fixture
def datasets_module(tmp_path, monkeypatch):
    # Offline, and its caches under the test's directory (read when the package is imported).
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    datasets = pytest.importorskip(
        "datasets", reason="the datasets package (dev extra) is not installed"
    )
    return datasets, str(tmp_path / "hf-cache")


@pytest.mark.parametrize("with_run", [False, True])
def test_the_export_loads_with_the_datasets_json_loader(tmp_path, datasets_module, with_run):
    datasets, cache = datasets_module
    rows = ragas_rows(goldset.goldset_answer_keys(GOLD), chunks_of(GOLD), RUN if with_run else None)
    columns = [*GOLDEN_COLUMNS, *(RUN_COLUMNS if with_run else ())]
    jl = tmp_path / "ragas.jsonl"
    jl.write_text("".join(ragas_jsonl_lines(rows)), encoding="utf-8")
    ds = datasets.load_dataset("json", data_files=str(jl), split="train", cache_dir=cache)
    assert ds.column_names == columns and ds.num_rows == 2
    assert ds[0]["user_input"] == "How long is the refund period?"
    assert ds[0]["reference_contexts"] == ["The refund period is 7 days."]
    if with_run:
        assert ds[1]["retrieved_contexts"] == ["退款需要订单号。"] and ds[1]["response"] == "订单号"


text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20)
ident = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    min_size=1,
    max_size=6,
)


@st.composite
def samples(draw):
    with_run = draw(st.booleans())
    rows = []
    for n in range(draw(st.integers(0, 4))):
        ref_ids = draw(st.lists(ident, max_size=3))
        got_ids = draw(st.lists(ident, max_size=3))
        rows.append(
            RagasRow(
                query_id=f"q{n}",
                user_input=draw(text.filter(bool)),
                reference=draw(st.none() | text.filter(bool)),
                reference_contexts=tuple(draw(text) for _ in ref_ids),
                reference_context_ids=tuple(ref_ids),
                retrieved_contexts=tuple(draw(text) for _ in got_ids) if with_run else None,
                retrieved_context_ids=tuple(got_ids) if with_run else None,
                response=draw(st.none() | text.filter(bool)) if with_run else None,
            )
        )
    return rows


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(samples())
def test_ragas_files_read_back_byte_for_byte(tmp_path, rows):
    if not rows:
        return
    first = "".join(ragas_jsonl_lines(rows))
    path = Path(tmp_path) / "r.jsonl"
    path.write_bytes(first.encode("utf-8"))
    back = read_ragas_jsonl(path)
    assert back == rows
    assert "".join(ragas_jsonl_lines(back)) == first


def test_a_text_a_spreadsheet_would_run_is_written_as_it_is():
    # The file is for programs: a leading apostrophe would reach each of them as text.
    rows = [RagasRow("q1", "=1+1", "-10 °C", ("@x",), ("c1",))]
    text = "".join(ragas_jsonl_lines(rows))
    assert '"reference":"-10 °C"' in text.replace(": ", ":") and "'" not in text


def test_an_import_gives_answer_keys_and_names_bad_lines(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"user_input": "q?", "reference": "yes"}\n{"user_input": ""}\n')
    with pytest.raises(FormatError, match=r"r\.jsonl:2: user_input must be a non-empty string"):
        read_ragas_jsonl(path)
    path.write_text('{"user_input": "q?", "reference": "yes", "extra": 1}\n')
    assert ragas_answer_keys(read_ragas_jsonl(path)) == (
        AnswerKey("q1", reference_answer="yes", query="q?"),
    )
