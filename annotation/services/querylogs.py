"""Query-log imports: scrub, normalise, de-duplicate, group near-duplicates, cluster, store.

Personal data is scrubbed from every query before it is counted or stored; user and session ids
are never stored: each is reduced in memory to 40 bits of a keyed hash (Python's SipHash, keyed
at random per process), counted per query (distinct users, distinct sessions) and dropped. The
raw file is not kept.

Memory: lines stream through; what grows is one small record per *distinct* query and 8 bytes
per line that names a user or a session (to count distinct users per query).
"""

from __future__ import annotations

import time
from array import array
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext

from annotation.models import (
    ImportStatus,
    LogQuery,
    Project,
    QueryLog,
    ScrubPattern,
    TokenizerOrigin,
)
from annotation.services.bulk import bulk_insert
from annotation.services.imports import import_run
from annotation.services.progress import ProgressCallback, ProgressWriter
from annotation.services.projects import project_tokenizer_detect
from goldsmith.intake.normalize import (
    display_text,
    near_duplicate_groups,
    normalize_query,
    sorted_unique,
)
from goldsmith.intake.pii import Scrubber, parse_patterns
from goldsmith.intake.readers import (
    NEGATIVE_FEEDBACK,
    QUERYLOG_FORMATS,
    LineSource,
    ReadError,
    detect_format,
)
from goldsmith.intake.readers import read_querylog as read_querylog_records
from goldsmith.intake.sampling import cluster_queries, frequency_bands
from goldsmith.intake.tokenizers import DEFAULT

BATCH = 5000
NEAR_DUPLICATE_LIMIT = 300_000  # distinct queries compared for near-duplicates (most frequent)
# Entries of the per-import cache raw query -> scrubbed text, bounded so that memory stays flat
# however long the log is.
SEEN_LIMIT = 300_000
LANGUAGE_SAMPLE = 2000  # queries whose language chooses a new project's tokenizer


@dataclass(slots=True)
class _Agg:
    index: int
    text: str
    count: int
    first: float | None  # Unix seconds
    last: float | None
    category: str | Counter[str]
    feedback: Counter[str] | None
    negative: int


def scrub_pattern_set(*, project: Project, lines: list[str]) -> list[ScrubPattern]:
    """Replace the project's own scrubbing patterns with ``NAME=REGEX`` lines."""
    patterns = parse_patterns(lines)
    with transaction.atomic():
        ScrubPattern.objects.filter(project=project).delete()
        return [
            ScrubPattern.objects.create(project=project, name=name[:40], pattern=regex)
            for name, regex in patterns.items()
        ]


def query_log_create(
    *,
    project: Project,
    filename: str,
    upload_path: Path | None = None,
    created_by: object | None = None,
    near_duplicate_threshold: float = 0.85,
    clusters: int = 12,
) -> QueryLog:
    detect_format(filename, QUERYLOG_FORMATS)
    if not 0.0 < near_duplicate_threshold <= 1.0:
        raise ValueError(gettext("the near-duplicate threshold must be in (0, 1]"))
    if not 1 <= clusters <= 200:
        raise ValueError(gettext("the number of clusters must be between 1 and 200"))
    return QueryLog.objects.create(
        project=project,
        filename=filename[-255:],
        upload_path=str(upload_path or ""),
        created_by=created_by if getattr(created_by, "pk", None) else None,
        near_duplicate_threshold=near_duplicate_threshold,
        clusters=clusters,
    )


def query_log_import(
    *,
    project: Project,
    path: Path,
    filename: str | None = None,
    created_by: object | None = None,
    near_duplicate_threshold: float = 0.85,
    clusters: int = 12,
    on_progress: ProgressCallback | None = None,
) -> QueryLog:
    """Import a file now (the command line's way); the caller's file is left in place."""
    log = query_log_create(
        project=project,
        filename=filename or path.name,
        created_by=created_by,
        near_duplicate_threshold=near_duplicate_threshold,
        clusters=clusters,
    )
    return query_log_run(query_log_id=log.pk, path=path, on_progress=on_progress)


def query_log_run(
    *, query_log_id: int, path: Path | None = None, on_progress: ProgressCallback | None = None
) -> QueryLog:
    """Run a queued import of `path` (or of its stored upload, deleted afterwards)."""
    log = QueryLog.objects.select_related("project").get(pk=query_log_id)

    def work(source: Path, progress: ProgressWriter) -> None:
        earlier = (
            QueryLog.objects.filter(
                project_id=log.project_id, sha256=log.sha256, status=ImportStatus.DONE
            )
            .exclude(pk=log.pk)
            .first()
        )
        if earlier is not None:
            reason = gettext("this file was already imported (log #%(log)s)") % {"log": earlier.pk}
            raise ReadError(log.filename, None, reason)
        _import(log, source, progress)

    return import_run(
        log, path=path, on_progress=on_progress, work=work, user_errors=(ReadError, ValueError)
    )


def _language_sample(log: QueryLog, source: Path) -> list[str]:
    """The first queries of the file, read ahead of the import to detect their language."""
    sample: list[str] = []
    with source.open("rb") as handle:
        for rec in read_querylog_records(
            handle,
            log.filename,
            max_query_chars=settings.GOLDSMITH_QUERY_MAX_CHARS,
            max_line_bytes=settings.GOLDSMITH_UPLOAD_MAX_LINE_BYTES,
        ):
            sample.append(rec.query)
            if len(sample) >= LANGUAGE_SAMPLE:
                break
    return sample


def _tokenizer(log: QueryLog, source: Path) -> str:
    """The project's tokenizer, detected first from the file when this is the project's first
    import and nobody chose one (`project_tokenizer_detect`): normalisation, near-duplicates
    and clusters depend on it, so it is settled before the read."""
    if log.project.tokenizer_origin == TokenizerOrigin.DEFAULT:
        log.tokenizer_detected = project_tokenizer_detect(
            project_id=log.project_id, texts=_language_sample(log, source)
        )
        log.project.refresh_from_db(fields=["tokenizer", "tokenizer_origin"])
    return log.project.tokenizer


def _import(log: QueryLog, source: Path, progress: ProgressWriter) -> None:
    tokenizer = _tokenizer(log, source)
    chinese = tokenizer != DEFAULT
    timings: dict[str, float] = {}
    cpu: dict[str, float] = {}
    started, started_cpu = time.perf_counter(), time.process_time()
    patterns = dict(
        ScrubPattern.objects.filter(project_id=log.project_id).values_list("name", "pattern")
    )
    scrubber = Scrubber(patterns=patterns)
    aggs: dict[str, _Agg] = {}
    user_pairs: array[int] = array("Q")
    session_pairs: array[int] = array("Q")
    records = volume = 0
    lines_box: list[LineSource] = []
    mask = (1 << 40) - 1
    # Logs repeat themselves: remember what a raw query scrubs and normalises to (and how many
    # items it scrubbed, counted again at every repeat). The cache is capped.
    seen: dict[str, tuple[str, str, tuple[tuple[str, int], ...]]] = {}
    totals = scrubber.totals

    with source.open("rb") as handle:
        records_read = read_querylog_records(
            handle,
            log.filename,
            source=lines_box,
            max_query_chars=settings.GOLDSMITH_QUERY_MAX_CHARS,
            max_line_bytes=settings.GOLDSMITH_UPLOAD_MAX_LINE_BYTES,
        )
        for rec in records_read:
            records += 1
            volume += rec.count
            cached = seen.get(rec.query)
            if cached is None:
                found: Counter[str] = Counter()
                text = display_text(scrubber.scrub_into(rec.query, found))
                cached = (normalize_query(text, chinese=chinese), text, tuple(found.items()))
                if len(seen) < SEEN_LIMIT:
                    seen[rec.query] = cached
            key, text, scrubbed = cached
            for kind, n in scrubbed:
                totals[kind] += n
            if not key:
                continue
            agg = aggs.get(key)
            if agg is None:
                agg = aggs[key] = _Agg(
                    len(aggs), text, 0, rec.timestamp, rec.timestamp, rec.category, None, 0
                )
            agg.count += rec.count
            if rec.timestamp is not None:
                if agg.first is None or rec.timestamp < agg.first:
                    agg.first = rec.timestamp
                if agg.last is None or rec.timestamp > agg.last:
                    agg.last = rec.timestamp
            if rec.category and agg.category != rec.category:
                if isinstance(agg.category, Counter):
                    agg.category[rec.category] += rec.count
                elif not agg.category:
                    agg.category = rec.category
                else:
                    agg.category = Counter(
                        {agg.category: agg.count - rec.count, rec.category: rec.count}
                    )
            if rec.feedback:
                if agg.feedback is None:
                    agg.feedback = Counter()
                agg.feedback.update(rec.feedback)
                if not NEGATIVE_FEEDBACK.isdisjoint(rec.feedback):
                    agg.negative += rec.count
            # 40 bits of the id's keyed hash beside the query's index: distinct pairs are
            # counted after the read. Two ids of one query colliding is a 1 in 10^12 event.
            if rec.user:
                user_pairs.append(agg.index << 40 | (hash(rec.user) & mask))
            if rec.session:
                session_pairs.append(agg.index << 40 | (hash(rec.session) & mask))
            if records % 5000 == 0:
                progress.update(
                    phase="reading",
                    bytes_read=lines_box[0].bytes_read,
                    lines=lines_box[0].line,
                    records=records,
                    total=log.bytes_total,
                )
    lines = lines_box[0].line if lines_box else 0
    seen.clear()
    timings["read"] = time.perf_counter() - started
    cpu["read"] = time.process_time() - started_cpu
    progress.update(
        force=True,
        phase="grouping",
        bytes_read=log.bytes_total,
        lines=lines,
        records=records,
        total=log.bytes_total,
    )

    users = _distinct_per_query(user_pairs, len(aggs))
    sessions = _distinct_per_query(session_pairs, len(aggs))
    del user_pairs, session_pairs
    items = sorted(aggs.items(), key=lambda kv: (-kv[1].count, kv[0]))
    del aggs
    keys = [k for k, _ in items]
    counts = np.fromiter((a.count for _, a in items), dtype=np.int64, count=len(items))
    t, c = time.perf_counter(), time.process_time()
    limit = min(len(keys), NEAR_DUPLICATE_LIMIT)
    groups = near_duplicate_groups(
        keys[:limit], threshold=log.near_duplicate_threshold, tokenizer=tokenizer
    )
    groups.extend(range(limit, len(keys)))
    timings["near_duplicates"] = time.perf_counter() - t
    cpu["near_duplicates"] = time.process_time() - c
    t, c = time.perf_counter(), time.process_time()
    cluster_ids, cluster_names = cluster_queries(keys, k=log.clusters, seed=0, tokenizer=tokenizer)
    timings["clusters"] = time.perf_counter() - t
    cpu["clusters"] = time.process_time() - c
    group_volume = np.zeros(len(keys), dtype=np.int64)
    group_size = np.zeros(len(keys), dtype=np.int64)
    np.add.at(group_volume, np.asarray(groups, dtype=np.int64), counts)
    np.add.at(group_size, np.asarray(groups, dtype=np.int64), 1)
    # Bands by share of volume, near-duplicates counted as one query with their group's volume;
    # every variant gets its group's band.
    roots = np.flatnonzero(np.asarray(groups) == np.arange(len(keys)))
    root_band = dict(zip(roots.tolist(), frequency_bands(group_volume[roots]), strict=True))
    bands = [root_band[g] for g in groups]

    progress.update(force=True, phase="storing", bytes_read=log.bytes_total, total=log.bytes_total)
    t, c = time.perf_counter(), time.process_time()
    with transaction.atomic():
        fields = ["log_id", "normalized", "text", "count", "first_seen", "last_seen", "category",
                  "feedback", "negative", "users", "sessions", "rank", "band", "cluster",
                  "near_group", "is_representative", "group_volume", "group_size"]  # fmt: skip

        def rows():
            for rank, (key, agg) in enumerate(items):
                category = agg.category
                if isinstance(category, Counter):
                    category = min(category.items(), key=lambda kv: (-kv[1], kv[0]))[0]
                root = groups[rank]
                yield (
                    log.pk, key, agg.text, agg.count, _moment(agg.first), _moment(agg.last),
                    category,
                    dict(agg.feedback) if agg.feedback else {}, agg.negative,
                    int(users[agg.index]), int(sessions[agg.index]), rank, bands[rank],
                    cluster_ids[rank] if cluster_ids else 0, root, root == rank,
                    int(group_volume[root]), int(group_size[root]),
                )  # fmt: skip

        bulk_insert(LogQuery, fields, rows(), json_fields=frozenset({"feedback"}))
        timings["store"] = time.perf_counter() - t
        cpu["store"] = time.process_time() - c
        cluster_sizes = Counter(cluster_ids)
        cluster_volumes: Counter[int] = Counter()
        for cid, count in zip(cluster_ids, counts.tolist(), strict=True):
            cluster_volumes[cid] += count
        multi = [int(s) for s in group_size if s > 1]
        log.lines, log.records, log.volume, log.distinct = lines, records, volume, len(keys)
        log.scrubbed = dict(sorted(scrubber.totals.items()))
        log.report = {
            "lines": lines,
            "records": records,
            "volume": volume,
            "distinct": len(keys),
            "tokenizer": tokenizer,
            "exact_duplicates": records - len(keys),
            "near_duplicate_groups": len(multi),
            "near_duplicate_variants": sum(multi),
            "near_duplicates_compared": limit,
            "bands": dict(Counter(bands)),
            "clusters": [
                {
                    "id": i,
                    "name": name,
                    "size": cluster_sizes.get(i, 0),
                    "volume": cluster_volumes.get(i, 0),
                }
                for i, name in enumerate(cluster_names)
            ],
            "seconds": {k: round(v, 3) for k, v in timings.items()},
            "cpu_seconds": {k: round(v, 3) for k, v in cpu.items()},
        }
        log.save()


def _moment(seconds: float | None) -> datetime | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, tz=UTC)


def _distinct_per_query(pairs: array[int], n: int) -> np.ndarray:
    if not pairs:
        return np.zeros(n, dtype=np.int64)
    unique = sorted_unique(np.frombuffer(pairs, dtype=np.uint64))
    return np.bincount((unique >> np.uint64(40)).astype(np.int64), minlength=n)
