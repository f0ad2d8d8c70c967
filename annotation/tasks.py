"""Celery tasks of the annotation app: ids in, one service call, safe to run twice."""

from __future__ import annotations

import socket

from celery import shared_task
from django.utils import translation

from annotation.models import WorkerPing


@shared_task
def worker_ping(token: str) -> None:
    """Record that a worker ran. Running it twice leaves one row."""
    WorkerPing.objects.get_or_create(token=token, defaults={"hostname": socket.gethostname()})


# --- imports (corpus and query logs): the import row is claimed, so a second run is a no-op --


# `language`: the uploader's (their request's), so that the reason a file is refused, stored
# with the import, is written in the language of the person who will read it.


@shared_task(acks_late=True)
def corpus_import_execute(corpus_import_id: int, language: str | None = None) -> None:
    from annotation.services.corpus import corpus_import_run

    with translation.override(language):
        corpus_import_run(corpus_import_id=corpus_import_id, index="worker")


@shared_task(acks_late=True)
def query_log_import_execute(query_log_id: int, language: str | None = None) -> None:
    from annotation.services.querylogs import query_log_run

    with translation.override(language):
        query_log_run(query_log_id=query_log_id)


@shared_task
def imports_watchdog() -> list[str]:
    """Fail the imports and the pool builds whose worker died mid-way (periodic; safe to run
    twice)."""
    from annotation.services.imports import imports_watchdog as watchdog
    from annotation.services.pooling import pool_builds_fail_stale

    return watchdog() + [f"poolbuild #{pk}" for pk in pool_builds_fail_stale()]


@shared_task(acks_late=True)
def corpus_search_backlog() -> list[int]:
    """Index the chunks an import left without a search vector (its worker died after the
    commit, or the index build failed). Periodic; safe to run twice, even at once."""
    from annotation.services.search import search_backlog_projects, search_index_build

    projects = search_backlog_projects()
    for project_id in projects:
        search_index_build(project_id=project_id)
    return projects


@shared_task(acks_late=True)
def project_search_index_build(project_id: int) -> int:
    """Index the project's chunks that have no search vector: after an upload's import is done
    (its chunks stored), or after the project's tokenizer changed the kind of index. Safe to
    run twice, even at once."""
    from annotation.services.search import search_index_build

    return search_index_build(project_id=project_id)


# --- pools ---------------------------------------------------------------------------------


@shared_task(acks_late=True)
def pool_build_execute(build_id: int, language: str | None = None) -> None:
    """Build the pools a lead asked for on the pools page. Safe to run twice: the build row is
    claimed. `language`: the lead's, for the reason a refusal stores."""
    from annotation.services.pooling import pool_build_run

    with translation.override(language):
        pool_build_run(build_id=build_id)


# --- judging: agreement --------------------------------------------------------------------


@shared_task(acks_late=True)
def project_agreement_recompute(project_id: int) -> None:
    """Recompute every finished query's agreement and flags from stored judgments. Safe to run
    twice: it only reads judgments and upserts one QueryAgreement row per query."""
    from annotation.models import Project
    from annotation.services.adjudication import project_agreement_recompute as recompute

    project = Project.objects.filter(pk=project_id).first()
    if project is not None:
        recompute(project=project)


@shared_task(acks_late=True)
def project_settle_again(project_id: int) -> int:
    """Settle a project's finished queries again after a change of tie rule or flag kappa."""
    from annotation.services.adjudication import project_settle_again as settle

    return settle(project_id=project_id)
