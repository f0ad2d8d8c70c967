"""The demo projects that `make run` loads (`manage.py load_demo`): the annotation part
(annotation/demo.py: each project, its corpus and queries, simulated grades, a frozen v1), then
the two built-in baselines run against v1, and, in the English project, the keyword judge stub
run over the pools. It lives here because it uses both apps (imports run evaluation →
annotation). Idempotent: a second load changes nothing."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from annotation.demo import DEMO_PROJECT, DEMO_PROJECT_ZH, demo_projects_load
from annotation.models import GoldenSetVersion, MachineJudge, MachineJudgeKind, Project
from evaluation.models import EvaluationRun, Retriever
from evaluation.services.judges import judge_register, judging_job_create, judging_job_execute
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import (
    baseline_set,
    evaluation_run_create,
    evaluation_run_execute_inline,
)

DEMO_JUDGE = "keyword stub"


def demo_load() -> list[str]:
    """Load the whole demo; returns what it did, line by line."""
    done = demo_projects_load()
    lead = get_user_model().objects.get(username="lead")
    for name in (DEMO_PROJECT, DEMO_PROJECT_ZH):
        project = Project.objects.get(name=name)
        version = (
            GoldenSetVersion.objects.filter(project=project).order_by("created_at", "id").first()
        )
        if version is None:
            continue
        done += demo_runs(project=project, version=version, by=lead)
        if name == DEMO_PROJECT:  # the keyword stub matches English words
            done += demo_judge(project=project, by=lead)
    return done


def demo_judge(*, project: Project, by: AbstractBaseUser) -> list[str]:
    """The keyword-overlap judge stub, registered and run once over every candidate, so the
    dashboard shows a machine judge's kappa beside the annotators' (filling gaps is left to
    the lead)."""
    if MachineJudge.objects.filter(project=project, name=DEMO_JUDGE).exists():
        return []
    judge = judge_register(project=project, name=DEMO_JUDGE, kind=MachineJudgeKind.KEYWORD, by=by)
    job = judging_job_create(judge=judge, scope="all", by=by, enqueue=False)
    state = judging_job_execute(job_id=job.pk)
    return [f"demo judge: {DEMO_JUDGE} graded {job.total} candidates ({state})"]


DEMO_RAG = "bm25-extractive"  # BM25 whose answers come from the extractive baseline


def demo_runs(*, project: Project, version: GoldenSetVersion, by: AbstractBaseUser) -> list[str]:
    """BM25 and TF-IDF against `version`, each run once (BM25's run is the baseline), and BM25
    answering with the extractive baseline, so that the run page shows the answer metrics and
    the four quadrants against the demo's answer keys without a language model."""
    done: list[str] = []
    for name, kind, answerer in (
        ("bm25", "bm25", ""),
        ("tfidf", "tfidf", ""),
        (DEMO_RAG, "bm25", "extractive"),
    ):
        retriever = Retriever.objects.filter(project=project, name=name).first()
        if retriever is None:
            retriever = retriever_save(
                project=project, name=name, kind=kind, answerer=answerer, by=by
            )
        if EvaluationRun.objects.filter(retriever=retriever, version=version).exists():
            continue
        run = evaluation_run_create(
            project=project, retriever=retriever, version=version, ks=[1, 3, 5, 10], by=by,
            trigger="demo", enqueue=False,
        )  # fmt: skip
        run = evaluation_run_execute_inline(run_id=run.pk)
        if name == "bm25":
            baseline_set(run=run, by=by)
        done.append(f"demo run: {name} against {version.label} {run.state}")
    return done
