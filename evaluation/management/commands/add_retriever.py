"""Add (or with --update change) a retriever under test.

The auth header's value is never an argument (it would show in `ps` and shell history): give
the name of an environment variable the workers read (--auth-env), or pipe the value in
(--auth-value-stdin) to store it encrypted.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from annotation.management.commands._args import bad_input, project_named
from evaluation.models import Retriever, RetrieverKind, Schedule
from evaluation.services import (
    RetrieverInvalid,
    retriever_create,
    retriever_update,
    run_file_upload,
)
from goldsmith import formats

HTTP_OPTIONS = (
    "url",
    "method",
    "body_template",
    "results_path",
    "id_field",
    "score_field",
    "doc_id_field",
    "text_field",
    "timeout",
    "max_concurrency",
    "retries",
    "backoff",
)


class Command(BaseCommand):
    help = "Add a retriever under test: an HTTP endpoint, a run file, or built-in BM25/TF-IDF."

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="project name or id")
        parser.add_argument("--name", required=True)
        parser.add_argument("--kind", required=True, choices=RetrieverKind.values)
        parser.add_argument("--update", action="store_true", help="change an existing one")
        http = parser.add_argument_group("HTTP endpoint")
        http.add_argument("--url", help="may hold {query}, {query_id}, {top_k}")
        http.add_argument("--method", choices=("GET", "POST", "PUT"))
        http.add_argument("--body-template", help='JSON, e.g. {"q": "{query}", "k": "{top_k}"}')
        http.add_argument("--results-path", help="dotted path of the ranked list ('' for root)")
        http.add_argument("--id-field", help="chunk id field in each result (dotted)")
        http.add_argument("--score-field")
        http.add_argument("--doc-id-field")
        http.add_argument("--text-field")
        http.add_argument("--timeout", type=float)
        http.add_argument("--max-concurrency", type=int)
        http.add_argument("--retries", type=int)
        http.add_argument("--backoff", type=float)
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

    def handle(self, *args: Any, **o: Any) -> None:
        project = project_named(o["project"])
        config = {k: o[k] for k in HTTP_OPTIONS if o.get(k) is not None}
        value = sys.stdin.readline().rstrip("\r\n") if o["auth_value_stdin"] else ""
        if o["auth_value_stdin"] and not value:
            raise bad_input("--auth-value-stdin: nothing on stdin")
        schedule = (
            None if o["schedule"] is None else ("" if o["schedule"] == "none" else o["schedule"])
        )
        try:
            with transaction.atomic():
                retriever = self._save(project, o, config, value, schedule)
        except RetrieverInvalid as error:
            raise bad_input(str(error)) from None
        except formats.FormatError as error:
            raise bad_input(str(error)) from None
        verb = "updated" if o["update"] else "added"
        self.stdout.write(
            f"{verb} retriever {retriever.name!r} ({retriever.kind}, id {retriever.pk})"
        )

    def _save(
        self,
        project: Any,
        o: dict[str, Any],
        config: dict[str, Any],
        value: str,
        schedule: str | None,
    ) -> Retriever:
        if o["update"]:
            retriever = Retriever.objects.filter(project=project, name=o["name"]).first()
            if retriever is None:
                raise bad_input(f"no retriever named {o['name']!r} to update")
            retriever = retriever_update(
                retriever=retriever,
                config=config or None,
                auth_header_name=o["auth_header"],
                auth_header_value=value or None,
                auth_header_env=o["auth_env"],
                schedule=schedule,
            )
        else:
            retriever = retriever_create(
                project=project,
                name=o["name"],
                kind=o["kind"],
                config=config,
                auth_header_name=o["auth_header"] or "",
                auth_header_value=value,
                auth_header_env=o["auth_env"] or "",
                schedule=schedule or "",
            )
        if o["run_file"]:
            path = Path(o["run_file"])
            if not path.is_file():
                raise bad_input(f"{path}: no such file")
            run_file_upload(retriever=retriever, path=path, filename=path.name)
        return retriever
