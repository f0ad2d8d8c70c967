"""The answer fields of qrels and golden sets and the stages of a run: strict readers whose
errors name file, line and field, and writers whose output reads back to the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goldsmith.answers.model import AnswerKey, Context, KeyFact, RankedItem, StagedQuery
from goldsmith.formats import FormatError, goldset, jsonl
from tests.goldset_files import goldset_text

text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30)
ident = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    min_size=1,
    max_size=8,
)
facts = st.lists(
    st.builds(
        KeyFact,
        text.filter(lambda t: t.strip() != ""),
        st.lists(ident, unique=True, max_size=3).map(tuple),
    ),
    max_size=3,
).map(tuple)
open_keys = st.builds(
    AnswerKey,
    st.just(""),
    reference_answer=st.none() | text,
    answer_type=st.sampled_from([None, "open"]),
    facts=facts,
    query=st.none() | text,
    category=st.none() | text,
)
closed_keys = st.sampled_from(
    [
        AnswerKey("", reference_answer="7 days", answer_type="number"),
        AnswerKey("", reference_answer="2024年3月5日", answer_type="date"),
        AnswerKey("", reference_answer="否", answer_type="boolean"),
        AnswerKey("", reference_answer="DHL", answer_type="choice", choices=("DHL", "UPS")),
    ]
)
ranked = st.lists(
    st.builds(
        RankedItem,
        ident,
        st.none() | st.floats(allow_nan=False, allow_infinity=False),
        st.none() | text,
    ),
    max_size=4,
).map(tuple)
stages = st.builds(
    StagedQuery,
    st.just(""),
    results=ranked,
    candidates=st.none() | ranked,
    contexts=st.none() | st.lists(st.builds(Context, ident, text), max_size=3).map(tuple),
    response=st.none() | text,
)


def write(tmp_path: Path, name: str, data: str) -> Path:
    p = tmp_path / name
    p.write_text(data, encoding="utf-8")
    return p


def error_of(fn, *args) -> str:
    with pytest.raises(FormatError) as e:
        fn(*args)
    return str(e.value)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(
            open_keys | closed_keys, st.lists(st.tuples(ident, st.integers(0, 2)), max_size=3)
        ),
        max_size=5,
    )
)
def test_jsonl_qrels_with_answers_read_back_byte_for_byte(tmp_path, items):
    rows = []
    for n, (key, judged) in enumerate(items):
        qid = f"q{n}"
        judgments = tuple(dict(judged).items())
        rows.append(jsonl.QrelsRow(qid, judgments, AnswerKey(**{**vars(key), "query_id": qid})))
    if not rows:
        return
    first = "".join(jsonl.jsonl_qrels_lines(rows))
    path = write(tmp_path, "qrels.jsonl", first)
    back = jsonl.read_jsonl_qrels_rows(path)
    assert back == rows
    assert "".join(jsonl.jsonl_qrels_lines(back)) == first
    assert jsonl.read_jsonl_qrels(path).query_ids == tuple(r.query_id for r in rows)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(stages, max_size=5))
def test_jsonl_runs_with_every_stage_read_back_byte_for_byte(tmp_path, staged):
    run = [StagedQuery(**{**vars(s), "query_id": f"q{n}"}) for n, s in enumerate(staged)]
    first = "".join(jsonl.jsonl_run_lines(run))
    path = write(tmp_path, "run.jsonl", first)
    back = jsonl.read_jsonl_stages(path)
    assert back == run
    assert "".join(jsonl.jsonl_run_lines(back)) == first
    assert jsonl.read_jsonl_run(path).query_ids == tuple(s.query_id for s in run)


def golden(**answer) -> goldset.GoldenQuery:
    return goldset.GoldenQuery(
        query_id="q1",
        query="How long is the refund period?",
        judgments=(goldset.GoldJudgment("c7", 2), goldset.GoldJudgment("c8", 1)),
        **answer,
    )


def test_a_golden_set_carries_facts_and_reads_back_byte_for_byte(tmp_path):
    q = golden(
        reference_answer="7 days",
        answer_type="number",
        reference_facts=(
            KeyFact("refund period is 7 days", ("c7",)),
            KeyFact("exceptions beyond 7 days", ("c7", "c8")),
        ),
    )
    first = goldset_text("acme", "v1", [q])
    path = write(tmp_path, "gold.jsonl", first)
    back = goldset.read_goldset(path)
    assert back.queries == (q,)
    assert goldset_text("acme", "v1", back.queries) == first
    line = json.loads(first.splitlines()[1])
    assert line["reference_facts"][1] == {
        "text": "exceptions beyond 7 days",
        "chunk_ids": ["c7", "c8"],
    }
    key = goldset.goldset_answer_keys(back)[0]
    assert key.facts == q.reference_facts and key.query == q.query


def test_facts_enter_the_content_hash_and_a_set_without_them_keeps_its_hash():
    plain = golden(reference_answer="7 days")
    with_type = golden(reference_answer="7 days", answer_type="number")
    with_facts = golden(reference_answer="7 days", reference_facts=(KeyFact("7 days", ("c7",)),))
    relinked = golden(reference_answer="7 days", reference_facts=(KeyFact("7 days", ("c8",)),))
    hashes = {goldset.goldset_content_hash([q]) for q in (plain, with_type, with_facts, relinked)}
    assert len(hashes) == 4
    assert "answer_type" not in json.dumps(plain.to_json())
    assert "reference_facts" not in json.dumps(plain.to_json())


BAD_FIELDS = [
    ({"answer_type": "numeric"}, "answer_type 'numeric' is not one of number, date, boolean"),
    ({"answer_type": "number"}, "answer_type number needs a reference_answer"),
    ({"answer_type": "number", "reference_answer": "a week or so"}, "states no number"),
    ({"answer_type": "date", "reference_answer": "soon"}, "states no date the rules read"),
    ({"answer_type": "boolean", "reference_answer": "maybe"}, "is not yes or no"),
    ({"answer_type": "choice", "reference_answer": "DHL"}, "answer_type choice needs choices"),
    (
        {"answer_type": "choice", "reference_answer": "DHL", "choices": ["UPS", "FedEx"]},
        "reference_answer 'DHL' is not one of the choices",
    ),
    (
        {"answer_type": "choice", "reference_answer": "DHL", "choices": ["DHL", " dhl "]},
        "choices must differ",
    ),
    (
        {"reference_answer": "x", "choices": ["a", "b"]},
        'choices are only for "answer_type": "choice"',
    ),
    ({"reference_facts": [{"text": ""}]}, "reference_facts[0].text must be a non-empty string"),
    (
        {"reference_facts": [{"text": "a", "chunks": ["c7"]}]},
        "reference_facts[0] has unknown key 'chunks' (the key is 'chunk_ids')",
    ),
    (
        {"reference_facts": [{"text": "a", "chunk_ids": ["c7", "c7"]}]},
        "reference_facts[0].chunk_ids: 'c7' appears twice",
    ),
    (
        {"reference_facts": [{"text": "a", "chunk_ids": [""]}]},
        "reference_facts[0].chunk_ids[0] must be a non-empty string",
    ),
]


@pytest.mark.parametrize(("fields", "message"), BAD_FIELDS)
def test_bad_answer_fields_are_reported_with_file_line_and_field(tmp_path, fields, message):
    good = {"query_id": "q0", "judgments": []}
    bad = {"query_id": "q1", "judgments": [{"id": "c7", "grade": 2}], **fields}
    path = write(tmp_path, "qrels.jsonl", json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    error = error_of(jsonl.read_jsonl_qrels, path)
    assert error.startswith(f"{path}:2: ") and message in error
    assert error_of(jsonl.read_jsonl_qrels_rows, path) == error


def test_a_golden_fact_must_link_a_judged_chunk(tmp_path):
    q = golden(reference_facts=(KeyFact("x", ("c7",)),))
    text = goldset_text("acme", "v1", [q]).replace('"chunk_ids": ["c7"]', '"chunk_ids": ["c99"]')
    path = write(tmp_path, "gold.jsonl", text)
    assert error_of(goldset.read_goldset, path) == (
        f"{path}:2: reference_facts[0].chunk_ids: 'c99' is not a judged chunk of query 'q1'"
    )


HEAD = '{"query_id": "q", "results": [], '
BAD_STAGES = [
    (HEAD + '"contexts": [{"id": "c"}]}', "contexts[0] is missing 'text'"),
    (HEAD + '"contexts": [{"id": "c", "text": 3}]}', "contexts[0].text must be a string"),
    (HEAD + '"candidates": {"id": "c"}}', "candidates must be a JSON array"),
    (
        HEAD + '"candidates": [{"id": "c", "score": "x"}]}',
        "candidates[0].score 'x' is not a number",
    ),
    (HEAD + '"response": ["a"]}', "response must be a string or null"),
    ('{"query_id": "q", "results": [{"id": "c", "text": 1}]}', "results[0].text must be a string"),
]


@pytest.mark.parametrize(("line", "message"), BAD_STAGES)
def test_bad_stages_are_reported_with_file_line_and_field(tmp_path, line, message):
    path = write(tmp_path, "run.jsonl", '{"query_id": "q0", "results": []}\n\n' + line + "\n")
    assert error_of(jsonl.read_jsonl_stages, path).startswith(f"{path}:3: {message}")
