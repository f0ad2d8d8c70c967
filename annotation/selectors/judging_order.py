"""Reads for the judging order (goldsmith.judging_order): a query's pool with its sources'
ranks, priors from the project's resolved queries, and the order one annotator sees.

Blindness holds by what is read: the caller's own judgments of the query, and final grades
(Resolution) of queries already resolved or approved. No other annotator's judgment of an
unresolved query is ever queried here."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Exists, OuterRef

from annotation.models import (
    Candidate,
    CandidateSource,
    Judgment,
    Query,
    Resolution,
    StoppedCandidate,
)
from annotation.models.judging import JudgingOrder, ReviewState
from goldsmith import judging_order as jo

RESOLVED_QUERIES = 300  # the most recent resolved queries the priors learn from


def pooled_query(query_id: int, *, with_texts: bool = False) -> jo.PooledQuery:
    """The pool of a query in its plain order (the shuffle key), with each source's rank of
    each candidate (candidates added without a rank have none) and, `with_texts`, each
    candidate's chunk text (what the order's likeness to the relevant ones found reads)."""
    rows = Candidate.objects.filter(query_id=query_id).order_by("shuffle_key", "id")
    texts: dict[str, str] = {}
    if with_texts:
        for pk, text in rows.values_list("id", "chunk__text"):
            texts[str(pk)] = text
        candidates = list(texts)
    else:
        candidates = [str(pk) for pk in rows.values_list("id", flat=True)]
    ranks: dict[str, dict[str, int]] = {c: {} for c in candidates}
    for cand_id, source, rank in CandidateSource.objects.filter(
        candidate__query_id=query_id, rank__isnull=False
    ).values_list("candidate_id", "source__name", "rank"):
        ranks[str(cand_id)][source] = rank
    return jo.PooledQuery(str(query_id), tuple(candidates), ranks, texts)


def resolved_priors(*, project_id: int, exclude_query_id: int | None = None) -> jo.SourcePriors:
    """Priors from the final grades of the project's most recent resolved or approved queries."""
    done = (
        Query.objects.filter(
            project_id=project_id,
            review__state__in=[ReviewState.RESOLVED, ReviewState.APPROVED],
        )
        .exclude(pk=exclude_query_id)
        .order_by("-review__id")
        .values_list("id", flat=True)[:RESOLVED_QUERIES]
    )
    resolved = []
    for query_id in done:
        grades = {
            str(c): g
            for c, g in Resolution.objects.filter(candidate__query_id=query_id).values_list(
                "candidate_id", "grade"
            )
        }
        resolved.append(jo.ResolvedQuery(pooled_query(query_id), grades))
    return jo.priors_from_resolved(resolved)


def own_grades(*, query_id: int, annotator: AbstractBaseUser) -> dict[str, int]:
    """The caller's own grades of the query, by candidate id."""
    return {
        str(c): g
        for c, g in Judgment.objects.filter(
            candidate__query_id=query_id, annotator_id=annotator.pk
        ).values_list("candidate_id", "grade")
    }


def judging_order_for(*, query: Query, annotator: AbstractBaseUser) -> list[int]:
    """The candidates `annotator` has not judged yet, most likely relevant first."""
    pool = pooled_query(query.pk, with_texts=True)
    priors = resolved_priors(project_id=query.project_id, exclude_query_id=query.pk)
    order = jo.judging_order(pool, own_grades(query_id=query.pk, annotator=annotator), priors)
    return [int(c) for c in order]


def judged_in_order(*, query_id: int, annotator: AbstractBaseUser) -> list[int]:
    """The candidates `annotator` has graded on the query, in the order of their first grade
    (a regrade keeps its row): a graded query reloads in the order the annotator followed."""
    return list(
        Judgment.objects.filter(candidate__query_id=query_id, annotator_id=annotator.pk)
        .order_by("id")
        .values_list("candidate_id", flat=True)
    )


def own_checks(*, query_id: int, annotator: AbstractBaseUser) -> set[str]:
    """The caller's grades of the query given as random checks of the stop estimate."""
    return {
        str(c)
        for c in Judgment.objects.filter(
            candidate__query_id=query_id, annotator_id=annotator.pk, order=JudgingOrder.CHECK
        ).values_list("candidate_id", flat=True)
    }


def stop_estimate_for(*, query: Query, annotator: AbstractBaseUser) -> jo.StopEstimate:
    """Where `annotator`'s judging of `query` stands (goldsmith.judging_order.stop_estimate):
    read, like the order, from the pool, the caller's own grades and resolved queries only."""
    pool = pooled_query(query.pk)
    priors = resolved_priors(project_id=query.project_id, exclude_query_id=query.pk)
    grades = own_grades(query_id=query.pk, annotator=annotator)
    checks = own_checks(query_id=query.pk, annotator=annotator) & set(grades)
    return jo.stop_estimate(pool, grades, priors, checked=checks)


def stopped_left(*, assignment_ids: list[int]) -> dict[int, int]:
    """Per assignment, the candidates its stop left not judged (stopped) that its annotator
    has not graded since."""
    graded = Judgment.objects.filter(
        candidate_id=OuterRef("candidate_id"),
        annotator_id=OuterRef("stop__assignment__annotator_id"),
    )
    return dict(
        StoppedCandidate.objects.filter(stop__assignment_id__in=assignment_ids)
        .exclude(Exists(graded))
        .values("stop__assignment_id")
        .annotate(n=Count("id"))
        .values_list("stop__assignment_id", "n")
    )
