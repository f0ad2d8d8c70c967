"""Reads of query logs and samples: lists and the distributions the lead's plots show."""

from __future__ import annotations

from collections import Counter, defaultdict

from django.db.models import Count, QuerySet, Sum
from django.utils.translation import gettext, pgettext

from annotation.models import LogQuery, Project, Query, QueryLog, Sample


def query_logs(*, project: Project) -> QuerySet[QueryLog]:
    return QueryLog.objects.filter(project=project).order_by("-created_at", "-id")


def samples(*, project: Project) -> QuerySet[Sample]:
    return Sample.objects.filter(project=project).select_related("log")


def top_queries(*, log: QueryLog, limit: int = 50) -> list[dict[str, object]]:
    """The most frequent queries with every near-duplicate variant listed beside them."""
    heads = list(LogQuery.objects.filter(log=log, is_representative=True).order_by("rank")[:limit])
    grouped = [h.near_group for h in heads if h.group_size > 1]
    variants: dict[int, list[LogQuery]] = defaultdict(list)
    for q in LogQuery.objects.filter(log=log, near_group__in=grouped, is_representative=False):
        variants[q.near_group].append(q)
    return [
        {"query": h, "variants": sorted(variants[h.near_group], key=lambda q: q.rank)}
        for h in heads
    ]


def _bars(before: dict[str, float], after: dict[str, float] | None) -> list[dict[str, object]]:
    """Rows for a before/after bar chart: label, shares (0..1) and widths (% of the largest)."""
    total_b = sum(before.values()) or 1.0
    total_a = sum((after or {}).values()) or 1.0
    labels = sorted(set(before) | set(after or {}), key=lambda k: (-before.get(k, 0.0), k))
    rows = []
    for label in labels:
        b = before.get(label, 0.0) / total_b
        a = (after or {}).get(label, 0.0) / total_a if after is not None else None
        rows.append({"label": label or "(none)", "before": b, "after": a})
    top = max([r["before"] for r in rows] + [r["after"] or 0.0 for r in rows] + [1e-9])
    for r in rows:
        r["before_pct"] = round(100 * float(r["before"]) / top, 1)  # type: ignore[arg-type]  # a values() row: an int count, typed object
        r["after_pct"] = (
            round(100 * float(r["after"]) / top, 1) if r["after"] is not None else None  # type: ignore[arg-type]  # a values() row: an int count, typed object
        )
    return rows


def _shown(rows: list[dict[str, object]], *, bands: bool = False) -> list[dict[str, object]]:
    """Each row gains ``shown``, its label as the chart writes it in the reader's language: a
    frequency band's name, "(none)" for no value; categories and clusters are the log's own."""
    names = {
        "(none)": gettext("(none)"),
        **(
            {
                "head": pgettext("frequency band", "head"),
                "torso": pgettext("frequency band", "torso"),
                "tail": pgettext("frequency band", "tail"),
            }
            if bands
            else {}
        ),
    }
    for r in rows:
        r["shown"] = names.get(str(r["label"]), r["label"])
    return rows


def log_distribution(*, log: QueryLog, sample: Sample | None = None) -> dict[str, object]:
    """Volume of the log by category, frequency band and cluster; with `sample`, the share of
    the sample's queries in each, for the before/after plots."""
    queries = LogQuery.objects.filter(log=log)
    by_category = {
        row["category"]: float(row["v"])
        for row in queries.values("category").annotate(v=Sum("count"))
    }
    by_band = {
        row["band"]: float(row["v"]) for row in queries.values("band").annotate(v=Sum("count"))
    }
    names = {int(c["id"]): f"{c['id']}: {c['name']}" for c in log.report.get("clusters", [])}
    by_cluster = {
        names.get(row["cluster"], str(row["cluster"])): float(row["v"])
        for row in queries.values("cluster").annotate(v=Sum("count"))
    }
    after: dict[str, dict[str, float]] | None = None
    if sample is not None:
        chosen = LogQuery.objects.filter(
            pk__in=Query.objects.filter(sample=sample).values("log_query_id")
        )
        after = {
            "category": _counted(chosen, "category"),
            "band": _counted(chosen, "band"),
            "cluster": {names.get(int(k), k): v for k, v in _counted(chosen, "cluster").items()},
        }
    return {
        "category": _shown(_bars(by_category, after["category"] if after else None)),
        "band": _shown(
            sorted(
                _bars(by_band, after["band"] if after else None),
                key=lambda r: (
                    ["head", "torso", "tail"].index(r["label"])
                    if r["label"] in ("head", "torso", "tail")
                    else 9
                ),
            ),
            bands=True,
        ),
        "cluster": _shown(_bars(by_cluster, after["cluster"] if after else None)),
    }


def distribution_of_rows(*, log: QueryLog, log_query_ids: list[int]) -> dict[str, dict[str, float]]:
    """Counts of chosen queries by category/band/cluster (for a dry-run preview)."""
    names = {int(c["id"]): f"{c['id']}: {c['name']}" for c in log.report.get("clusters", [])}
    chosen = LogQuery.objects.filter(pk__in=log_query_ids)
    return {
        "category": _counted(chosen, "category"),
        "band": _counted(chosen, "band"),
        "cluster": {names.get(int(k), k): v for k, v in _counted(chosen, "cluster").items()},
    }


def _counted(queryset: QuerySet[LogQuery], field: str) -> dict[str, float]:
    return {
        str(row[field]): float(row["n"]) for row in queryset.values(field).annotate(n=Count("id"))
    }


def preview_distribution(*, log: QueryLog, log_query_ids: list[int]) -> dict[str, object]:
    base = log_distribution(log=log)
    after = distribution_of_rows(log=log, log_query_ids=log_query_ids)
    result: dict[str, object] = {}
    for key in ("category", "band", "cluster"):
        before = {str(r["label"]): float(r["before"]) for r in base[key]}  # type: ignore[index]  # a values() row: an int count, typed object
        before = {("" if k == "(none)" else k): v for k, v in before.items()}
        rows = _bars(before, after[key])
        if key == "band":
            order = ["head", "torso", "tail"]
            rows.sort(key=lambda r: order.index(r["label"]) if r["label"] in order else 9)
        result[key] = _shown(rows, bands=key == "band")
    return result


def scrubbed_counts(*, log: QueryLog) -> list[tuple[str, int]]:
    return sorted(Counter(log.scrubbed).items(), key=lambda kv: (-kv[1], kv[0]))
