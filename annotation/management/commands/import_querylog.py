from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._args import project_named
from annotation.management.commands._progress import progress_printer
from annotation.models import ImportStatus
from annotation.services.querylogs import query_log_import, scrub_pattern_set
from goldsmith.intake.readers import ReadError


class Command(BaseCommand):
    help = (
        "Import a query log (JSONL, CSV or one query per line): personal data is scrubbed before "
        "anything is stored, queries are normalised, de-duplicated, grouped and clustered."
    )

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="project name or id")
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--threshold",
            type=float,
            default=0.85,
            help="near-duplicate cosine threshold (1 disables grouping)",
        )
        parser.add_argument("--clusters", type=int, default=12, help="number of intent clusters")
        parser.add_argument(
            "--pattern",
            action="append",
            default=[],
            metavar="NAME=REGEX",
            help="a project-defined kind of personal data (replaces the project's patterns)",
        )
        parser.add_argument("--quiet", action="store_true", help="no progress lines")

    def handle(self, *args, project, file, threshold, clusters, pattern, quiet, **options):
        found = project_named(project)
        if not file.is_file():
            raise CommandError(f"{file}: no such file", returncode=2)
        try:
            if pattern:  # parsed before anything is stored
                scrub_pattern_set(project=found, lines=pattern)
            log = query_log_import(
                project=found,
                path=file,
                filename=str(file),
                near_duplicate_threshold=threshold,
                clusters=clusters,
                on_progress=None if quiet else progress_printer(self.stderr._out),
            )
        except (ReadError, ValueError) as error:
            raise CommandError(str(error), returncode=2) from None
        if log.status != ImportStatus.DONE:
            raise CommandError(log.error, returncode=2)
        scrubbed = ", ".join(f"{k} {v}" for k, v in sorted(log.scrubbed.items())) or "nothing"
        report = log.report
        self.stdout.write(
            f"Imported {file.name} into {found.name!r} as log #{log.pk}: {log.records} records, "
            f"volume {log.volume}, {log.distinct} distinct queries, "
            f"{report['near_duplicate_groups']} near-duplicate groups; scrubbed: {scrubbed}"
        )
