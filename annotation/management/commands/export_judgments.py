import sys

from django.core.management.base import BaseCommand

from annotation.management.commands._args import project_named
from annotation.services.agreement import judgments_csv


class Command(BaseCommand):
    help = (
        "Export a project's judgments as CSV item,annotator,label,group (item = candidate id, "
        "label = grade, group = query id), the input of `goldsmith agreement`."
    )

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="project name or id")
        parser.add_argument("--output", "-o", default="-", help="file (default: stdout)")

    def handle(self, *args, project, output, **options):
        project = project_named(project)
        if output == "-":
            rows = judgments_csv(project=project, out=sys.stdout)
        else:
            with open(output, "w", newline="", encoding="utf-8") as handle:
                rows = judgments_csv(project=project, out=handle)
            self.stderr.write(f"wrote {rows} judgments to {output}")
