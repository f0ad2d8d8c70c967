"""Knowledge-base update benchmark: what a corpus update did to a frozen version, and what its
refresh asks for.

Usage (a scratch PostgreSQL database: frozen rows cannot be deleted, so drop it after):
    createdb -h 127.0.0.1 -U postgres gs_kb
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gs_kb \\
        .venv/bin/python bench/kb_update_bench.py [--chunks 200000] [--queries 10000]
    dropdb -h 127.0.0.1 -U postgres gs_kb

It migrates the database and builds, seeded and not timed: a corpus of `--chunks` chunks
(~300 characters, 5 per document, with their spans), a frozen version of `--queries` queries
with `--per-query` graded chunks each (grades 0/1/2 ~ 60/25/15 %, drawn from two documents), and
an update that adds 5 % new chunks (each over the characters of a chunk it retires, reworded),
changes 5 % (half of them only in punctuation and spacing, half in words) and retires 5 % (the
chunks the new ones replace). Then it times, three times each:
- the update's effect on the version: `refresh_plan_read(texts=False)` (the database compares
  each frozen row's text with its live chunk's and returns the rows of the queries with a row
  not kept; then `goldsmith.refresh.refresh_plan`, which computes `corpus_effect`): touched
  and untouched queries, grades held and asked;
- the same with the texts of the changed queries' rows (what opening a refresh reads);
- the live corpus's content hash (what a refresh records, and checks again at its freeze).
Reports the share of queries touched, the share of grades carried over, and the grades the
refresh asks for against judging the touched queries from scratch (every chunk they hold after
the update). Pool hits of built-in retrievers are not counted (no pool source here).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time

from benchlib import CHUNK_COLUMNS, SUPPORT_WORDS, copy_rows, django_setup, text_of

from goldsmith.corpus import text_sha256

SEED = 20261201
# The help desk's words but seven (csv, downgrade, api, latency, sso, saml, scim).
WORDS = [
    w
    for w in SUPPORT_WORDS
    if w not in {"csv", "downgrade", "api", "latency", "sso", "saml", "scim"}
]


def build(n_chunks: int, n_queries: int, per_query: int, name: str):  # type: ignore[no-untyped-def]
    """The project, its corpus and its frozen version v1 (returned)."""
    from django.db import transaction
    from django.utils import timezone

    from annotation.models import Chunk, Document
    from annotation.services.goldsets import _store
    from annotation.services.projects import project_setup
    from goldsmith.formats.goldset import QueryRecord, record_order

    rng = random.Random(SEED)
    now = timezone.now()
    with transaction.atomic():
        project = project_setup(name=name, leads=["bench-lead"]).project
        n_docs = n_chunks // 5
        Document.objects.bulk_create(
            [Document(project=project, doc_id=f"d{i}", title="") for i in range(n_docs)],
            batch_size=5000,
        )
        doc_pk = dict(Document.objects.filter(project=project).values_list("doc_id", "id"))
        texts: list[str] = []

        def chunk_rows():  # type: ignore[no-untyped-def]
            for i in range(n_chunks):
                text = text_of(rng, 300, WORDS) + "."
                texts.append(text)
                start = (i % 5) * 310
                yield (
                    project.pk, doc_pk[f"d{i // 5}"], f"d{i // 5}#{i % 5}", text, i % 5,
                    start, start + len(text), "{}", text_sha256(text), False, False, now,
                )  # fmt: skip

        copy_rows(Chunk._meta.db_table, CHUNK_COLUMNS, chunk_rows())
        records = []
        for q in range(n_queries):
            docs = rng.sample(range(n_docs), 2)
            picked = [d * 5 + c for d in docs for c in range(5)][:per_query]
            rows = []
            for i in picked:
                grade = rng.choices([0, 1, 2], [60, 25, 15])[0]
                start = (i % 5) * 310
                rows.append(
                    (f"d{i // 5}#{i % 5}", f"d{i // 5}", start, start + len(texts[i]), texts[i],
                     grade, "unanimous")
                )  # fmt: skip
            records.append(
                QueryRecord(f"q{q:05d}", f"question {q}", None, None, 1.0, None, None,
                            sorted(rows, key=record_order))
            )  # fmt: skip
        version = _store(
            project=project, by=None, label="v1", note="bench", origin="frozen",
            records=records, parent=None, header={},
        )  # fmt: skip
    return project, version, texts


def update(project, texts: list[str], share: float) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Add, change and retire `share` of the chunks each (see the module's text)."""
    from django.db import connection, transaction
    from django.utils import timezone

    from annotation.models import Chunk

    rng = random.Random(SEED + 1)
    n = len(texts)
    k = int(n * share)
    order = rng.sample(range(n), 2 * k)
    retire, change = order[:k], order[k:]
    now = timezone.now()
    with transaction.atomic():
        ids = [f"d{i // 5}#{i % 5}" for i in retire]
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE annotation_chunk SET removed = true WHERE project_id = %s "
                "AND chunk_id = ANY(%s)",
                [project.pk, ids],
            )
            rows = []
            for j, i in enumerate(change):
                text = (
                    texts[i].replace(" ", "  ", 1).rstrip(".") + "!"
                    if j % 2 == 0
                    else texts[i] + " upgrade"
                )
                rows.append((f"d{i // 5}#{i % 5}", text, text_sha256(text)))
            cursor.execute(
                "CREATE TEMP TABLE bench_change (chunk_id varchar, text text, sha varchar)"
            )
            copy_rows("bench_change", ["chunk_id", "text", "sha"], rows)
            cursor.execute(
                "UPDATE annotation_chunk c SET text = b.text, text_sha256 = b.sha "
                "FROM bench_change b WHERE c.project_id = %s AND c.chunk_id = b.chunk_id",
                [project.pk],
            )
            cursor.execute("DROP TABLE bench_change")
        doc_pk = dict(project.documents.values_list("doc_id", "id"))
        copy_rows(
            Chunk._meta.db_table,
            CHUNK_COLUMNS,
            (
                (project.pk, doc_pk[f"d{i // 5}"], f"d{i // 5}#{i % 5}-new",
                 "reworded " + texts[i], 10 + i % 5, (i % 5) * 310 + 20,
                 (i % 5) * 310 + 20 + len(texts[i]), "{}", text_sha256("reworded " + texts[i]),
                 False, False, now)
                for i in retire
            ),
        )  # fmt: skip
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return {"added": k, "changed": k, "retired": k}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=200_000)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--per-query", type=int, default=10)
    parser.add_argument("--share", type=float, default=0.05)
    parser.add_argument("--annotators", type=int, default=2, help="annotators per query")
    args = parser.parse_args()

    django_setup()
    from django.core.management import call_command
    from django.db import connection

    from annotation.selectors.refresh import live_corpus_hash, refresh_plan_read

    call_command("migrate", verbosity=0)
    name = f"kb-bench-{int(time.time())}"
    t = time.perf_counter()
    project, version, texts = build(args.chunks, args.queries, args.per_query, name)
    built = time.perf_counter() - t
    moved = update(project, texts, args.share)

    timings, cpu, whole, hashing = [], [], [], []
    for _ in range(3):
        t, c = time.perf_counter(), time.process_time()
        refresh_plan_read(version=version, texts=False)
        timings.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        t = time.perf_counter()
        read = refresh_plan_read(version=version)
        whole.append(time.perf_counter() - t)
        t = time.perf_counter()
        live_corpus_hash(project)
        hashing.append(time.perf_counter() - t)
    plan = read.plan
    counts = plan.counts()
    total_rows = version.judgment_count
    touched = [p for p in plan.queries.values() if p.touched]
    touched_rows = sum(len(p.held) + len(p.asked) for p in touched)
    carried = counts["carried_text"] + counts["carried_span"]
    held_all = total_rows - sum(
        len(p.dropped) + sum(1 for a in p.asked if a.why == "changed") for p in touched
    )
    out = {
        "database": connection.vendor,
        "machine": f"{platform.machine()} {os.cpu_count()} cores, "
        f"Python {platform.python_version()}",
        "chunks": args.chunks,
        "queries": args.queries,
        "judgments": total_rows,
        "update": moved,
        "build_s": round(built, 1),
        "effect_s": [round(x, 2) for x in timings],
        "effect_cpu_s_of_this_process": [round(x, 2) for x in cpu],
        "load_average": os.getloadavg()[0],
        "plan_with_texts_s": [round(x, 2) for x in whole],
        "corpus_hash_s": [round(x, 2) for x in hashing],
        "queries_touched": counts["touched"],
        "share_touched": round(counts["touched"] / args.queries, 4),
        "grades_held": held_all,
        "share_grades_held": round(held_all / total_rows, 4),
        "grades_carried_text_or_span": carried,
        "grades_asked": counts["asked"],
        "asked_changed": counts["asked_changed"],
        "asked_replaces": counts["asked_replaces"],
        "from_scratch_grades": touched_rows,
        "judgments_asked": counts["asked"] * args.annotators,
        "judgments_from_scratch": touched_rows * args.annotators,
        "share_asked_vs_scratch": round(counts["asked"] / max(touched_rows, 1), 4),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
