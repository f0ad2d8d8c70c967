from django.core.management.base import BaseCommand

from annotation.management.commands._args import bad_input, project_named
from annotation.models import CorpusVersion
from annotation.selectors.corpus import corpus_version_diff, corpus_versions


class Command(BaseCommand):
    help = (
        "List a project's corpus versions (number, content hash, live chunks, added, changed, "
        "retired, file, who and when), or with --diff A B the chunk ids added, changed and "
        "retired between two versions with the frozen versions and queries citing each."
    )

    def add_arguments(self, parser):
        parser.add_argument("project", help="project name or id")
        parser.add_argument("--diff", nargs=2, type=int, metavar=("A", "B"))

    def handle(self, *args, project, diff, **options):
        found = project_named(project)
        if diff:
            try:
                result = corpus_version_diff(project=found, old=diff[0], new=diff[1])
            except CorpusVersion.DoesNotExist:
                numbers = ", ".join(
                    str(n) for n in corpus_versions(project=found).values_list("number", flat=True)
                )
                raise bad_input(
                    f"no corpus version {diff[0]} or {diff[1]} in {found.name} "
                    f"(it has: {numbers or 'none'})"
                ) from None
            counts = result.counts
            self.stdout.write(
                f"corpus version {result.old.number} → {result.new.number}: "
                f"{counts['added']} added, {counts['changed']} changed, "
                f"{counts['retired']} retired"
            )
            for chunk in result.chunks:
                cited = ", ".join(f"{c.label}:{c.query_id}" for c in chunk.cited_by)
                line = f"{chunk.kind}\t{chunk.chunk_id}"
                self.stdout.write(f"{line}\tcited by {cited}" if cited else line)
            return
        versions = list(corpus_versions(project=found))
        if not versions:
            self.stdout.write(f"{found.name} has no corpus version yet")
            return
        self.stdout.write("number\tcontent_hash\tlive\tadded\tchanged\tretired\tkind\tfile\tby\tat")
        for v in versions:
            kind = v.origin if v.origin != "import" else ("replace" if v.replace else "add")
            who = v.created_by.username if v.created_by else ""
            self.stdout.write(
                f"{v.number}\t{v.content_hash}\t{v.live_chunks}\t{v.added}\t{v.changed}\t"
                f"{v.retired}\t{kind}\t{v.filename}\t{who}\t{v.created_at:%Y-%m-%d %H:%M}"
            )
