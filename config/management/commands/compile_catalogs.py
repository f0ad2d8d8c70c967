"""manage.py compile_catalogs: the translation catalogs' .mo files, from their .po files."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from config.catalogs import ROOT, catalogs, compile_catalogs


class Command(BaseCommand):
    help = (
        "Compile every translation catalog (.po → .mo) whose .mo is missing or older, with "
        "polib (no GNU gettext needed). --force compiles all of them."
    )
    requires_system_checks: list[str] = []

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("--force", action="store_true", help="compile even up-to-date ones")

    def handle(self, *args: object, force: bool = False, **options: object) -> None:
        done = compile_catalogs(force=force)
        if not int(options.get("verbosity", 1)):
            return
        for item in done:
            self.stdout.write(f"compiled {item.po.relative_to(ROOT)} ({item.messages} messages)")
        up_to_date = len(catalogs()) - len(done)
        self.stdout.write(f"{len(done)} compiled, {up_to_date} already up to date")
