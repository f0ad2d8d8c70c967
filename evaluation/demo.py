"""The demo's evaluation part: the two built-in baselines run against the demo's v1."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from annotation.models import GoldenSetVersion, Project
from evaluation.models import EvaluationRun, Retriever
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import (
    baseline_set,
    evaluation_run_create,
    evaluation_run_execute_inline,
)


def demo_runs(*, project: Project, version: GoldenSetVersion, by: AbstractBaseUser) -> list[str]:
    done: list[str] = []
    for kind in ("bm25", "tfidf"):
        retriever = Retriever.objects.filter(project=project, name=kind).first()
        if retriever is None:
            retriever = retriever_save(project=project, name=kind, kind=kind, by=by)
        if EvaluationRun.objects.filter(retriever=retriever, version=version).exists():
            continue
        run = evaluation_run_create(
            project=project, retriever=retriever, version=version, ks=[1, 3, 5, 10], by=by,
            trigger="demo", enqueue=False,
        )  # fmt: skip
        run = evaluation_run_execute_inline(run_id=run.pk)
        if kind == "bm25":
            baseline_set(run=run, by=by)
        done.append(f"demo run: {kind} against {version.label} {run.state}")
    return done
