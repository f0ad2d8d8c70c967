"""`make run`'s demo project is built through the import pipeline, and a second load changes
nothing."""

import pytest

from annotation.demo import DEMO_PROJECT
from annotation.models import Chunk, CorpusImport, LogQuery, Project, Query, QueryLog, Sample
from evaluation.demo import demo_load


def counts():
    return [m.objects.count() for m in (Chunk, CorpusImport, LogQuery, QueryLog, Query, Sample)]


@pytest.mark.slow
def test_the_demo_loads_through_the_pipeline_and_is_idempotent(db):
    demo_load()
    project = Project.objects.get(name=DEMO_PROJECT)
    assert Chunk.objects.filter(project=project).count() > 200
    log = QueryLog.objects.get(project=project)
    assert log.records >= 250 and log.distinct > 150
    assert log.scrubbed["EMAIL"] >= 3 and log.scrubbed["PHONE"] >= 2
    assert log.report["near_duplicate_groups"] >= 5
    assert not LogQuery.objects.filter(text__contains="@").exists()
    assert Sample.objects.get(project=project).n_chosen == 40
    before = counts()
    lines = demo_load()
    assert counts() == before
    assert "demo corpus already imported" in lines


@pytest.mark.slow
def test_the_demo_gives_every_role_something_to_do(db):
    from annotation.models import Assignment, GoldenSetVersion, Judgment, QueryReview
    from evaluation.models import Baseline, EvaluationRun

    demo_load()
    project = Project.objects.get(name=DEMO_PROJECT)
    # annotators still have queries to grade
    open_for_alice = Assignment.objects.filter(
        query__project=project, annotator__username="alice", judged=0
    )
    assert open_for_alice.count() >= 10
    # the lead has disagreements to adjudicate and a frozen version to read
    assert QueryReview.objects.filter(query__project=project, state="flagged").exists()
    version = GoldenSetVersion.objects.get(project=project, label="v1")
    assert version.content_hash.startswith("sha256:")
    # the keyword judge stub graded every candidate, apart from the people
    from annotation.models import Candidate, MachineGrade

    assert MachineGrade.objects.filter(judge__project=project).count() == (
        Candidate.objects.filter(query__project=project).count()
    )
    # both baselines ran against it, and BM25's run is the baseline; BM25 answering with the
    # extractive baseline too, whose report has the answer section and the quadrants
    runs = EvaluationRun.objects.filter(project=project, version=version)
    assert sorted(runs.values_list("retriever__name", "state")) == [
        ("bm25", "succeeded"),
        ("bm25-extractive", "succeeded"),
        ("tfidf", "succeeded"),
    ]
    assert Baseline.objects.filter(run__retriever__name="bm25").exists()
    keyed = version.items.exclude(reference_facts=[]).count()
    assert keyed >= 5, "the demo's answer keys (simulated) freeze with v1"
    from evaluation.services.reports import run_report

    rag = runs.get(retriever__name="bm25-extractive")
    answers = run_report(rag)["answers"]
    assert answers["quadrants"] and sum(answers["quadrants"].values()) == keyed
    assert "answer_correctness" in answers["aggregate"]
    judgments = Judgment.objects.count()
    demo_load()
    assert Judgment.objects.count() == judgments
    assert GoldenSetVersion.objects.filter(project=project).count() == 1


@pytest.mark.slow
def test_the_chinese_demo_project_is_scrubbed_folded_pooled_and_run(db):
    from annotation.demo import DEMO_PROJECT_ZH
    from annotation.models import GoldenSetVersion
    from evaluation.models import EvaluationRun

    demo_load()
    project = Project.objects.get(name=DEMO_PROJECT_ZH)
    assert project.tokenizer == "zh-bigrams"  # chosen by its first import, used by its pools
    assert Chunk.objects.filter(project=project).count() == 300
    log = QueryLog.objects.get(project=project)
    assert log.scrubbed == {"EMAIL": 1, "NATIONAL_ID": 1, "PHONE": 2}
    texts = "".join(LogQuery.objects.filter(log=log).values_list("text", flat=True))
    assert "13812345678" not in texts and "110101199003071233" not in texts and "@" not in texts
    assert "202411051234" in texts  # an order number is not personal data
    assert log.distinct < log.records  # 保修幾年 is 保修几年, 企業郵箱 is 企业邮箱
    version = GoldenSetVersion.objects.get(project=project, label="v1")
    runs = {r.retriever.name: r for r in EvaluationRun.objects.filter(version=version)}
    assert sorted(runs) == ["bm25", "bm25-extractive", "tfidf"]
    bm25 = runs["bm25"].report
    assert runs["bm25"].verdict == "pass", bm25["verdict"]
    assert bm25["counts"]["included"] >= 10
    assert bm25["aggregate"]["judged@5"]["mean"] == 1.0  # the pools are the runs' own top 5
