"""Runs with figures chosen by the test: run-file retrievers over `make_golden` versions.

Query qi of `make_golden` has two relevant chunks, r{i}a and r{i}b. A per-query recall of
1.0 answers both, 0.5 one of them, 0.0 only the judged non-relevant n{i}, so a test sets the
mean recall and the pass rate exactly, and the TREC file it uploads is also the file
`goldsmith` reads. Every chunk answered is judged (judged@K 1: a verdict needs 0.8).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evaluation.models import EvaluationRun, Retriever
from evaluation.services.retrievers import retriever_save
from evaluation.services.runs import evaluation_run_create, evaluation_run_execute_inline
from goldsmith.formats.trec import write_trec_run


def answers_with(recalls: Sequence[float]) -> dict[str, list[str]]:
    """Ranked ids for q1..qn whose Recall@K (K ≥ 2) is recalls[i - 1] (1.0, 0.5 or 0.0)."""
    out: dict[str, list[str]] = {}
    for i, r in enumerate(recalls, 1):
        if r == 1.0:
            out[f"q{i}"] = [f"r{i}a", f"r{i}b", f"n{i}"]
        elif r == 0.5:
            out[f"q{i}"] = [f"r{i}a", f"n{i}"]
        elif r == 0.0:
            out[f"q{i}"] = [f"n{i}"]
        else:
            raise ValueError(f"recall {r} cannot be made with two relevant chunks")
    return out


def write_run(path: Path, answers: dict[str, list[str]]) -> Path:
    """A TREC run; scores fall with the rank, so any reader keeps the order."""
    rows = [
        (qid, chunk, rank, float(100 - rank))
        for qid, ids in answers.items()
        for rank, chunk in enumerate(ids, 1)
    ]
    with path.open("w", encoding="utf-8") as out:
        write_trec_run(out, rows, run_id="test")
    return path


def run_with(
    project: object,
    version: object,
    recalls: Sequence[float],
    tmp_path: Path,
    *,
    name: str = "files",
    **create: object,
) -> EvaluationRun:
    """Upload a run file with these per-query recalls to retriever `name` (created when
    missing) and run it inline. The file is kept at ``tmp_path / f"{name}-{run id}.txt"``."""
    retriever = Retriever.objects.filter(project=project, name=name).first()
    if retriever is None:
        retriever = retriever_save(project=project, name=name, kind="runfile")
    count = retriever.run_files.count()
    path = write_run(tmp_path / f"{name}-upload{count}.txt", answers_with(recalls))
    retriever_save(project=project, retriever=retriever, run_file=path)
    run = evaluation_run_create(
        project=project, retriever=retriever, version=version, enqueue=False, **create
    )
    run = evaluation_run_execute_inline(run_id=run.pk)
    path.rename(tmp_path / f"{name}-{run.pk}.txt")
    return run
