from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._args import bad_input, project_named, user_named
from annotation.services.goldsets import FreezeIdentical, SplitSpec, golden_set_version_freeze

IDENTICAL_EXIT = 3  # nothing changed since the latest version: nothing stored


class Command(BaseCommand):
    help = (
        "Freeze the project's approved queries (all, or of some categories/strata) into a new "
        "immutable golden-set version and print its content hash. Exits 3 and stores nothing "
        "when the result would be identical to the latest version."
    )

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="project name or id")
        parser.add_argument("--label", help="version label (default: the next vN)")
        parser.add_argument("--note", default="", help="why this version exists")
        parser.add_argument("--category", action="append", dest="categories", default=[])
        parser.add_argument("--stratum", action="append", dest="strata", default=[])
        parser.add_argument("--split-seed", type=int, help="assign a dev/test split")
        parser.add_argument("--test-share", type=float, default=0.5)
        parser.add_argument("--by", help="username recorded as the freezer")

    def handle(self, *args, **o):
        project = project_named(o["project"])
        try:
            split = (
                SplitSpec(seed=o["split_seed"], test_share=o["test_share"])
                if o["split_seed"] is not None
                else None
            )
            version = golden_set_version_freeze(
                project=project,
                by=user_named(o["by"]),
                note=o["note"],
                label=o["label"],
                categories=o["categories"],
                strata=o["strata"],
                split=split,
            )
        except FreezeIdentical as same:
            raise CommandError(
                f"{same} ({same.latest.content_hash})", returncode=IDENTICAL_EXIT
            ) from None
        except ValueError as error:
            raise bad_input(str(error)) from None
        corpus = (
            f"corpus version {version.corpus_version.number}"
            if version.corpus_version
            else "no corpus version"
        )
        self.stdout.write(
            f"froze {version.label}: {version.query_count} queries, "
            f"{version.judgment_count} judgments, {version.content_hash}; judged on {corpus} "
            f"({version.corpus_hash or 'hash not known'})"
        )
