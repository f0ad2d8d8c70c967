from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._args import project_named
from annotation.management.commands._progress import progress_printer
from annotation.models import ImportStatus
from annotation.services.corpus import (
    CorpusPreview,
    changed_text_warning,
    corpus_import,
    corpus_preview,
)
from goldsmith.intake.readers import ReadError


def preview_line(preview: CorpusPreview) -> str:
    """The counts of a dry run, as the page and the API give them."""
    kind = "replace" if preview.replace else "add or update"
    base = f"corpus version {preview.live_version}" if preview.live_version else "no version yet"
    return (
        f"Dry run of {preview.filename} ({kind}, {preview.mode or 'empty'}, {preview.records} "
        f"records) against {base}: {preview.added} added, {preview.changed} changed, "
        f"{preview.retired} retired, {preview.unchanged} unchanged; of the changed and retired, "
        f"{preview.cited_by_frozen} cited by frozen versions and {preview.cited_by_open} by "
        f"open judgments; {preview.live_chunks_after} live chunks after. Nothing was stored."
    )


class Command(BaseCommand):
    help = (
        "Import a corpus (JSONL or CSV of chunks, or of whole documents that Goldsmith chunks). "
        "All or nothing. By default the file adds or updates chunks and retires none; with "
        "--replace it is the whole corpus now (live chunks it lacks are retired, kept). "
        "--dry-run prints what the import would do and stores nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="project name or id")
        parser.add_argument("file", type=Path)
        parser.add_argument("--chunk-size", type=int, default=1000, help="characters (documents)")
        parser.add_argument("--overlap", type=int, default=100, help="characters (documents)")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="the file is the whole corpus: retire the live chunks it does not hold",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="print the counts only; store nothing"
        )
        parser.add_argument("--quiet", action="store_true", help="no progress lines")

    def handle(self, *args, project, file, chunk_size, overlap, replace, dry_run, quiet, **o):
        found = project_named(project)
        if not file.is_file():
            raise CommandError(f"{file}: no such file", returncode=2)
        given = dict(
            project=found,
            path=file,
            filename=str(file),
            chunk_size=chunk_size,
            overlap=overlap,
            replace=replace,
        )
        try:
            if dry_run:
                self.stdout.write(preview_line(corpus_preview(**given)))
                return
            progress = None if quiet else progress_printer(self.stderr._out)
            record = corpus_import(**given, on_progress=progress)
        except (ReadError, ValueError) as error:
            raise CommandError(str(error), returncode=2) from None
        if record.status != ImportStatus.DONE:
            raise CommandError(record.error, returncode=2)
        kind = "replace" if record.replace else "add or update"
        version = getattr(record, "corpus_version", None)
        made = (
            f"; corpus version {version.number} ({version.content_hash})"
            if version
            else "; the corpus did not change (no new version)"
        )
        self.stdout.write(
            f"Imported {file.name} into {found.name!r} ({kind}, {record.mode}, "
            f"{record.records} records): "
            f"{record.documents_created} documents and {record.chunks_created} chunks new, "
            f"{record.chunks_unchanged} unchanged, {record.chunks_changed} changed, "
            f"{record.chunks_removed} removed, {record.chunks_restored} restored{made}"
        )
        warning = changed_text_warning(record)
        if warning:
            self.stderr.write(f"warning: {warning}")
