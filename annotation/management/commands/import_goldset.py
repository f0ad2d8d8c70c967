from pathlib import Path

from django.core.management.base import BaseCommand

from annotation.management.commands._args import bad_input, project_named, user_named
from annotation.services.goldsets import (
    IMPORT_FORMATS,
    golden_set_version_import,
    goldset_load,
)
from goldsmith.formats.goldset import parse_grade_map


class Command(BaseCommand):
    help = (
        "Import a golden set a team already has as a new frozen version: native JSONL, TREC "
        "qrels with --topics, or BEIR (folder or zip, with its corpus)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="project name or id")
        parser.add_argument("--format", required=True, choices=IMPORT_FORMATS)
        parser.add_argument("path", help="the golden-set file, qrels file, or BEIR folder/zip")
        parser.add_argument("--label", help="version label (default: the file's, else next vN)")
        parser.add_argument("--note", default="")
        parser.add_argument("--topics", help="TREC topics file (qid<TAB>query or SGML)")
        parser.add_argument("--corpus", help="BEIR-style corpus.jsonl (for jsonl and trec)")
        parser.add_argument(
            "--grade-map", help='map source grades onto 0/1/2, e.g. "1:2,2:2,3:1,4:1,-1:drop"'
        )
        parser.add_argument(
            "--no-corpus", action="store_true", help="do not add the corpus's chunks"
        )
        parser.add_argument("--by", help="username recorded as the importer")

    def handle(self, *args, **o):
        project = project_named(o["project"])
        path = Path(o["path"])
        if not path.exists():
            raise bad_input(f"{path}: no such file or folder")
        try:
            loaded = goldset_load(
                fmt=o["format"],
                path=path,
                topics=Path(o["topics"]) if o["topics"] else None,
                corpus=Path(o["corpus"]) if o["corpus"] else None,
                grade_map=parse_grade_map(o["grade_map"]) if o["grade_map"] else None,
            )
            version = golden_set_version_import(
                project=project,
                by=user_named(o["by"]),
                loaded=loaded,
                fmt=o["format"],
                label=o["label"],
                note=o["note"],
                with_corpus=not o["no_corpus"],
            )
        except (ValueError, OSError) as error:  # FormatError is a ValueError: FILE:LINE: what
            raise bad_input(str(error)) from None
        corpus = version.counts.get("corpus")
        extra = f"; corpus: {corpus['chunks_created']} chunks added" if corpus else ""
        self.stdout.write(
            f"imported {version.label}: {version.query_count} queries, "
            f"{version.judgment_count} judgments, {version.content_hash}{extra}"
        )
