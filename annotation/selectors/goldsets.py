"""Reads of frozen golden-set versions: lists, items, streamed exports, diffs.

Exports read the database in bounded batches (or through a server-side cursor), so an export of
any size streams with flat memory; pages, the API and the commands all use `export_stream`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext

from annotation.models import GoldenItem, GoldenJudgment, GoldenSetVersion, Project
from goldsmith.answers.model import KeyFact
from goldsmith.formats.beir import CorpusRow, beir_zip_pieces
from goldsmith.formats.diff import AnswerFields, GoldsetDiff, goldset_diff
from goldsmith.formats.goldset import (
    GoldenQuery,
    GoldJudgment,
    csv_pieces,
    goldset_lines,
)
from goldsmith.formats.ragas import RagasRow, ragas_jsonl_lines, ragas_rows
from goldsmith.formats.trec import topics_pieces, trec_qrels_pieces

EXPORT_FORMATS = ("jsonl", "trec", "topics", "beir", "csv", "ragas-jsonl")
ITEM_FIELDS = (
    "id", "query_id", "text", "category", "stratum", "weight", "split", "reference_answer",
    "answer_type", "choices", "reference_facts", "reference_alternatives",
)  # fmt: skip
BATCH = 1000  # items per read batch (≈ 30 000 judgments for a typical version)


def golden_set_versions(*, project: Project) -> QuerySet[GoldenSetVersion]:
    return GoldenSetVersion.objects.filter(project=project).select_related("parent")


def golden_set_version_get(*, project: Project, label: str) -> GoldenSetVersion:
    """The version; raises GoldenSetVersion.DoesNotExist."""
    return GoldenSetVersion.objects.select_related("parent").get(project=project, label=label)


def golden_queries(
    version: GoldenSetVersion, *, start: int = 0, stop: int | None = None
) -> Iterator[GoldenQuery]:
    """The version's queries in query_id order (positions `start`..`stop`), read in batches."""
    stop = version.query_count if stop is None else min(stop, version.query_count)
    for lo in range(start, stop, BATCH):
        hi = min(lo + BATCH, stop)
        items = list(
            GoldenItem.objects.filter(version=version, position__gte=lo, position__lt=hi)
            .order_by("position")
            .values_list(*ITEM_FIELDS)
        )
        judged: dict[int, list[GoldJudgment]] = {item[0]: [] for item in items}
        for item_id, cid, doc, s, e, text, grade, provenance in (
            GoldenJudgment.objects.filter(
                item__version=version, item__position__gte=lo, item__position__lt=hi
            )
            .order_by("item_id", "position")
            .values_list(
                "item_id", "chunk_id", "doc_id", "start", "end", "text", "grade", "provenance"
            )
        ):
            judged[item_id].append(GoldJudgment(cid, grade, doc, s, e, provenance, text))
        for (
            pk,
            qid,
            text,
            category,
            stratum,
            weight,
            split,
            answer,
            kind,
            choices,
            facts,
            more,
        ) in items:
            yield GoldenQuery(
                query_id=qid,
                query=text,
                judgments=tuple(judged[pk]),
                category=category,
                stratum=stratum,
                weight=weight,
                split=split,
                reference_answer=answer,
                answer_type=kind,
                choices=tuple(choices),
                reference_facts=_facts(facts),
                reference_alternatives=tuple(more),
            )


def qrels_rows(version: GoldenSetVersion) -> Iterator[tuple[str, str, int]]:
    """(query_id, chunk_id, grade) in file order, through a server-side cursor on PostgreSQL."""
    return (
        GoldenJudgment.objects.filter(item__version=version)
        .order_by("item__position", "position")
        .values_list("item__query_id", "chunk_id", "grade")
        .iterator(chunk_size=20000)
    )


def _beir_qrels(version: GoldenSetVersion) -> Iterator[tuple[str, str, int, str | None]]:
    return (
        GoldenJudgment.objects.filter(item__version=version)
        .order_by("item__position", "position")
        .values_list("item__query_id", "chunk_id", "grade", "item__split")
        .iterator(chunk_size=20000)
    )


def _beir_corpus(version: GoldenSetVersion) -> Iterator[CorpusRow]:
    """Each judged chunk once, with its text at freeze time (the first copy found)."""
    seen: set[str] = set()
    for cid, doc, s, e, text in (
        GoldenJudgment.objects.filter(item__version=version)
        .order_by("chunk_id", "id")
        .values_list("chunk_id", "doc_id", "start", "end", "text")
        .iterator(chunk_size=20000)
    ):
        if cid in seen:
            continue
        seen.add(cid)
        yield CorpusRow(chunk_id=cid, text=text or "", doc_id=doc, start=s, end=e)


def version_meta(version: GoldenSetVersion) -> dict[str, Any]:
    """What a sidecar ``.meta.json`` (and BEIR's ``goldsmith.json``) says about a version."""
    return {
        "project": version.header.get("project", version.project.name),
        "label": version.label,
        "content_hash": version.content_hash,
        "created_at": version.header.get("created_at"),
        "query_count": version.query_count,
        "judgment_count": version.judgment_count,
        "counts": version.counts,
        "split": {"seed": version.split_seed, "test_share": version.test_share}
        if version.split_seed is not None
        else None,
    }


def export_basename(version: GoldenSetVersion) -> str:
    """``<project>-<label>-<first 12 hex of the hash>``: the hash is in every file name. The
    project's name keeps its letters and digits in any script ("电商客服 FAQ" is
    ``电商客服-faq``); the rest becomes ``-``."""
    slug = re.sub(r"[\W_]+", "-", version.project.name).strip("-").lower() or "project"
    return f"{slug}-{version.label}-{version.content_hash.removeprefix('sha256:')[:12]}"


@dataclass(frozen=True)
class ExportStream:
    pieces: Callable[[], Iterator[str] | Iterator[bytes]]
    content_type: str
    filename: str


def export_stream(version: GoldenSetVersion, fmt: str) -> ExportStream:
    """The export of `version` in `fmt` (one of `EXPORT_FORMATS`) as a stream of pieces."""
    base = export_basename(version)
    if fmt == "jsonl":
        return ExportStream(
            lambda: goldset_lines(version.header, golden_queries(version)),
            "application/x-ndjson; charset=utf-8",
            f"{base}.jsonl",
        )
    if fmt == "trec":
        return ExportStream(
            lambda: trec_qrels_pieces(qrels_rows(version)),
            "text/plain; charset=utf-8",
            f"{base}.qrels",
        )
    if fmt == "topics":
        rows = (
            GoldenItem.objects.filter(version=version)
            .order_by("position")
            .values_list("query_id", "text")
        )
        return ExportStream(
            lambda: topics_pieces(rows.iterator(chunk_size=5000)),
            "text/tab-separated-values; charset=utf-8",
            f"{base}.topics.tsv",
        )
    if fmt == "csv":
        return ExportStream(
            lambda: csv_pieces(golden_queries(version)), "text/csv; charset=utf-8", f"{base}.csv"
        )
    if fmt == "ragas-jsonl":
        return ExportStream(
            lambda: ragas_jsonl_lines(ragas_samples(version)),
            "application/x-ndjson; charset=utf-8",
            f"{base}.ragas.jsonl",
        )
    if fmt == "beir":
        return ExportStream(
            lambda: beir_zip_pieces(
                root=base,
                corpus=lambda: _beir_corpus(version),
                queries=lambda: golden_queries(version),
                qrels=lambda: _beir_qrels(version),
                meta=version_meta(version),
            ),
            "application/zip",
            f"{base}.zip",
        )
    raise ValueError(
        gettext("unknown export format %(fmt)r; use one of %(names)s")
        % {"fmt": fmt, "names": ", ".join(EXPORT_FORMATS)}
    )


def ragas_samples(version: GoldenSetVersion) -> Iterator[RagasRow]:
    """The version as RAGAS samples: the question, the reference answer, and as reference
    contexts the chunks its key facts link to (else its chunks graded 2), every id kept."""
    for q in golden_queries(version):
        judged = {q.query_id: [(j.chunk_id, j.text, j.grade) for j in q.judgments]}
        yield from ragas_rows([q.answer_key()], judged)


def version_diff(a: GoldenSetVersion, b: GoldenSetVersion) -> GoldsetDiff:
    """What changed from `a` to `b` (any two versions of a project)."""

    def load(v: GoldenSetVersion) -> tuple[dict[str, str], dict[str, AnswerFields]]:
        texts: dict[str, str] = {}
        answers: dict[str, AnswerFields] = {}
        for qid, text, answer, kind, choices, facts in GoldenItem.objects.filter(
            version=v
        ).values_list("query_id", "text", "reference_answer", "answer_type", "choices",
                      "reference_facts"):  # fmt: skip
            texts[qid] = text
            answers[qid] = (answer, kind, tuple(choices), _facts(facts))
        return texts, answers

    a_queries, a_answers = load(a)
    b_queries, b_answers = load(b)
    return goldset_diff(a_queries, qrels_rows(a), b_queries, qrels_rows(b), a_answers, b_answers)


def _facts(stored: list[dict[str, Any]]) -> tuple[KeyFact, ...]:
    return tuple(KeyFact(f["text"], tuple(f["chunk_ids"])) for f in stored)
