import json

from django.core.management.base import BaseCommand

from annotation.management.commands._args import project_named, version_labelled
from annotation.selectors.goldsets import version_diff
from goldsmith.formats.diff import diff_text


class Command(BaseCommand):
    help = "Queries added and removed and grades changed between two golden-set versions."

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="project name or id")
        parser.add_argument("a", help="label of the older version")
        parser.add_argument("b", help="label of the newer version")
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="machine-readable output"
        )
        parser.add_argument("--limit", type=int, default=200, help="detail lines per kind")

    def handle(self, *args, project, a, b, as_json: bool, limit: int, **options):
        project = project_named(project)
        va, vb = version_labelled(project, a), version_labelled(project, b)
        diff = version_diff(va, vb)
        if as_json:
            payload = {
                "a": {"label": va.label, "content_hash": va.content_hash},
                "b": {"label": vb.label, "content_hash": vb.content_hash},
                **diff.to_json(),
            }
            self.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False))
            return
        for line in diff_text(
            diff, f"{va.label} ({va.content_hash})", f"{vb.label} ({vb.content_hash})", limit
        ):
            self.stdout.write(line)
