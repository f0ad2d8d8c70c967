"""Sampling queries from an imported log into the project (see `goldsmith.intake.sampling`).

The pool is the log's distinct queries, with near-duplicates collapsed onto their most frequent
variant (which carries the group's volume), minus the queries already in the project.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.utils.translation import gettext

from annotation.models import ImportStatus, LogQuery, Project, Query, QueryLog, Sample
from goldsmith.intake import sampling

BY_FIELDS = ("category", "band", "cluster", "feedback")


class SamplingError(ValueError):
    pass


@dataclass(frozen=True)
class SampleRow:
    log_query_id: int
    text: str
    normalized: str
    category: str
    count: int
    stratum: str
    weight: float


@dataclass
class SampleOutcome:
    log: QueryLog
    strategy: str
    by: str
    allocation: str
    seed: int
    n_requested: int
    params: dict[str, object]
    pool_size: int
    excluded: int
    rows: list[SampleRow]
    strata: list[dict[str, object]]
    sample: Sample | None = None
    pool: list[LogQuery] = field(default_factory=list, repr=False)

    def provenance(self) -> dict[str, object]:
        return {
            "log_sha256": self.log.sha256,
            "log_filename": self.log.filename,
            "strategy": self.strategy,
            "by": self.by,
            "allocation": self.allocation,
            "seed": self.seed,
            "n_requested": self.n_requested,
            "params": self.params,
            "strata": self.strata,
        }


def _cluster_names(log: QueryLog) -> dict[int, str]:
    return {int(c["id"]): f"{c['id']}: {c['name']}" for c in log.report.get("clusters", [])}


def _field_values(pool: list[LogQuery], by: str, log: QueryLog) -> list[str]:
    if by == "category":
        return [q.category for q in pool]
    if by == "band":
        return [q.band for q in pool]
    if by == "cluster":
        names = _cluster_names(log)
        return [names.get(q.cluster, str(q.cluster)) for q in pool]
    if by == "feedback":
        return ["negative" if q.negative else "other" for q in pool]
    raise SamplingError(
        gettext("unknown field %(by)r for --by; use one of %(names)s")
        % {"by": by, "names": ", ".join(BY_FIELDS)}
    )


def sample_draw(
    *,
    project: Project,
    log: QueryLog,
    n: int,
    strategy: str,
    seed: int,
    by: str = "",
    allocation: str = "",
) -> SampleOutcome:
    """Choose the queries (reads only: a dry run)."""
    if log.project_id != project.pk:
        raise SamplingError(gettext("that log belongs to another project"))
    if log.status != ImportStatus.DONE:
        raise SamplingError(
            gettext("log #%(pk)s is not imported yet (status %(status)s)")
            % {"pk": log.pk, "status": ImportStatus(log.status).label.lower()}
        )
    if strategy not in sampling.STRATEGIES:
        raise SamplingError(
            gettext("unknown strategy %(strategy)r; use one of %(names)s")
            % {"strategy": strategy, "names": ", ".join(sampling.STRATEGIES)}
        )
    if n < 1:
        raise SamplingError(gettext("n must be at least 1"))
    if not 0 <= seed <= sampling.SEED_MAX:
        raise SamplingError(
            gettext("the seed must be a whole number from 0 to %(max)s")
            % {"max": sampling.SEED_MAX}
        )
    if strategy == sampling.STRATIFIED and not by:
        raise SamplingError(gettext("the stratified strategy needs a field to stratify by (--by)"))
    if by and strategy != sampling.STRATIFIED:
        raise SamplingError(gettext("--by goes with the stratified strategy only"))
    if allocation and allocation not in sampling.ALLOCATIONS:
        raise SamplingError(
            gettext("unknown allocation %(allocation)r; use one of %(names)s")
            % {"allocation": allocation, "names": ", ".join(sampling.ALLOCATIONS)}
        )
    in_project = set(Query.objects.filter(project=project).values_list("normalized", flat=True))
    candidates = list(
        LogQuery.objects.filter(log=log, is_representative=True)
        .only("id", "normalized", "text", "category", "group_volume", "negative", "band", "cluster")
        .order_by("normalized")
    )
    pool = [q for q in candidates if q.normalized not in in_project]
    excluded = len(candidates) - len(pool)
    if not pool:
        raise SamplingError(
            gettext("no query of this log is left to sample (all are in the project)")
        )
    counts = [q.group_volume for q in pool]
    strata, default_allocation, priority = sampling.strata_for(
        strategy,
        counts=counts,
        # Bands are those of the whole log's traffic (set at import), not of what is left.
        field_values=_field_values(pool, by or "band", log),
        negatives=[q.negative for q in pool],
        clusters=_field_values(pool, "cluster", log),
    )
    allocation = allocation or default_allocation
    result = sampling.draw(
        keys=[q.normalized for q in pool],
        counts=counts,
        strata=strata,
        n=n,
        allocation=allocation,
        seed=seed,
        priority=priority,
    )
    rows = [
        SampleRow(
            log_query_id=pool[c.index].pk,
            text=pool[c.index].text,
            normalized=pool[c.index].normalized,
            category=pool[c.index].category,
            count=pool[c.index].group_volume,
            stratum=c.stratum,
            weight=c.weight,
        )
        for c in result.chosen
    ]
    params: dict[str, object] = {"pool": "distinct queries, near-duplicates collapsed"}
    if strategy == sampling.FREQUENCY:
        params.update(bands="head < 50 % of log volume ≤ torso < 80 % ≤ tail (set at import)")
    if strategy == sampling.CLUSTER or by == "cluster":
        params.update(clusters=log.clusters, cluster_seed=0)
    return SampleOutcome(
        log=log,
        strategy=strategy,
        by=by,
        allocation=allocation,
        seed=seed,
        n_requested=n,
        params=params,
        pool_size=len(pool),
        excluded=excluded,
        rows=rows,
        strata=[
            {
                "name": s.name,
                "size": s.size,
                "volume": s.volume,
                "share": round(s.share, 6),
                "allocated": s.allocated,
                "weight": round(s.weight, 6),
            }
            for s in result.strata
        ],
        pool=pool,
    )


@transaction.atomic
def sample_create(
    *,
    project: Project,
    log: QueryLog,
    n: int,
    strategy: str,
    seed: int,
    by: str = "",
    allocation: str = "",
    created_by: object | None = None,
) -> SampleOutcome:
    """Draw and store: a Sample with its provenance and one project Query per chosen query."""
    outcome = sample_draw(
        project=project,
        log=log,
        n=n,
        strategy=strategy,
        seed=seed,
        by=by,
        allocation=allocation,
    )
    sample = Sample.objects.create(
        project=project,
        log=log,
        **outcome.provenance(),
        n_chosen=len(outcome.rows),
        pool_size=outcome.pool_size,
        excluded=outcome.excluded,
        created_by=created_by if getattr(created_by, "pk", None) else None,
    )
    Query.objects.bulk_create(
        [
            Query(
                project=project,
                text=row.text,
                normalized=row.normalized,
                category=row.category,
                stratum=row.stratum,
                weight=row.weight,
                sample=sample,
                log_query_id=row.log_query_id,
            )
            for row in outcome.rows
        ],
        batch_size=1000,
    )
    outcome.sample = sample
    return outcome
