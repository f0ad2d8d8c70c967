from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._args import project_named
from annotation.services.pooling import DEFAULT_K, pool_build_builtin, pool_import_run


class Command(BaseCommand):
    help = (
        "Pool candidates for every query of a project: the top k of the built-in BM25 and "
        "TF-IDF retrievers and of imported production runs. Only new candidates are added; "
        "queries that gain some go back into their annotators' queues."
    )

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="project name or id")
        parser.add_argument(
            "--retriever",
            action="append",
            choices=["bm25", "tfidf"],
            dest="retrievers",
            help="built-in retriever (repeatable; default both unless --run is given)",
        )
        parser.add_argument(
            "--run",
            action="append",
            default=[],
            metavar="NAME=FILE",
            help="a production run (TREC or JSONL) to pool, named NAME (repeatable)",
        )
        parser.add_argument("--format", choices=["auto", "trec", "jsonl"], default="auto")
        parser.add_argument("-k", type=int, default=DEFAULT_K, help="top k per source")

    def handle(self, *args, project, retrievers, run, format, k, **options):
        project = project_named(project)
        if retrievers is None:
            retrievers = [] if run else ["bm25", "tfidf"]
        results = []
        try:
            for kind in retrievers:
                results.append(pool_build_builtin(project=project, kind=kind, k=k))
            for spec in run:
                name, sep, path = spec.partition("=")
                if not sep:
                    raise CommandError(f"--run takes NAME=FILE, not {spec!r}")
                results.append(
                    pool_import_run(project=project, name=name, path=Path(path), format=format, k=k)
                )
        except ValueError as error:
            raise CommandError(str(error)) from None
        for r in results:
            skipped = f", {r.skipped} rows skipped" if r.skipped else ""
            self.stdout.write(
                f"{r.source}: {r.hits} hits over {r.queries} queries, "
                f"{r.new_candidates} new candidates for {r.queries_with_new_candidates} queries, "
                f"{r.reopened_queries} finished queries reopened"
                f"{skipped}"
            )
