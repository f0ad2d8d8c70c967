"""A project whose corpus moves under its golden set: six chunks c1..c6 (document d{i}), a
frozen v1 whose query q{i} has c{i} relevant and every other chunk judged not relevant (so a
built-in BM25 run is wholly judged), and an update that retires c1 and c2 and changes c3's
text, touching q1, q2 and q3 (docs/design.md, "Corpus versions")."""

from __future__ import annotations

import io
import json
from pathlib import Path

from django.core.management import call_command

from annotation.services.goldsets import LoadedGoldset, golden_set_version_import
from goldsmith.formats.goldset import GoldenQuery, GoldJudgment

WORDS = ["refund", "invoice", "password", "shipping", "warranty", "upgrade"]


def text_of(i: int, changed: bool = False) -> str:
    word = WORDS[i - 1]
    if changed:
        return f"The {word} rules were rewritten: ask support about {word}."
    return f"How the {word} works: the {word} policy explained in full."


def write_corpus(path: Path, ids: list[int], changed: tuple[int, ...] = ()) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for i in ids:
            row = {"id": f"c{i}", "doc_id": f"d{i}", "text": text_of(i, i in changed)}
            out.write(json.dumps(row) + "\n")
    return path


def import_corpus(project: object, path: Path, *more: str) -> None:
    call_command("import_corpus", "--project", str(project.pk), str(path), "--quiet", *more,  # type: ignore[attr-defined]
                 stdout=io.StringIO(), stderr=io.StringIO())  # fmt: skip


def make_stale_ready(project: object, tmp_path: Path) -> object:
    """The corpus of six chunks, v1 judged on it and a BM25 retriever; returns v1."""
    import_corpus(project, write_corpus(tmp_path / "corpus-1.jsonl", [1, 2, 3, 4, 5, 6]))
    queries = [
        GoldenQuery(
            query_id=f"q{i}",
            query=f"{WORDS[i - 1]} policy",
            judgments=tuple(
                GoldJudgment(f"c{j}", 2 if j == i else 0, doc_id=f"d{j}", text=text_of(j))
                for j in range(1, 7)
            ),
        )
        for i in range(1, 7)
    ]
    loaded = LoadedGoldset(queries=queries, header=None, corpus=None, source_name="v1.jsonl")
    version = golden_set_version_import(
        project=project, by=None, loaded=loaded, fmt="jsonl", label="v1"
    )
    call_command(
        "add_retriever", "--project", str(project.pk), "--name", "bm25", "--kind", "bm25",  # type: ignore[attr-defined]
        stdout=io.StringIO(),
    )  # fmt: skip
    return version


def update_corpus(project: object, tmp_path: Path) -> None:
    """c1 and c2 retired (left out of a replace), c3's text changed."""
    import_corpus(
        project,
        write_corpus(tmp_path / "corpus-2.jsonl", [3, 4, 5, 6], changed=(3,)),
        "--replace",
    )
