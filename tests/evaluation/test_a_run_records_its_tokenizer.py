"""A run of a built-in retriever records the tokenizer its index used (the project's when the
run was made), shows it on the run page, in the API and the report, and scores the project's
Chinese test collection as bench/zh_retrieval_bench.py does with the same tokenizer; two runs
under different tokenizers say so when compared."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.demo import ZH_COLLECTION
from annotation.models import Project
from annotation.services.projects import project_tokenizer_set
from evaluation.models import EvaluationRun, RunState
from evaluation.services.reports import compare_report
from goldsmith import metrics
from goldsmith.retrievers.builtin import build_retriever

COLLECTION = ZH_COLLECTION


def rows(name):
    return [json.loads(line) for line in (COLLECTION / name).open(encoding="utf-8")]


def as_beir(folder: Path) -> Path:
    """The collection as a BEIR folder (what `import_goldset --format beir` reads)."""
    (folder / "qrels").mkdir(parents=True)
    with (folder / "corpus.jsonl").open("w", encoding="utf-8") as out:
        for row in rows("corpus.jsonl"):
            record = {"_id": row["id"], "title": "", "text": row["text"]}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    with (folder / "queries.jsonl").open("w", encoding="utf-8") as out:
        for row in rows("queries.jsonl"):
            out.write(json.dumps({"_id": row["id"], "text": row["text"]}, ensure_ascii=False))
            out.write("\n")
    lines = ["query-id\tcorpus-id\tscore\n"]
    for line in (COLLECTION / "qrels.txt").open(encoding="utf-8"):
        qid, _, chunk, grade = line.split()
        lines.append(f"{qid}\t{chunk}\t{grade}\n")
    (folder / "qrels" / "test.tsv").write_text("".join(lines), encoding="utf-8")
    return folder


def engine_recall_at_10(tokenizer: str) -> float:
    """What the bench measures: the engine's BM25 over the collection, goldsmith.metrics."""
    corpus = [(row["id"], row["text"]) for row in rows("corpus.jsonl")]
    queries = {row["id"]: row["text"] for row in rows("queries.jsonl")}
    qrels: dict[str, dict[str, int]] = {}
    for line in (COLLECTION / "qrels.txt").open(encoding="utf-8"):
        qid, _, chunk, grade = line.split()
        qrels.setdefault(qid, {})[chunk] = int(grade)
    hits = build_retriever("bm25", corpus, tokenizer=tokenizer).search(list(queries.values()), 10)
    ranking = {q: [h.id for h in found] for q, found in zip(queries, hits, strict=True)}
    result = metrics.evaluate(qrels, ranking, ["recall@10"])
    return metrics.aggregate(result, samples=0)["recall@10"].mean


def run_bm25() -> EvaluationRun:
    call_command(
        "run_evaluation",
        "--project", "Acme Support", "--version", "zh", "--retriever", "bm25",
        "--k", "5", "10", "--inline", "--format", "json",
        stdout=io.StringIO(), stderr=io.StringIO(),
    )  # fmt: skip
    return EvaluationRun.objects.latest("id")


@pytest.fixture
def collection(personas, tmp_path):
    call_command(
        "import_goldset", "--project", "Acme Support", "--format", "beir",
        str(as_beir(tmp_path / "zh")), "--label", "zh", stdout=io.StringIO(),
    )  # fmt: skip
    call_command(
        "add_retriever", "--project", "Acme Support", "--name", "bm25", "--kind", "bm25",
        stdout=io.StringIO(),
    )  # fmt: skip
    return Project.objects.get(pk=personas.project.pk)


@pytest.mark.slow
def test_each_run_records_the_tokenizer_its_index_used(collection, personas, client):
    project_tokenizer_set(project=collection, tokenizer="zh-bigrams")
    bigrams = run_bm25()
    project_tokenizer_set(project=Project.objects.get(pk=collection.pk), tokenizer="zh-words")
    words = run_bm25()
    assert bigrams.state == words.state == RunState.SUCCEEDED
    assert (bigrams.tokenizer, words.tokenizer) == ("zh-bigrams", "zh-words")
    for run in (bigrams, words):
        assert run.report["settings"]["tokenizer"] == run.tokenizer
        recall = run.report["aggregate"]["recall@10"]["mean"]
        assert recall == pytest.approx(engine_recall_at_10(run.tokenizer), abs=1e-12)
        assert recall > 0.85  # bench: 0.933 with either tokenizer

    client.force_login(personas.alice)
    api = client.get(f"/api/v1/projects/{collection.pk}/runs/{bigrams.pk}/").json()
    assert api["tokenizer"] == "zh-bigrams"
    page = client.get(reverse("run-detail", args=[collection.pk, words.pk])).content.decode()
    assert "words cut as: chinese words (jieba)" in page

    compared = compare_report(a=bigrams, b=words)
    assert "tokenizer zh-words (A: zh-bigrams)" in compared["settings_differ"]
