"""Reads of runs: results, stages, progress, lists, drift alerts, pool contributions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from annotation.models import Project
from annotation.models.goldsets import GoldenJudgment
from evaluation.models import (
    DriftAlert,
    EvaluationRun,
    QueryResult,
    RunState,
)
from goldsmith.answers.model import Context, RankedItem, StagedQuery
from goldsmith.reporting import ResultRow


def result_rows(
    *, run: EvaluationRun, ranking_only: bool = False, with_docs: bool = True
) -> dict[str, ResultRow]:
    """The run's stored results by query id. ``ranking_only``: ids, errors and (``with_docs``)
    documents, not the scores, snippets and latency: what scoring and comparing need (chunk-id
    matching needs no documents)."""
    if ranking_only:
        results = QueryResult.objects.filter(run=run)
        if not with_docs:
            return {
                q: ResultRow(query_id=q, ids=tuple(ids), error=error)
                for q, ids, error in results.values_list("query_id", "ranked_ids", "error")
            }
        return {
            q: ResultRow(query_id=q, ids=tuple(ids), doc_ids=tuple(docs or ()), error=error)
            for q, ids, docs, error in results.values_list(
                "query_id", "ranked_ids", "doc_ids", "error"
            )
        }
    fields = ("query_id", "ranked_ids", "scores", "doc_ids", "snippets", "latency_ms", "error")
    return {
        q: ResultRow(
            query_id=q,
            ids=tuple(ids),
            scores=tuple(scores or ()),
            doc_ids=tuple(docs or ()),
            snippets=tuple(snips or ()),
            latency_ms=latency,
            error=error,
        )
        for q, ids, scores, docs, snips, latency, error in QueryResult.objects.filter(
            run=run
        ).values_list(*fields)
    }


def has_stages(*, run: EvaluationRun) -> bool:
    """Whether some answered query of the run carries candidates, contexts or a response."""
    return (
        QueryResult.objects.filter(run=run, error="")
        .filter(Q(candidates__isnull=False) | Q(contexts__isnull=False) | Q(response__isnull=False))
        .exists()
    )


def _padded(values: Sequence[object] | None, n: int) -> list[object]:
    """``values`` cut or padded with None to ``n`` items."""
    out = list(values or ())[:n]
    return out + [None] * (n - len(out))


def staged_rows(*, run: EvaluationRun) -> list[StagedQuery]:
    """The run's answered queries with every stage stored (docs/formats.md, "stages"); the
    final list's items carry their snippets as text (the report fills whole texts where it
    needs them). Failed queries are left out: they score as missing from the run."""
    fields = (
        "query_id", "ranked_ids", "scores", "snippets", "candidates", "candidate_scores",
        "contexts", "response",
    )  # fmt: skip
    out: list[StagedQuery] = []
    rows = QueryResult.objects.filter(run=run, error="").order_by("query_id").values_list(*fields)
    for qid, ids, scores, snips, cands, cand_scores, contexts, response in rows.iterator(
        chunk_size=2000
    ):
        n = len(ids)
        out.append(
            StagedQuery(
                query_id=qid,
                results=tuple(map(RankedItem, ids, _padded(scores, n), _padded(snips, n))),
                candidates=None
                if cands is None
                else tuple(map(RankedItem, cands, _padded(cand_scores, len(cands)))),
                contexts=None
                if contexts is None
                else tuple(Context(c["id"], c["text"]) for c in contexts),
                response=response,
            )
        )
    return out


@dataclass(frozen=True)
class Progress:
    state: str
    total: int
    done: int
    failed: int
    seconds_left: float | None
    error: str

    @property
    def fraction(self) -> float:
        return min(self.done / self.total, 1.0) if self.total else 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "state": self.state,
            "total": self.total,
            "done": self.done,
            "failed": self.failed,
            "progress": self.fraction,
            "seconds_left": self.seconds_left,
            "error": self.error,
        }


def run_progress(*, run: EvaluationRun, now: datetime | None = None) -> Progress:
    """Done/total from the stored rows (so a batch run twice is not counted twice), and an
    estimate of the time left from the rate so far."""
    counts = QueryResult.objects.filter(run=run).aggregate(
        done=Count("id"), failed=Count("id", filter=~Q(error=""))
    )
    done, failed = int(counts["done"] or 0), int(counts["failed"] or 0)
    left: float | None = None
    if run.state == RunState.RUNNING and run.started_at and done:
        elapsed = ((now or timezone.now()) - run.started_at).total_seconds()
        left = max(0.0, elapsed / done * (run.total - done))
    elif run.finished:
        left = 0.0
    return Progress(run.state, run.total, done, failed, left, run.error)


def runs_of(*, project: Project) -> QuerySet[EvaluationRun]:
    return EvaluationRun.objects.filter(project=project).select_related(
        "retriever", "version", "corpus_version"
    )


def recent_alerts(*, project: Project, limit: int = 10) -> QuerySet[DriftAlert]:
    return DriftAlert.objects.filter(run__project=project).select_related("run", "run__retriever")[
        :limit
    ]


def pool_contributions(
    *, run: EvaluationRun
) -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[str]] | None:
    """What the pool bias of a run is computed from (`goldsmith.pool_bias`): the (query id,
    chunk id) pairs its golden set judged that some pool source found, the pairs the run's own
    retriever put in the pools, and the names of its sources; None when the judged candidates
    carry no pool data (a golden set imported from a file): then nothing is said.

    A retriever's own pool sources: the built-in pool of its kind (a BM25 or TF-IDF retriever
    and the project's `bm25` / `tfidf` pool), a run pooled under the retriever's name, and the
    unjudged chunks of its own runs sent back to the pools (`run-<id>-<name>`)."""
    from annotation.models import CandidateSource, PoolSource
    from annotation.models.judging import SourceKind

    retriever = run.retriever
    judged = {
        (q, c)
        for q, c in GoldenJudgment.objects.filter(item__version_id=run.version_id).values_list(
            "item__query_id", "chunk_id"
        )
    }
    pooled = CandidateSource.objects.filter(candidate__query__project_id=run.project_id)
    pairs = {
        (str(q), c)
        for q, c in pooled.values_list("candidate__query_id", "candidate__chunk__chunk_id")
    }
    found = judged & pairs
    if not found:
        return None
    run_ids = EvaluationRun.objects.filter(retriever=retriever).values_list("pk", flat=True)
    names = [retriever.name, *(f"run-{pk}-{retriever.name}"[:120] for pk in run_ids)]
    own_sources = PoolSource.objects.filter(project_id=run.project_id).filter(
        Q(kind=SourceKind.RUN, name__in=names)
        | Q(kind=retriever.kind, name=retriever.kind, kind__in=[SourceKind.BM25, SourceKind.TFIDF])
    )
    own = {
        (str(q), c)
        for q, c in pooled.filter(source__in=own_sources).values_list(
            "candidate__query_id", "candidate__chunk__chunk_id"
        )
    }
    return sorted(found), sorted(own & found), sorted(own_sources.values_list("name", flat=True))
