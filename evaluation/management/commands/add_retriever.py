"""Add (or with --update change) a retriever under test.

The auth header's value is never an argument (it would show in `ps` and shell history): give
the name of an environment variable the workers read (--auth-env), or pipe the value in
(--auth-value-stdin) to store it encrypted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from annotation.management.commands._args import bad_input, project_named
from evaluation.models import Retriever, RetrieverKind, Schedule
from evaluation.services.retrievers import RetrieverInvalid, retriever_save
from goldsmith import formats
from goldsmith.retrievers.http import HTTP_SETTINGS


def header_line(text: str) -> tuple[str, str]:
    """``Name: value`` of a --header option."""
    name, colon, value = text.partition(":")
    if not colon or not name.strip():
        raise argparse.ArgumentTypeError(f"write the header as 'Name: value', not {text!r}")
    return name.strip(), value.strip()


def add_http_arguments(group: Any) -> None:
    """One option per HTTP setting (`HTTP_SETTINGS`): --url, --body-template, …, and a
    repeatable --header for the headers."""
    for s in HTTP_SETTINGS:
        bounds = f" ({s.minimum:g} to {s.maximum:g})" if s.minimum is not None else ""
        unit = f" {s.unit}" if s.unit else ""
        words = f"{s.label}: {s.help}" if s.help else s.label
        if s.value_type is dict:
            group.add_argument(
                "--header", dest=s.name, action="append", type=header_line, help=words
            )
            continue
        group.add_argument(
            "--" + s.name.replace("_", "-"),
            dest=s.name,
            type=s.value_type,
            choices=s.choices or None,
            help=f"{words}{bounds}{unit}",
        )


def http_options(o: dict[str, Any]) -> dict[str, Any]:
    """The HTTP settings given on the command line."""
    config = {s.name: o[s.name] for s in HTTP_SETTINGS if o.get(s.name) is not None}
    if "headers" in config:
        config["headers"] = dict(config["headers"])
    return config


class Command(BaseCommand):
    help = "Add a retriever under test: an HTTP endpoint, a run file, or built-in BM25/TF-IDF."

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="project name or id")
        parser.add_argument("--name", required=True)
        parser.add_argument("--kind", required=True, choices=RetrieverKind.values)
        parser.add_argument("--update", action="store_true", help="change an existing one")
        http = parser.add_argument_group("HTTP endpoint")
        add_http_arguments(http)
        http.add_argument("--auth-header", help="header name, e.g. Authorization")
        http.add_argument(
            "--auth-env",
            help="environment variable holding its value on the workers (GOLDSMITH_SECRET_… "
            "or one listed in GOLDSMITH_RETRIEVER_SECRET_ENV)",
        )
        http.add_argument(
            "--auth-value-stdin", action="store_true", help="read the value from stdin"
        )
        parser.add_argument("--run-file", help="TREC or JSONL run (kind runfile)")
        parser.add_argument("--schedule", choices=[s or "none" for s in Schedule.values])
        parser.add_argument(
            "--answerer",
            choices=["none", "extractive"],
            help="extractive: the extractive baseline answers the queries the retriever gives "
            "no response for (the whole answer report without a language model)",
        )

    def handle(self, *args: Any, **o: Any) -> None:
        project = project_named(o["project"])
        config = http_options(o)
        value = sys.stdin.readline().rstrip("\r\n") if o["auth_value_stdin"] else ""
        if o["auth_value_stdin"] and not value:
            raise bad_input("--auth-value-stdin: nothing on stdin")
        schedule = (
            None if o["schedule"] is None else ("" if o["schedule"] == "none" else o["schedule"])
        )
        run_file = Path(o["run_file"]) if o["run_file"] else None
        if run_file is not None and not run_file.is_file():
            raise bad_input(f"{run_file}: no such file")
        retriever = None
        if o["update"]:
            retriever = Retriever.objects.filter(project=project, name=o["name"]).first()
            if retriever is None:
                raise bad_input(f"no retriever named {o['name']!r} to update")
        try:
            retriever = retriever_save(
                project=project,
                retriever=retriever,
                name=o["name"],
                kind=o["kind"],
                config=config or None,
                auth_header_name=o["auth_header"],
                auth_header_value=value or None,
                auth_header_env=o["auth_env"],
                schedule=schedule,
                answerer=None if o["answerer"] is None else o["answerer"].replace("none", ""),
                run_file=run_file,
            )
        except (RetrieverInvalid, formats.FormatError) as error:
            raise bad_input(str(error)) from None
        verb = "updated" if o["update"] else "added"
        self.stdout.write(
            f"{verb} retriever {retriever.name!r} ({retriever.kind}, id {retriever.pk})"
        )
