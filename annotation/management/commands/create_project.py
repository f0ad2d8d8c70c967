from django.core.management.base import BaseCommand, CommandError

from annotation.services.projects import project_setup


class Command(BaseCommand):
    help = "Create a project and any missing users with their roles (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--name", required=True)
        parser.add_argument("--lead", action="append", required=True, dest="leads")
        parser.add_argument("--annotator", action="append", default=[], dest="annotators")
        parser.add_argument("--viewer", action="append", default=[], dest="viewers")
        parser.add_argument(
            "--password", help="password for users this command creates (existing ones keep theirs)"
        )

    def handle(self, *args, name, leads, annotators, viewers, password, **options):
        try:
            result = project_setup(
                name=name, leads=leads, annotators=annotators, viewers=viewers, password=password
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        verb = "Set up" if result.changed else "Unchanged:"
        self.stdout.write(f"{verb} project {result.project.name!r} (id {result.project.pk})")
        for username in result.created_users:
            self.stdout.write(f"  created user {username}")
