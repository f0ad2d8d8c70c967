"""Corpus files for the corpus-version tests: chunk lines, and an import through the command."""

from __future__ import annotations

import io
import json
from pathlib import Path

from django.core.management import call_command

V1 = {
    "kb-1": "Reset your password from the login page.",
    "kb-2": "Refunds take five working days.",
    "kb-3": "Contact support by e-mail.",
    "kb-4": "Invoices are sent at the start of each month.",
}


def chunk_lines(texts: dict[str, str]) -> str:
    return "".join(
        json.dumps({"id": cid, "doc_id": cid.split("-")[0], "text": text}) + "\n"
        for cid, text in texts.items()
    )


def write_corpus(folder: Path, name: str, texts: dict[str, str]) -> Path:
    path = folder / name
    path.write_text(chunk_lines(texts), encoding="utf-8")
    return path


def import_corpus(project, path: Path, *flags: str) -> str:
    out = io.StringIO()
    call_command(
        "import_corpus",
        "--project",
        project.name,
        str(path),
        "--quiet",
        *flags,
        stdout=out,
        stderr=io.StringIO(),
    )
    return out.getvalue()
