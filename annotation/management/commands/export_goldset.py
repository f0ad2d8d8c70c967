import json
import os
import sys
from pathlib import Path

from django.core.management.base import BaseCommand

from annotation.management.commands._args import bad_input, project_named, version_labelled
from annotation.selectors.goldsets import export_stream, golden_queries, version_meta
from goldsmith.formats.goldset import StreamingHash, goldset_lines

FORMATS = ("jsonl", "trec", "beir", "csv", "ragas-jsonl")


class Command(BaseCommand):
    help = (
        "Export a golden-set version, streamed: jsonl (native, hash in its header), trec "
        "(qrels at PATH plus PATH.topics.tsv and PATH.meta.json), beir (zip), csv (plus "
        "PATH.meta.json; judgments only, no answer keys), ragas-jsonl (RAGAS's columns: "
        "user_input, reference, reference_contexts and reference_context_ids: the chunks the "
        "key facts link to). The content hash is printed and written beside every file."
    )

    def create_parser(self, prog_name, subcommand, **kwargs):
        # `--version LABEL` names the golden-set version; Django's own --version gives way.
        return super().create_parser(prog_name, subcommand, conflict_handler="resolve", **kwargs)

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="project name or id")
        parser.add_argument("--version", required=True, dest="label", help="version label")
        parser.add_argument("--format", required=True, choices=FORMATS)
        parser.add_argument("-o", "--output", required=True, help="file ('-': stdout)")

    def handle(self, *args, project, label, format, output, **options):
        version = version_labelled(project_named(project), label)
        if output == "-":
            if format == "beir":
                raise bad_input("a BEIR zip cannot go to stdout: name a file with -o")
            for piece in export_stream(version, format).pieces():
                sys.stdout.write(piece)  # type: ignore[arg-type]  # text formats yield str pieces; BEIR (bytes) was refused above
            return
        path = Path(output)
        if not path.parent.is_dir():
            raise bad_input(f"{path.parent}: no such folder")
        written = [self._write(path, version, format)]
        if format == "trec":
            written.append(self._write(path.with_suffix(".topics.tsv"), version, "topics"))
        if format in ("trec", "csv"):
            meta = path.with_suffix(".meta.json")
            meta.write_text(json.dumps(version_meta(version), indent=2, sort_keys=True) + "\n")
            written.append(meta)
        self.stdout.write(
            f"exported {version.label} ({version.content_hash}) as {format}: "
            + ", ".join(str(p) for p in written)
        )

    def _write(self, path: Path, version, fmt: str) -> Path:  # type: ignore[no-untyped-def]  # version: a GoldenSetVersion, untyped without django-stubs
        """Write to a temporary name, then rename: a failed export leaves no partial file."""
        partial = path.with_name(path.name + ".partial")
        try:
            if fmt == "jsonl":
                # Check the stored rows against the stored hash while writing.
                check = StreamingHash()

                def hashed():  # type: ignore[no-untyped-def]  # a generator of the pieces, typed by its caller
                    for q in golden_queries(version):
                        check.add(q)
                        yield q

                with partial.open("w", encoding="utf-8", newline="") as out:
                    for piece in goldset_lines(version.header, hashed()):
                        out.write(piece)
                if check.hexdigest() != version.content_hash:
                    raise bad_input(
                        f"stored rows hash to {check.hexdigest()}, not {version.content_hash}: "
                        "the version was altered outside Goldsmith"
                    )
            else:
                stream = export_stream(version, fmt)
                mode = "wb" if fmt == "beir" else "w"
                kwargs = {} if fmt == "beir" else {"encoding": "utf-8", "newline": ""}
                with partial.open(mode, **kwargs) as out:
                    for piece in stream.pieces():
                        out.write(piece)
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)
        return path
