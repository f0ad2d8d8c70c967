from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._args import project_named
from annotation.management.commands._progress import progress_printer
from annotation.models import ImportStatus
from annotation.services.corpus import changed_text_warning, corpus_import
from goldsmith.intake.readers import ReadError


class Command(BaseCommand):
    help = (
        "Import a corpus (JSONL or CSV of chunks, or of whole documents that Goldsmith chunks). "
        "All or nothing; a re-import updates the corpus in place."
    )

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="project name or id")
        parser.add_argument("file", type=Path)
        parser.add_argument("--chunk-size", type=int, default=1000, help="characters (documents)")
        parser.add_argument("--overlap", type=int, default=100, help="characters (documents)")
        parser.add_argument("--quiet", action="store_true", help="no progress lines")

    def handle(self, *args, project, file, chunk_size, overlap, quiet, **options):
        found = project_named(project)
        if not file.is_file():
            raise CommandError(f"{file}: no such file", returncode=2)
        try:
            record = corpus_import(
                project=found,
                path=file,
                filename=str(file),
                chunk_size=chunk_size,
                overlap=overlap,
                on_progress=None if quiet else progress_printer(self.stderr._out),
            )
        except (ReadError, ValueError) as error:
            raise CommandError(str(error), returncode=2) from None
        if record.status != ImportStatus.DONE:
            raise CommandError(record.error, returncode=2)
        self.stdout.write(
            f"Imported {file.name} into {found.name!r} ({record.mode}, {record.records} records): "
            f"{record.documents_created} documents and {record.chunks_created} chunks new, "
            f"{record.chunks_unchanged} unchanged, {record.chunks_changed} changed, "
            f"{record.chunks_removed} removed, {record.chunks_restored} restored"
        )
        warning = changed_text_warning(record)
        if warning:
            self.stderr.write(f"warning: {warning}")
