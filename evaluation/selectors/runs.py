"""Reads of the evaluation app: golden data for scoring, results, progress, trends, alerts."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from annotation.models import Chunk, Project
from annotation.models.goldsets import GoldenItem, GoldenJudgment, GoldenSetVersion
from evaluation.models import (
    AnswerJudge,
    Baseline,
    DriftAlert,
    EvaluationRun,
    QueryResult,
    Retriever,
    RunState,
)
from goldsmith.agreement import MACHINE
from goldsmith.answers.model import AnswerKey, Context, KeyFact, RankedItem, StagedQuery
from goldsmith.corpus import LiveChunk
from goldsmith.reporting import ChunkPlace, GoldItem, GoldJudgment, ResultRow

_LOOKUP_BATCH = 900  # SQLite allows 999 parameters per statement


def golden_items(
    *,
    version_id: int,
    query_ids: Sequence[str] | None = None,
    with_judgments: bool = True,
    with_texts: bool = True,
    machine_grades: bool = True,
) -> list[GoldItem]:
    """The version's queries (all, or the given ones) with their judgments, in query order.
    ``with_texts=False`` leaves out the judged chunks' texts (scoring needs none of them);
    ``machine_grades=False`` leaves out the grades a machine judge filled (provenance
    ``machine``): those chunks then score as unjudged."""
    fields = ("pk", "position", "query_id", "text", "category", "stratum", "weight")
    items = GoldenItem.objects.filter(version_id=version_id).order_by("position")
    if query_ids is not None:
        wanted = list(query_ids)
        rows = []
        for start in range(0, len(wanted), _LOOKUP_BATCH):
            part = items.filter(query_id__in=wanted[start : start + _LOOKUP_BATCH])
            rows.extend(part.values_list(*fields))
        rows.sort(key=lambda r: r[1])
    else:
        rows = list(items.values_list(*fields))
    judged: dict[int, list[GoldJudgment]] = {}
    if with_judgments:
        columns = ("item_id", "chunk_id", "grade", "doc_id", "start", "end")
        js = GoldenJudgment.objects.filter(item__version_id=version_id).order_by(
            "item_id", "position"
        )
        if not machine_grades:
            js = js.exclude(provenance=MACHINE)
        parts = [js]
        if query_ids is not None:
            pks = [r[0] for r in rows]
            parts = [
                js.filter(item_id__in=pks[i : i + _LOOKUP_BATCH])
                for i in range(0, len(pks), _LOOKUP_BATCH)
            ]
        for part in parts:
            if with_texts:
                for item_id, *judgment in part.values_list(*columns, "text"):
                    judged.setdefault(item_id, []).append(GoldJudgment(*judgment))
            else:
                for item_id, *judgment in part.values_list(*columns):
                    judged.setdefault(item_id, []).append(GoldJudgment(*judgment))
    return [
        GoldItem(
            query_id=query_id,
            text=text,
            category=category,
            stratum=stratum,
            weight=weight,
            judgments=tuple(judged.get(pk, ())),
        )
        for pk, _position, query_id, text, category, stratum, weight in rows
    ]


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


def answer_keys(*, version_id: int) -> list[AnswerKey]:
    """The version's answer keys (reference answer, type, choices, key facts), one per query
    in query order; a query without any is an empty key."""
    fields = (
        "query_id", "text", "category", "reference_answer", "answer_type", "choices",
        "reference_facts",
    )  # fmt: skip
    return [
        AnswerKey(
            query_id=qid,
            reference_answer=answer,
            answer_type=kind or None,
            choices=tuple(choices or ()),
            facts=tuple(KeyFact(f["text"], tuple(f.get("chunk_ids") or ())) for f in facts or ()),
            query=text,
            category=category,
        )
        for qid, text, category, answer, kind, choices, facts in GoldenItem.objects.filter(
            version_id=version_id
        )
        .order_by("position")
        .values_list(*fields)
    ]


def has_answer_keys(*, version_id: int) -> bool:
    """Whether some query of the version has a reference answer or a key fact."""
    items = GoldenItem.objects.filter(version_id=version_id)
    return (
        items.filter(reference_answer__isnull=False).exists()
        or items.exclude(reference_facts=[]).exists()
    )


def has_stages(*, run: EvaluationRun) -> bool:
    """Whether some answered query of the run carries candidates, contexts or a response."""
    return (
        QueryResult.objects.filter(run=run, error="")
        .filter(Q(candidates__isnull=False) | Q(contexts__isnull=False) | Q(response__isnull=False))
        .exists()
    )


def query_texts(*, version_id: int) -> dict[str, str]:
    """Query id → text of the version's queries."""
    return dict(GoldenItem.objects.filter(version_id=version_id).values_list("query_id", "text"))


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


def chunk_places(*, project: Project, chunk_ids: Iterable[str]) -> dict[str, ChunkPlace]:
    wanted = sorted(set(chunk_ids))
    out: dict[str, ChunkPlace] = {}
    for start in range(0, len(wanted), _LOOKUP_BATCH):
        for cid, doc, s, e in Chunk.objects.filter(
            project=project, chunk_id__in=wanted[start : start + _LOOKUP_BATCH]
        ).values_list("chunk_id", "document__doc_id", "start", "end"):
            out[cid] = ChunkPlace(doc, s, e)
    return out


def live_chunks(
    *, project: Project, chunk_ids: Iterable[str], graded: Mapping[str, str] | None = None
) -> dict[str, LiveChunk]:
    """The live (not removed) chunks among ``chunk_ids``, with their text sha256, and their text
    where it differs from the graded text's sha256 in ``graded`` (chunk id → sha256), so that
    a change of white space only is seen as such."""
    wanted = sorted(set(chunk_ids))
    graded = graded or {}
    out: dict[str, LiveChunk] = {}
    for start in range(0, len(wanted), _LOOKUP_BATCH):
        part = wanted[start : start + _LOOKUP_BATCH]
        for cid, sha in Chunk.objects.filter(
            project=project, removed=False, chunk_id__in=part
        ).values_list("chunk_id", "text_sha256"):
            out[cid] = LiveChunk(sha)
    # Texts only where the graded text differs (the rest are kept as they are).
    differ = sorted(c for c, live in out.items() if c in graded and graded[c] != live.text_sha256)
    for start in range(0, len(differ), _LOOKUP_BATCH):
        for cid, text in Chunk.objects.filter(
            project=project, chunk_id__in=differ[start : start + _LOOKUP_BATCH]
        ).values_list("chunk_id", "text"):
            out[cid] = LiveChunk(out[cid].text_sha256, text)
    return out


def chunk_texts(*, project: Project, chunk_ids: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for start in range(0, len(chunk_ids), _LOOKUP_BATCH):
        out.update(
            Chunk.objects.filter(
                project=project, chunk_id__in=chunk_ids[start : start + _LOOKUP_BATCH]
            ).values_list("chunk_id", "text")
        )
    return out


def corpus_state(*, project: Project) -> tuple[str, int]:
    """sha256 over the (chunk id, text hash) of the live chunks, in chunk id order, and their
    count: equal for an unchanged corpus, different after any re-chunking or text change."""
    digest = hashlib.sha256()
    count = 0
    rows = (
        Chunk.objects.filter(project=project, removed=False)
        .order_by("chunk_id")
        .values_list("chunk_id", "text_sha256")
    )
    for chunk_id, text_sha in rows.iterator(chunk_size=5000):
        digest.update(f"{chunk_id}\t{text_sha}\n".encode())
        count += 1
    return digest.hexdigest(), count


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


def retrievers_of(*, project: Project) -> QuerySet[Retriever]:
    return Retriever.objects.filter(project=project).select_related("baseline")


def answer_judges_of(*, project: Project) -> QuerySet[AnswerJudge]:
    return AnswerJudge.objects.filter(project=project).order_by("name")


def versions_of(*, project: Project) -> QuerySet[GoldenSetVersion]:
    return GoldenSetVersion.objects.filter(project=project).order_by("-created_at", "-id")


def baseline_run_id(*, retriever: Retriever) -> int | None:
    return Baseline.objects.filter(retriever=retriever).values_list("run_id", flat=True).first()


def recent_alerts(*, project: Project, limit: int = 10) -> QuerySet[DriftAlert]:
    return DriftAlert.objects.filter(run__project=project).select_related("run", "run__retriever")[
        :limit
    ]


def trend(*, retriever: Retriever, metrics: Sequence[str], limit: int = 50) -> dict[str, object]:
    """Each metric's mean across the retriever's finished runs (oldest first)."""
    runs = list(
        EvaluationRun.objects.filter(retriever=retriever, state=RunState.SUCCEEDED).order_by(
            "-created_at", "-id"
        )[:limit]
    )[::-1]
    series = {
        m: [((r.report.get("aggregate") or {}).get(m) or {}).get("mean") for r in runs]
        for m in metrics
    }
    return {
        "runs": [{"id": r.pk, "created_at": r.created_at, "version": r.version_id} for r in runs],
        "series": series,
        "baseline": baseline_run_id(retriever=retriever),
    }


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
