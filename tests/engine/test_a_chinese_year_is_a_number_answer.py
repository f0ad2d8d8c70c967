"""A number answer such as "1420年" (a year, asked "哪一年") is a number: the readers take it as a
`number` reference answer and exact match compares the year as a number."""

from __future__ import annotations

import pytest

from goldsmith.answers.model import AnswerKey, StagedQuery
from goldsmith.answers.scoring import score_answers
from goldsmith.formats.jsonl import read_jsonl_qrels_rows


def test_the_reader_takes_a_year_as_a_number_reference_answer(tmp_path):
    path = tmp_path / "qrels.jsonl"
    path.write_text(
        '{"query_id": "q1", "query": "郑和第六次下西洋是哪一年？",'
        ' "judgments": [{"id": "c1", "grade": 2}],'
        ' "reference_answer": "1420年", "answer_type": "number"}\n',
        encoding="utf-8",
    )
    (row,) = read_jsonl_qrels_rows(path)
    assert row.answer.reference_answer == "1420年" and row.answer.answer_type == "number"


@pytest.mark.parametrize(
    ("response", "value"),
    [
        ("1420年", 1.0),
        ("1420", 1.0),
        ("永乐十八年（1420年）", 1.0),
        ("公元1420年", 1.0),
        ("1421年", 0.0),
        ("1420年到1425年", 0.0),
        ("明朝", 0.0),
    ],
)
def test_exact_match_reads_the_year_as_the_answers_number(response, value):
    key = AnswerKey("q", reference_answer="1420年", answer_type="number")
    r = score_answers([key], [StagedQuery("q", response=response)], ["exact_match"])
    assert float(r.values[0, 0]) == value, r.reasons[0]["exact_match"]


def test_a_date_answer_still_reads_the_year_as_a_date():
    key = AnswerKey("q", reference_answer="1420年", answer_type="date")
    r = score_answers([key], [StagedQuery("q", response="1420年9月")], ["exact_match"])
    assert float(r.values[0, 0]) == 1.0
