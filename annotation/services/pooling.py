"""Candidate pools: the union of the top k of several sources for each query.

A source adds hits (query, chunk, rank). New (query, chunk) pairs become candidates; a pair
already in the pool only records that one more source found it. Queries that gained candidates
go back into their annotators' queues and back to the "open" review state.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone, translation
from django.utils.translation import gettext

from annotation.models import (
    Candidate,
    Chunk,
    ImportStatus,
    PoolBuild,
    PoolSource,
    Project,
    Query,
    QueryReview,
)
from annotation.models.judging import SourceKind
from annotation.selectors.judging import closed_to_new_chunks
from annotation.selectors.languages import user_language_of
from annotation.services.judging import JudgingClosed
from annotation.services.pool_hits import PoolResult, _corpus, pool_add_hits
from sitewide.text_input import single_line

DEFAULT_K = 10
ANNOTATOR_SOURCE = "annotators"


def _source_for(*, project: Project, name: str, kind: str, k: int) -> PoolSource:
    source, created = PoolSource.objects.get_or_create(
        project=project, name=name, defaults={"kind": kind, "k": k}
    )
    if not created and source.kind != kind:
        raise ValueError(
            gettext("source %(name)r already exists as %(kind)s, not %(new_kind)s")
            % {"name": name, "kind": source.kind, "new_kind": kind}
        )
    if not created and source.k != k:
        source.k = k
        source.save(update_fields=["k"])
    return source


class PoolBuildBusy(Exception):
    """The project's pools are being built already: one build at a time."""


def _check_builtin(kind: str, k: int) -> None:
    if kind not in (SourceKind.BM25, SourceKind.TFIDF):
        raise ValueError(
            gettext("unknown built-in retriever %(kind)r; use bm25 or tfidf") % {"kind": kind}
        )
    if k < 1:
        raise ValueError(gettext("k must be at least 1"))


def pool_build_queue(
    *, project: Project, kinds: Iterable[str], k: int, created_by: object = None
) -> PoolBuild:
    """Queue a build of the built-in retrievers' pools for a worker (`pool_build_run`), so the
    lead's request returns at once whatever the project's size. Refused (:class:`PoolBuildBusy`)
    while another build of the project is queued or running; a build whose worker has not been
    heard of for ``GOLDSMITH_IMPORT_STALE_SECONDS`` is failed first, never waited for."""
    from annotation import tasks

    retrievers = list(dict.fromkeys(kinds))
    if not retrievers:
        raise ValueError(gettext("choose at least one retriever"))
    for kind in retrievers:
        _check_builtin(kind, k)
    with transaction.atomic():
        Project.objects.select_for_update().get(pk=project.pk)
        pool_builds_fail_stale(project=project)
        if PoolBuild.objects.filter(
            project=project, status__in=(ImportStatus.QUEUED, ImportStatus.RUNNING)
        ).exists():
            raise PoolBuildBusy(
                gettext("the pools are being built already: wait until that build has ended")
            )
        build = PoolBuild.objects.create(
            project=project, retrievers=retrievers, k=k, created_by=created_by
        )
        language = translation.get_language()
        transaction.on_commit(lambda: tasks.pool_build_execute.delay(build.pk, language))
    return build


def pool_builds_fail_stale(*, project: Project | None = None) -> list[int]:
    """Fail the builds (of `project`, or of every project) that no worker will end: running
    with no word from their worker for ``GOLDSMITH_IMPORT_STALE_SECONDS``, or still queued that
    long after they were asked for (the broker lost the message). The watchdog calls it every
    minute and `pool_build_queue` before it refuses a build as busy. The reason is written in
    the language of the lead who asked for the build. Returns the failed builds' ids."""
    now = timezone.now()
    since = now - timedelta(seconds=float(settings.GOLDSMITH_IMPORT_STALE_SECONDS))
    builds = (
        PoolBuild.objects.all() if project is None else PoolBuild.objects.filter(project=project)
    )
    stale = builds.filter(
        Q(status=ImportStatus.RUNNING, heartbeat_at__lt=since)
        | Q(status=ImportStatus.QUEUED, created_at__lt=since)
    ).select_related("created_by")
    failed: list[int] = []
    for build in stale:
        asker = build.created_by
        with translation.override(user_language_of(asker) if asker else None):
            if build.status == ImportStatus.RUNNING:
                error = gettext("the worker building the pools stopped before it ended")
            else:
                error = gettext("no worker took this build: ask for it again")
        if PoolBuild.objects.filter(pk=build.pk, status=build.status).update(
            status=ImportStatus.FAILED, error=error, finished_at=now
        ):
            failed.append(build.pk)
    return failed


def pool_build_run(*, build_id: int) -> PoolBuild | None:
    """Run a queued build, retriever after retriever, each one's result stored as it ends (the
    worker's side of `pool_build_queue`). Safe to run twice: a build already claimed, ended or
    deleted is left alone (None). A refusal fails the build with its reason; so does a bug,
    which is raised again for the worker's log. A build the watchdog failed meanwhile (its
    worker was silent too long) stays failed: what it pooled is kept, it is not marked done."""
    now = timezone.now()
    claimed = PoolBuild.objects.filter(pk=build_id, status=ImportStatus.QUEUED).update(
        status=ImportStatus.RUNNING, started_at=now, heartbeat_at=now
    )
    if not claimed:
        return None
    build = PoolBuild.objects.select_related("project").get(pk=build_id)
    running = PoolBuild.objects.filter(pk=build_id, status=ImportStatus.RUNNING)
    try:
        for kind in build.retrievers:
            result = pool_build_builtin(project=build.project, kind=kind, k=build.k)
            build.results = [*build.results, vars(result)]
            if not running.update(results=build.results, heartbeat_at=timezone.now()):
                break  # failed by the watchdog
        else:
            running.update(status=ImportStatus.DONE, finished_at=timezone.now())
    except Exception as error:
        running.update(
            status=ImportStatus.FAILED,
            error=str(error)
            if isinstance(error, ValueError)
            else gettext("the build stopped on an unexpected error; the worker's log has it"),
            finished_at=timezone.now(),
        )
        if not isinstance(error, ValueError):
            raise
    build.refresh_from_db()
    return build


def pool_build_builtin(
    *,
    project: Project,
    kind: str,
    k: int = DEFAULT_K,
    query_ids: Iterable[int] | None = None,
) -> PoolResult:
    """Pool the top k of a built-in retriever ("bm25" or "tfidf") over the project's corpus,
    its texts cut by the project's tokenizer."""
    from goldsmith.retrievers.builtin import build_retriever

    _check_builtin(kind, k)
    queries = Query.objects.filter(project=project).order_by("id")
    if query_ids is not None:
        queries = queries.filter(id__in=list(query_ids))
    rows = list(queries.values_list("id", "text"))
    corpus, pks = _corpus(project)
    retriever = build_retriever(kind, corpus, tokenizer=project.tokenizer)
    results = retriever.search([text for _, text in rows], k)
    hits = {
        qid: [pks[hit.id] for hit in ranked] for (qid, _), ranked in zip(rows, results, strict=True)
    }
    source = _source_for(project=project, name=kind, kind=kind, k=k)
    return pool_add_hits(source=source, hits=hits)


def pool_import_run(
    *,
    project: Project,
    name: str,
    path: Path,
    format: str = "auto",
    k: int = DEFAULT_K,
) -> PoolResult:
    """Pool the top k of an imported run of a production retriever (TREC run or JSONL).

    The run's query ids are Goldsmith query ids (as exported); its document ids are chunk ids.
    A run usually covers more queries than were sampled: rows naming a query or a chunk the
    project does not hold are skipped and counted. A run that matches nothing is refused.
    """
    from goldsmith.formats.detect import read_run

    if k < 1:
        raise ValueError(gettext("k must be at least 1"))
    name = single_line(name, gettext("a run's name"))
    if not name or name in {SourceKind.BM25, SourceKind.TFIDF, ANNOTATOR_SOURCE}:
        raise ValueError(gettext("give the run a name of its own (not bm25, tfidf or annotators)"))
    if format not in ("auto", "trec", "jsonl"):
        raise ValueError(
            gettext("unknown run format %(format)r; use auto, trec or jsonl") % {"format": format}
        )
    run = read_run(path, None if format == "auto" else format)  # type: ignore[arg-type]  # checked just above
    chunk_ids = dict(Chunk.objects.filter(project=project).values_list("chunk_id", "id"))
    query_ids = set(Query.objects.filter(project=project).values_list("id", flat=True))
    hits: dict[int, list[int]] = {}
    unknown: list[str] = []
    for qid, ranked in _ranked_lists(run).items():
        try:
            query_pk = int(qid)
        except ValueError:
            query_pk = -1
        if query_pk not in query_ids:
            unknown.append(f"query {qid}")
            continue
        top: list[int] = []
        for doc_id in ranked:
            if len(top) >= k:
                break
            if doc_id not in chunk_ids:
                unknown.append(f"chunk {doc_id}")
                continue
            if chunk_ids[doc_id] not in top:
                top.append(chunk_ids[doc_id])
        hits[query_pk] = top
    if not any(hits.values()):
        shown = ", ".join(unknown[:3])
        raise ValueError(
            gettext("the run matches no query and chunk of this project (e.g. %(shown)s)")
            % {"shown": shown}
        )
    source = _source_for(project=project, name=name, kind=SourceKind.RUN, k=k)
    result = pool_add_hits(source=source, hits=hits)
    return replace(result, skipped=len(unknown))


def _ranked_lists(run) -> dict[str, list[str]]:
    """Query id → chunk ids in the retriever's rank order (ties keep file order)."""
    import numpy as np

    order = np.lexsort((np.arange(len(run.ids)), run.ranks, run.qidx))
    lists: dict[str, list[str]] = {}
    for i in order:
        qid = run.query_ids[int(run.qidx[i])]
        lists.setdefault(qid, []).append(run.ids[i].decode("utf-8"))
    return lists


@transaction.atomic
def candidate_add_by_annotator(
    *, query: Query, chunk: Chunk, user: AbstractBaseUser
) -> tuple[Candidate, bool]:
    """An annotator found `chunk` through corpus search and adds it to `query`'s pool.

    Refused with JudgingClosed once the query is approved or adjudicated, whoever asks (its
    grades are final); leads reopen it by pooling more chunks. The review row is locked, so an
    approval and an addition never interleave."""
    if chunk.project_id != query.project_id or chunk.removed:
        raise ValueError(gettext("that chunk is not in this project's corpus"))
    review = QueryReview.objects.select_for_update().filter(query=query).first()
    refusal = closed_to_new_chunks(review)
    if refusal:
        raise JudgingClosed(refusal)
    source = _source_for(
        project=query.project, name=ANNOTATOR_SOURCE, kind=SourceKind.ANNOTATOR, k=0
    )
    existed = Candidate.objects.filter(query=query, chunk=chunk).exists()
    pool_add_hits(source=source, hits={query.pk: [chunk.pk]}, added_by=user, ranked=False)
    return Candidate.objects.get(query=query, chunk=chunk), not existed
