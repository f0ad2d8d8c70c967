from django.core.management.base import BaseCommand

from evaluation.demo import demo_load


class Command(BaseCommand):
    help = "Load the demo project, its frozen golden set and two baseline runs (idempotent)."

    def handle(self, *args, **options):
        for line in demo_load():
            self.stdout.write(line)
