"""Golden-set benchmark: freeze N queries x K judged chunks, then export TREC qrels.

Usage (a scratch PostgreSQL database: frozen rows cannot be deleted, so drop the database after):
    createdb -h 127.0.0.1 -U postgres gs_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gs_bench \\
        .venv/bin/python bench/goldset_bench.py [--queries 10000] [--per-query 30]
    dropdb -h 127.0.0.1 -U postgres gs_bench

It migrates the database, builds a seeded project (chunks of ~400 characters, approved queries
with resolved candidates) with COPY (not timed), then times:
- `golden_set_version_freeze` of every approved query (one transaction, as the app runs it);
- the TREC qrels export (`export_stream(version, "trec")`, what the API and
  `manage.py export_goldset` stream) in a fresh process, for the full version and for a version
  of about a third of the queries: lines per second of the export alone (Django's start-up is
  not counted) and the peak RSS before and after it: equal peaks for both sizes = flat memory.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import time
from pathlib import Path

from benchlib import CHUNK_COLUMNS, ROOT, copy_rows, cpu_seconds, django_setup, text_of

SEED = 20261130


def build(n_queries: int, per_query: int, n_chunks: int, name: str) -> int:
    """A project with `n_queries` approved queries, each with `per_query` resolved candidates
    (grades 0/1/2 ~ 60/25/15 %) over a corpus of `n_chunks` chunks. Returns the project id."""
    from django.db import connection, transaction
    from django.utils import timezone

    from annotation.models import Chunk, Document, Query
    from annotation.services.projects import project_setup
    from goldsmith.corpus import text_sha256

    rng = random.Random(SEED)
    now = timezone.now()
    with transaction.atomic():
        project = project_setup(name=name, leads=["bench-lead"]).project
        docs = Document.objects.bulk_create(
            [
                Document(project=project, doc_id=f"d{i}", title=f"Doc {i}")
                for i in range(n_chunks // 5)
            ],
            batch_size=5000,
        )
        doc_ids = [d.pk for d in docs]

        def chunk_rows():  # type: ignore[no-untyped-def]
            for i in range(n_chunks):
                text = text_of(rng, 400)
                yield (
                    project.pk, doc_ids[i // 5], f"d{i // 5}#{i % 5}", text, i % 5,
                    (i % 5) * 400, (i % 5) * 400 + len(text), "{}",
                    text_sha256(text), False, False, now,
                )  # fmt: skip

        copy_rows(Chunk._meta.db_table, CHUNK_COLUMNS, chunk_rows())
        copy_rows(
            Query._meta.db_table,
            ["project_id", "text", "normalized", "category", "stratum", "weight", "created_at",
             "choices", "reference_facts", "reference_alternatives"],
            (
                (project.pk, f"question {i} " + text_of(rng, 40), f"question {i}",
                 rng.choice(["billing", "account", "api"]), rng.choice(["head", "torso", "tail"]),
                 1.0, now, "[]", "[]", "[]")
                for i in range(n_queries)
            ),
        )  # fmt: skip
        query_ids = list(
            Query.objects.filter(project=project).order_by("id").values_list("id", flat=True)
        )
        chunk_ids = list(
            Chunk.objects.filter(project=project).order_by("id").values_list("id", flat=True)
        )
        copy_rows(
            "annotation_queryreview",
            ["query_id", "state", "version", "reason", "reason_note", "escalation", "updated_at"],
            ((q, "approved", 2, "", "", "", now) for q in query_ids),
        )
        copy_rows(
            "annotation_queryagreement",
            ["query_id", "n_annotators", "n_items", "kappa", "raw_agreement", "ac1", "flagged",
             "flag_reasons", "computed_at", "signature"],
            ((q, 2, per_query, 0.7, 0.9, 0.85, False, "[]", now, "") for q in query_ids),
        )  # fmt: skip
        candidates = [(q, c) for q in query_ids for c in rng.sample(chunk_ids, per_query)]
        copy_rows(
            "annotation_candidate",
            ["query_id", "chunk_id", "shuffle_key", "created_at"],
            ((q, c, rng.getrandbits(62), now) for q, c in candidates),
        )
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT c.id FROM annotation_candidate c JOIN annotation_query q "
                "ON q.id = c.query_id WHERE q.project_id = %s ORDER BY c.id",
                [project.pk],
            )
            cand_ids = [r[0] for r in cursor.fetchall()]
        copy_rows(
            "annotation_resolution",
            ["candidate_id", "grade", "provenance", "reason", "resolved_at"],
            (
                (cid, rng.choices([0, 1, 2], [60, 25, 15])[0],
                 rng.choice(["unanimous", "majority", "adjudicated"]), "", now)
                for cid in cand_ids
            ),
        )  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return project.pk


EXPORT_PROBE = """
import json, os, sys, time
sys.path.insert(0, {root!r})
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django
django.setup()
from annotation.models import GoldenSetVersion
from annotation.selectors.goldsets import export_stream
version = GoldenSetVersion.objects.get(project__name={project!r}, label={label!r})
stream = export_stream(version, "trec")
def hwm():  # peak RSS of this process image in kB (ru_maxrss would include the parent's)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
before = hwm()
start = time.perf_counter()
lines = 0
with open({out!r}, "w", encoding="utf-8") as handle:
    for piece in stream.pieces():
        handle.write(piece)
        lines += piece.count("\\n")
wall = time.perf_counter() - start
after = hwm()
print(json.dumps({{"lines": lines, "wall_s": wall, "rss_before_mb": before / 1024,
                  "peak_rss_mb": after / 1024}}))
"""


def timed_export(project: str, label: str, out: Path) -> dict[str, float]:
    """Export in a fresh process; time only the export (Django's start-up is not counted) and
    record the peak RSS before and after it."""
    code = EXPORT_PROBE.format(root=str(ROOT), project=project, label=label, out=str(out))
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    figures["lines_per_s"] = figures["lines"] / figures["wall_s"]
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10000)
    parser.add_argument("--per-query", type=int, default=30)
    parser.add_argument("--chunks", type=int, default=100000)
    parser.add_argument("--out", default=str(ROOT / "bench" / "out"))
    parser.add_argument(
        "--reuse", action="store_true", help="reuse the last bench project (no setup); freeze again"
    )
    args = parser.parse_args()

    django_setup()
    from django.core.management import call_command
    from django.db import connection

    from annotation.models import Project
    from annotation.services.goldsets import golden_set_version_freeze

    if connection.vendor != "postgresql":
        sys.exit("run this against PostgreSQL (set DATABASE_URL to a scratch database)")
    call_command("migrate", verbosity=0)
    last = Project.objects.filter(name__startswith="bench-goldset-").order_by("-id").first()
    if args.reuse and last is not None:
        name, project_id = last.name, last.pk
    else:
        name = f"bench-goldset-{int(time.time())}"
        t0 = time.perf_counter()
        project_id = build(args.queries, args.per_query, args.chunks, name)
        setup_s = time.perf_counter() - t0
        print(f"setup: {args.queries} queries x {args.per_query} chunks in {setup_s:.1f}s")

    project = Project.objects.get(pk=project_id)
    lead = project.memberships.get().user
    stamp = str(int(time.time()))
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    # The local PostgreSQL backend's CPU seconds, beside this process's.
    server0, client0, t0 = cpu_seconds(backend), time.process_time(), time.perf_counter()
    version = golden_set_version_freeze(
        project=project, by=lead, note="benchmark", label=f"full-{stamp}"
    )
    freeze_s = time.perf_counter() - t0
    client_s, server_s = time.process_time() - client0, cpu_seconds(backend) - server0
    print(
        f"freeze: {version.query_count} queries, {version.judgment_count} judgments "
        f"in {freeze_s:.2f}s wall; CPU {client_s:.2f}s in Python + {server_s:.2f}s in the "
        f"PostgreSQL backend ({version.content_hash[:19]})"
    )
    small = golden_set_version_freeze(
        project=project, by=lead, categories=["api"], label=f"third-{stamp}"
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    connection.close()
    for v in (small, version):
        figures = timed_export(name, v.label, out / f"goldset-{v.label}.qrels")
        print(
            f"export trec {v.label}: {figures['lines']} lines in {figures['wall_s']:.2f}s "
            f"= {figures['lines_per_s']:,.0f} lines/s; peak RSS {figures['rss_before_mb']:.0f} MB "
            f"before the export, {figures['peak_rss_mb']:.0f} MB after"
        )
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}")  # fmt: skip


if __name__ == "__main__":
    main()
