"""``goldsmith eval`` / ``compare`` / ``drift`` with answer and first-stage metrics: today's JSON
shape plus reasons and quadrants, the table, and bad input as one line with exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goldsmith.answers.model import KeyFact
from goldsmith.cli import main
from goldsmith.formats import goldset
from tests.goldset_files import goldset_text

QRELS = [
    {
        "query_id": "q1",
        "query": "How long is the refund period?",
        "category": "billing",
        "judgments": [{"id": "c1", "grade": 2}, {"id": "c2", "grade": 2}],
        "reference_answer": "7 days",
        "answer_type": "number",
        "reference_facts": [
            {"text": "refund period is 7 days", "chunk_ids": ["c1"]},
            {"text": "exceptions beyond 7 days", "chunk_ids": ["c2"]},
        ],
    },
    {
        "query_id": "q2",
        "query": "Can I return opened items?",
        "category": "billing",
        "judgments": [{"id": "c3", "grade": 2}],
        "reference_answer": "No",
        "answer_type": "boolean",
        "reference_facts": [{"text": "opened items cannot be returned", "chunk_ids": ["c3"]}],
    },
    {
        "query_id": "q3",
        "query": "What does the warranty cover?",
        "category": "warranty",
        "judgments": [{"id": "c5", "grade": 2}],
        "reference_answer": "Manufacturing defects.",
        "reference_facts": [{"text": "warranty covers manufacturing defects", "chunk_ids": []}],
    },
    {"query_id": "q4", "judgments": [{"id": "c6", "grade": 2}]},
]
RUN = [
    {
        "query_id": "q1",
        "candidates": [{"id": "c9"}, {"id": "c1"}, {"id": "c2"}],
        "results": [{"id": "c1", "score": 2.0}, {"id": "c9", "score": 1.0}],
        "contexts": [
            {"id": "c1", "text": "The refund period is 7 days."},
            {"id": "c9", "text": "Shipping is free."},
        ],
        "response": "You have 14 days.",
    },
    {
        "query_id": "q2",
        "candidates": [{"id": "c3"}],
        "results": [{"id": "c3"}],
        "contexts": [{"id": "c3", "text": "Opened items cannot be returned."}],
        "response": "No, opened items cannot be returned.",
    },
    {
        "query_id": "q3",
        "candidates": [{"id": "c5"}],
        "results": [{"id": "c5", "text": "The warranty covers manufacturing defects."}],
        "response": "The warranty covers manufacturing defects.",
    },
    {"query_id": "q4", "candidates": [], "results": [{"id": "c6"}]},
]


def jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    return str(jsonl(tmp_path / "qrels.jsonl", QRELS)), str(jsonl(tmp_path / "run.jsonl", RUN))


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_prints_answer_metrics_reasons_and_quadrants_as_json(files, capsys):
    q, r = files
    code, out, err = run_main(
        capsys, "eval", q, r, "-m", "context_recall@5", "answer_correctness", "--format", "json"
    )
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["aggregate"]["context_recall@5"]["mean"] == pytest.approx((0.5 + 1 + 1) / 3)
    assert doc["aggregate"]["answer_correctness"]["n"] == 3
    assert doc["per_query"]["q1"] == {"context_recall@5": 0.5, "answer_correctness": 0.0}
    assert doc["reasons"]["q1"] == {
        "context_recall@5": "fact 2 not in the top 5 contexts",
        "answer_correctness": "says 14 days, reference 7 days",
    }
    assert "q4" not in doc["per_query"]  # no reference answer, no facts: not scored
    # By hand: q1 recall 0.5, correctness 0; q2 1, 1; q3 1 (containment), 1 (stated).
    assert doc["quadrants"] == {
        "low_recall_low_correctness": 1,
        "low_recall_high_correctness": 0,
        "high_recall_low_correctness": 0,
        "high_recall_high_correctness": 2,
    }
    assert doc["diagnosis"]["by_category"]["billing"]["low_recall_low_correctness"] == 1
    assert doc["diagnosis"]["recall_threshold"] == 0.7
    assert doc["fact_rules"]["context_recall@5"] == {"chunk link": 3, "containment": 1}
    assert doc["settings"]["answers"]["name"] == "rules"
    assert doc["categories"]["warranty"]["answer_correctness"]["mean"] == 1.0


def test_eval_reports_each_stage_beside_the_final_list(files, capsys):
    q, r = files
    code, out, _ = run_main(
        capsys, "eval", q, r, "-m", "recall@2", "first_stage:recall@2", "--format", "json"
    )
    doc = json.loads(out)
    assert code == 0
    # recall@2: q1 1/2, q2 1, q3 1, q4 1. First stage: q1 c9,c1 → 1/2; q4 no candidates → 0.
    assert doc["aggregate"]["recall@2"]["mean"] == pytest.approx(3.5 / 4)
    assert doc["aggregate"]["first_stage:recall@2"]["mean"] == pytest.approx(2.5 / 4)
    assert doc["per_query"]["q4"] == {"recall@2": 1.0, "first_stage:recall@2": 0.0}


def test_the_table_shows_reasons_quadrants_and_what_to_look_at(files, capsys):
    q, r = files
    code, out, _ = run_main(
        capsys, "eval", q, r, "-m", "context_recall@5", "answer_correctness", "--per-query"
    )
    assert code == 0
    assert "    answer_correctness: says 14 days, reference 7 days" in out
    assert "Context missed, answer wrong: 1" in out and "chunking" in out
    assert "Context found, answer right: 2" in out
    assert "context_recall@5: facts decided by chunk link 3, containment 1" in out


def test_thresholds_and_the_extractive_answerer_are_options(files, capsys):
    q, r = files
    argv = ["eval", q, r, "-m", "context_recall@5", "answer_correctness", "--format", "json"]
    code, out, _ = run_main(capsys, *argv, "--recall-threshold", "0.5", "--extractive")
    doc = json.loads(out)
    assert code == 0 and doc["settings"]["answers"]["extractive"] is True
    assert doc["diagnosis"]["recall_threshold"] == 0.5
    # The extractive answer of q1 is "The refund period is 7 days.": right, and in context.
    assert doc["per_query"]["q1"]["answer_correctness"] == 1.0
    # q2's is "Opened items cannot be returned.": no yes or no in it, so a closed answer fails.
    assert doc["reasons"]["q2"]["answer_correctness"] == "no yes/no answer found (reference no)"
    assert doc["quadrants"]["high_recall_high_correctness"] == 2
    assert doc["diagnosis"]["queries"]["high_recall_low_correctness"] == ["q2"]


def test_a_golden_set_with_facts_is_read_as_qrels(tmp_path, files, capsys):
    gold = goldset.GoldenQuery(
        "q1",
        "How long is the refund period?",
        (goldset.GoldJudgment("c1", 2), goldset.GoldJudgment("c2", 2)),
        reference_answer="7 days",
        answer_type="number",
        reference_facts=(KeyFact("refund period is 7 days", ("c1",)),),
    )
    path = tmp_path / "gold.jsonl"
    path.write_text(goldset_text("acme", "v1", [gold]))
    code, out, _ = run_main(
        capsys, "eval", str(path), files[1], "-m", "context_recall@1", "exact_match",
        "--format", "json",
    )  # fmt: skip
    doc = json.loads(out)
    assert code == 0 and doc["per_query"]["q1"] == {"context_recall@1": 1.0, "exact_match": 0.0}


def test_answer_metrics_need_answers_and_a_jsonl_run(tmp_path, files, capsys):
    trec_qrels = tmp_path / "qrels.txt"
    trec_qrels.write_text("q1 0 c1 2\n")
    code, _, err = run_main(capsys, "eval", str(trec_qrels), files[1], "-m", "answer_f1")
    assert code == 2 and "TREC qrels carry no reference answers" in err
    trec_run = tmp_path / "run.txt"
    trec_run.write_text("q1 Q0 c1 1 1.0 x\n")
    code, _, err = run_main(capsys, "eval", files[0], str(trec_run), "-m", "answer_f1")
    assert code == 2 and "need a JSONL run" in err
    code, _, err = run_main(capsys, "eval", *files, "-m", "context_recall")
    assert code == 2 and err == "goldsmith: context_recall needs a cut-off, e.g. context_recall@5\n"


def test_a_run_without_responses_is_warned_about(tmp_path, files, capsys):
    silent = jsonl(tmp_path / "silent.jsonl", [{**r, "response": None} for r in RUN])
    code, _, err = run_main(capsys, "eval", files[0], str(silent), "-m", "answer_correctness")
    assert code == 0 and "this run has no answers" in err and "--extractive" in err


def test_compare_tests_answer_metrics_and_corrects_over_all_of_them(tmp_path, files, capsys):
    better = jsonl(
        tmp_path / "b.jsonl", [{**RUN[0], "response": "Refunds within 7 days."}, *RUN[1:]]
    )
    code, out, _ = run_main(
        capsys, "compare", files[0], files[1], str(better), "-m", "recall@5",
        "answer_correctness", "--by", "answer_correctness", "--format", "json",
    )  # fmt: skip
    doc = json.loads(out)
    assert code == 0 and list(doc["metrics"]) == ["recall@5", "answer_correctness"]
    row = doc["metrics"]["answer_correctness"]
    assert (row["wins"], row["ties"], row["losses"], row["n"]) == (1, 2, 0, 3)
    assert row["p_holm"] >= row["p_randomization"]
    assert doc["changes"]["better"][0]["query_id"] == "q1"


def test_drift_fires_a_drop_rule_on_an_answer_metric(tmp_path, files, capsys):
    worse = jsonl(
        tmp_path / "w.jsonl",
        [RUN[0], {**RUN[1], "response": "Yes."}, {**RUN[2], "response": "Nothing."}, RUN[3]],
    )
    base = ["drift", files[0], files[1], str(worse), "--k", "2", "--gate", "fail"]
    code, out, _ = run_main(
        capsys, *base, "--max-answer-drop", "answer_correctness=0.05", "--format", "json"
    )
    doc = json.loads(out)
    assert code == 3
    fired = doc["answer_drift"]["fired"]
    assert [f["metric"] for f in fired] == ["answer_correctness"]
    assert fired[0]["baseline"] == pytest.approx(2 / 3) and fired[0]["value"] == 0.0
    assert "dropped 0.6667" in fired[0]["message"]
    code, out, _ = run_main(capsys, *base, "--max-answer-drop", "answer_correctness=0.7")
    assert "mean answer_correctness 0.6667 → 0.0000" in out
    code, _, err = run_main(capsys, *base, "--max-answer-drop", "recall@5=0.1")
    assert code == 2 and "is a retrieval metric" in err
