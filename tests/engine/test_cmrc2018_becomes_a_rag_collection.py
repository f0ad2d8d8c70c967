"""CMRC 2018 (../shared/data/cmrc2018) becomes a Chinese RAG collection with one command
(`goldsmith cmrc2018`): a corpus chunked with exact offsets, a query set, and a golden set whose
relevant chunk holds the answer span and whose references are the human answers; then the
benchmark runs BM25 (zh-bigrams) and the extractive answerer over a small slice end to end."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout

import pytest

from goldsmith.cli import main as goldsmith
from goldsmith.formats.cmrc2018 import cmrc2018_collection
from goldsmith.formats.goldset import read_goldset
from tests.conftest import REPO, require_shared_data

ARTICLES = 12


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    data = require_shared_data("cmrc2018", "cmrc2018_dev.json")
    doc = json.loads(data.read_text(encoding="utf-8"))
    doc["data"] = doc["data"][:ARTICLES]
    path = tmp_path_factory.mktemp("cmrc") / "cmrc2018_dev.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path, doc


def run_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = goldsmith(list(args))
    return status, out.getvalue(), err.getvalue()


def test_the_command_writes_a_corpus_queries_and_a_golden_set_that_read_back(source, tmp_path):
    path, doc = source
    status, out, err = run_cli("cmrc2018", str(path.parent), "--out", str(tmp_path))
    assert status == 0, err
    assert "chunks" in out and "queries" in out
    paragraphs = {p["id"]: p for a in doc["data"] for p in a["paragraphs"]}
    chunks = [json.loads(line) for line in (tmp_path / "corpus.jsonl").open(encoding="utf-8")]
    assert {c["doc_id"] for c in chunks} == set(paragraphs)
    for c in chunks:  # offsets are exact
        assert paragraphs[c["doc_id"]]["context"][c["start"] : c["end"]] == c["text"]
    queries = [json.loads(line) for line in (tmp_path / "queries.jsonl").open(encoding="utf-8")]
    asked = {q["id"]: q for p in paragraphs.values() for q in p["qas"]}
    assert {q["query_id"] for q in queries} == set(asked)

    gold = read_goldset(tmp_path / "goldset.jsonl")  # the header's content hash holds
    assert len(gold.queries) == len(asked)
    lines = [json.loads(x) for x in (tmp_path / "goldset.jsonl").open(encoding="utf-8")][1:]
    by_id = {line["query_id"]: line for line in lines}
    for q in gold.queries:
        qa = asked[q.query_id]
        context = paragraphs[q.judgments[0].doc_id]["context"]
        humans = [a["text"] for a in qa["answers"] if a["text"] in context]
        assert q.reference_answer == humans[0]
        # every distinct human answer, the golden set's several references (written only
        # when there are more than one, as the format writes them)
        distinct = list(dict.fromkeys(humans))
        assert (q.reference_answer, *q.reference_alternatives) == tuple(distinct)
        if len(distinct) > 1:
            assert by_id[q.query_id]["reference_answers"] == distinct
        else:
            assert "reference_answers" not in by_id[q.query_id]
        for j in q.judgments:
            holds = j.text is not None and any(h in j.text for h in humans)
            if j.grade == 2:
                assert holds, (q.query_id, j.chunk_id)
        for fact in q.reference_facts:
            assert fact.text == q.reference_answer
            assert all(
                next(j for j in q.judgments if j.chunk_id == c).grade == 2 for c in fact.chunk_ids
            )


def test_an_answer_start_that_is_off_is_found_nearest_and_a_missing_answer_is_counted(tmp_path):
    context = "甲乙丙。北京是首都。上海不是首都，北京是。"
    doc = {
        "version": "v1.0",
        "data": [
            {
                "id": "D",
                "title": "t",
                "paragraphs": [
                    {
                        "id": "D_0",
                        "context": context,
                        "qas": [
                            {
                                "id": "D_Q0",
                                "question": "首都是哪里？",
                                "answers": [
                                    {"text": "北京", "answer_start": 3},  # off by one
                                    {"text": "广州", "answer_start": -1},  # not in it
                                ],
                            }
                        ],
                    }
                ],
            }
        ],
    }
    path = tmp_path / "c.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    collection = cmrc2018_collection(path)
    assert collection.answers_not_found == 1
    (q,) = collection.golden
    assert q.reference_answer == "北京" and collection.reference_answers["D_Q0"] == ("北京",)


def test_a_file_that_is_not_squad_style_names_the_field(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('{"data": [{"paragraphs": [{"id": "p", "context": ""}]}]}')
    status, _, err = run_cli("cmrc2018", str(path), "--out", str(tmp_path / "out"))
    assert status == 2
    assert "c.json:1: data[0].paragraphs[0].context must be a non-empty string" in err


def test_the_benchmark_runs_bm25_and_the_extractive_answerer_end_to_end(source, tmp_path):
    path, _ = source
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "cmrc2018_bench.py"),
            "--data",
            str(path),
            "--out",
            str(tmp_path),
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout[done.stdout.index("\n{") :])
    agg = result["aggregate"]
    assert set(agg) == {
        "recall@5", "ndcg@10", "context_recall@5", "answer_f1", "exact_match", "squad_em",
    }  # fmt: skip
    assert agg["recall@5"]["n"] > 0 and agg["recall@5"]["mean"] > 0.5  # BM25 finds most spans
    assert 0 < agg["answer_f1"]["mean"] < 1
    assert all(s >= 0 for s in result["seconds"].values())
