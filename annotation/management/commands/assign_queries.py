from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._args import project_named
from annotation.services.assignment import queries_assign


class Command(BaseCommand):
    help = "Give every pooled query N annotators (the project setting by default), balancing load."

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="project name or id")
        parser.add_argument("--per-query", type=int, default=None)

    def handle(self, *args, project, per_query, **options):
        project = project_named(project)
        try:
            result = queries_assign(project=project, per_query=per_query)
        except ValueError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"{result.created} new assignments over {result.queries} queries "
            f"({result.annotators} annotators)"
        )
