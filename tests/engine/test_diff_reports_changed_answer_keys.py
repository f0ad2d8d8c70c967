"""The golden-set diff names common queries whose answer key changed, and only those."""

from __future__ import annotations

from goldsmith.answers.model import KeyFact
from goldsmith.formats.diff import diff_text, goldset_diff

QUERIES = {"q1": "refund period?", "q2": "reset password?", "q3": "export csv?"}
ROWS = [("q1", "c1", 2), ("q2", "c2", 2)]


def test_a_changed_fact_type_or_answer_is_reported_and_equal_keys_are_not():
    fact = KeyFact("refund period is 7 days", ("c1",))
    a = {"q1": ("7 days", "number", (), (fact,)), "q2": ("Email", None, (), ())}
    b = {
        "q1": ("7 days", "number", (), (KeyFact("refund period is 7 days", ()),)),  # link gone
        "q2": ("Email", None, (), ()),
        "q3": ("yes", "boolean", (), ()),  # a key added to a query that had none
    }
    d = goldset_diff(QUERIES, ROWS, QUERIES, ROWS, a, b)
    assert d.changed_answers == ["q1", "q3"]
    assert d.totals["answers_changed"] == 2 and not d.unchanged
    assert d.to_json()["changed_answers"] == ["q1", "q3"]
    assert "~ query q1: answer key changed" in list(diff_text(d, "v1", "v2"))


def test_without_answer_keys_nothing_changes():
    d = goldset_diff(QUERIES, ROWS, QUERIES, ROWS)
    assert d.changed_answers == [] and d.unchanged
    same = {"q1": ("7 days", "number", (), ())}
    assert goldset_diff(QUERIES, ROWS, QUERIES, ROWS, same, dict(same)).unchanged
