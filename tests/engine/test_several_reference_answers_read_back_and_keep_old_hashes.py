"""A golden query may carry several reference answers (``reference_answers``, the primary
first), in JSONL qrels and the native golden set: they read back byte for byte, enter the
content hash only when there are further ones (a set without them keeps its hash), and bad
lists are refused with file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goldsmith.answers.model import AnswerKey
from goldsmith.formats import FormatError, goldset, jsonl
from tests.goldset_files import goldset_text


def golden(**answer) -> goldset.GoldenQuery:
    return goldset.GoldenQuery(
        "q1", "长江有多长？", judgments=(goldset.GoldJudgment("c1", 2),), **answer
    )


def test_a_golden_set_with_several_references_reads_back_byte_for_byte(tmp_path: Path):
    q = golden(reference_answer="6300公里", reference_alternatives=("约6300公里", "6,300 km"))
    first = goldset_text("acme", "v1", [q])
    line = json.loads(first.splitlines()[1])
    assert line["reference_answer"] == "6300公里"
    assert line["reference_answers"] == ["6300公里", "约6300公里", "6,300 km"]
    path = tmp_path / "gs.jsonl"
    path.write_text(first, encoding="utf-8")
    back = goldset.read_goldset(path)
    assert back.queries[0].answer_key().references == ("6300公里", "约6300公里", "6,300 km")
    assert goldset_text("acme", "v1", back.queries) == first


def test_one_reference_keeps_the_bytes_and_hash_it_had_before():
    plain = golden(reference_answer="6300公里")
    assert "reference_answers" not in json.dumps(plain.to_json(), ensure_ascii=False)
    with_more = golden(reference_answer="6300公里", reference_alternatives=("约6300公里",))
    assert goldset.goldset_content_hash([plain]) != goldset.goldset_content_hash([with_more])
    record = goldset.QueryRecord.of(plain)
    assert goldset.goldset_content_hash([record]) == goldset.goldset_content_hash([plain])


def test_jsonl_qrels_take_reference_answers_alone_the_first_being_the_primary(tmp_path: Path):
    path = tmp_path / "qrels.jsonl"
    line = {"query_id": "q1", "judgments": [], "reference_answers": ["长江", "长江流域"]}
    path.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    (row,) = list(jsonl.read_jsonl_qrels_rows(path))
    assert row.answer == AnswerKey("q1", reference_answer="长江", alternatives=("长江流域",))
    assert jsonl.answer_json(row.answer)["reference_answers"] == ["长江", "长江流域"]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"reference_answers": []}, "reference_answers must hold at least one answer"),
        ({"reference_answers": ["a", ""]}, "reference_answers[1] must be a non-empty string"),
        ({"reference_answers": ["a", "a"]}, "reference_answers[1]: 'a' appears twice"),
        (
            {"reference_answer": "b", "reference_answers": ["a", "b"]},
            "reference_answer 'b' must be the first of reference_answers ('a')",
        ),
    ],
)
def test_bad_reference_lists_are_refused_with_file_line_and_field(tmp_path, fields, message):
    path = tmp_path / "qrels.jsonl"
    path.write_text(json.dumps({"query_id": "q1", "judgments": [], **fields}) + "\n")
    with pytest.raises(FormatError) as err:
        list(jsonl.read_jsonl_qrels_rows(path))
    assert str(err.value) == f"{path}:1: {message}"
