from django.core.management.base import BaseCommand

from annotation.demo import demo_load


class Command(BaseCommand):
    help = "Load the demo project (idempotent)."

    def handle(self, *args, **options):
        for line in demo_load():
            self.stdout.write(line)
