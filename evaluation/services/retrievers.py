"""Writes about retrievers under test (the project's evaluation settings: services/settings.py)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils.translation import gettext

from annotation.models import Project
from annotation.services.uploads import Upload, upload_file, upload_name
from evaluation import credentials
from evaluation.models import Answerer, Retriever, RetrieverKind, RunFile, RunFileRow, Schedule
from evaluation.services.endpoints import EndpointInvalid, auth_changes, config_check, refused_as
from goldsmith.answers.model import StagedQuery
from goldsmith.formats import FormatError
from goldsmith.formats.detect import RepeatedId, detect_format, read_run, run_repeats
from goldsmith.formats.jsonl import read_jsonl_stages
from goldsmith.retrievers.http import HttpRetrieverConfig, render_url
from goldsmith.text import say
from sitewide.text_input import single_line


class RetrieverInvalid(EndpointInvalid):
    """The retriever's configuration cannot be used; the message says why (never a secret)."""


def retriever_save(
    *,
    project: Project,
    retriever: Retriever | None = None,
    name: str | None = None,
    kind: str | None = None,
    config: Mapping[str, Any] | None = None,
    auth_header_name: str | None = None,
    auth_header_value: str | None = None,
    auth_header_env: str | None = None,
    schedule: str | None = None,
    answerer: str | None = None,
    run_file: Upload | Path | None = None,
    by: AbstractBaseUser | None = None,
) -> Retriever:
    """Add a retriever to `project` (no `retriever` given) or change `retriever`, and store its
    run file, in one transaction: when anything is refused (the name, the configuration, the
    run file) nothing is saved, and the corrected form can be sent again.

    A setting left None keeps its value (its default when adding); an empty auth value keeps
    the stored one, which is never shown. `config` holds HTTP settings; when changing, it is
    merged into the stored configuration. The HTTP settings and the auth header belong to HTTP
    retrievers: adding another kind with an auth header is refused, and changing one ignores
    them (the edit form sends them for every kind). A retriever's name and kind are fixed once
    added. `run_file` (run-file retrievers only) is an upload, whose errors name it as it was
    uploaded, or a path given on the command line; the newest run file is the one new runs
    evaluate; a JSONL run file's stages (``candidates``, ``contexts``, ``response``) are kept
    with its lists. `answerer` ("" or "extractive") answers the queries the retriever gives no
    response for with the extractive baseline. Raises RetrieverInvalid, FormatError
    (``FILE:LINE: what``) or UploadRefused."""
    kind = _checked_kind(retriever, kind)
    if retriever is None:
        name = _new_name(project, name)
    elif retriever.project_id != project.pk:
        raise RetrieverInvalid(gettext("the retriever belongs to another project"))
    elif name not in (None, "", retriever.name):
        raise RetrieverInvalid(
            gettext("a retriever's name cannot change (it is %(name)r)") % {"name": retriever.name}
        )
    if run_file is not None and kind != RetrieverKind.RUNFILE:
        raise RetrieverInvalid(gettext("only run-file retrievers take a run file"))
    changes: dict[str, Any] = {}
    if schedule is not None:
        if schedule not in Schedule.values:
            raise RetrieverInvalid(
                gettext("schedule must be one of %(names)s")
                % {"names": ", ".join(s or "none" for s in Schedule.values)}
            )
        changes["schedule"] = schedule
    if answerer is not None:
        if answerer not in Answerer.values:
            raise RetrieverInvalid(
                gettext("the answerer must be one of %(names)s")
                % {"names": ", ".join(a or "none" for a in Answerer.values)}
            )
        changes["answerer"] = answerer
    if kind == RetrieverKind.HTTP:
        with refused_as(RetrieverInvalid):
            if retriever is None or config is not None:
                stored = retriever.config if retriever is not None else {}
                changes["config"] = config_check(
                    HttpRetrieverConfig,
                    {**stored, **(config or {})},
                    unknown=gettext("unknown HTTP setting %(name)r"),
                    url=lambda c: render_url(c.url, "q", "1", 10),
                )
            changes.update(
                auth_changes(retriever, auth_header_name, auth_header_value, auth_header_env)
            )
    elif retriever is None and (auth_header_name or auth_header_value or auth_header_env):
        raise RetrieverInvalid(gettext("only HTTP retrievers take an auth header"))
    read = _run_file_read(run_file) if run_file is not None else None
    try:
        with transaction.atomic():
            if retriever is None:
                retriever = Retriever(
                    project=project,
                    name=name,
                    kind=kind,
                    created_by=by if getattr(by, "pk", None) else None,
                )
            for field, value in changes.items():
                setattr(retriever, field, value)
            retriever.save()
            if read is not None:
                _run_file_store(retriever, read)
    except IntegrityError:  # the same name added at the same moment
        raise RetrieverInvalid(
            gettext("a retriever named %(name)r already exists") % {"name": name}
        ) from None
    return retriever


def _checked_kind(retriever: Retriever | None, kind: str | None) -> str:
    if retriever is not None:
        if kind not in (None, "", retriever.kind):
            raise RetrieverInvalid(
                gettext("a retriever's kind cannot change (it is %(kind)s)")
                % {"kind": retriever.kind}
            )
        return str(retriever.kind)
    if kind not in RetrieverKind.values:
        raise RetrieverInvalid(
            gettext("kind must be one of %(names)s") % {"names": ", ".join(RetrieverKind.values)}
        )
    return str(kind)


def _new_name(project: Project, name: str | None) -> str:
    try:
        name = single_line(name or "", gettext("a retriever's name"))
    except ValueError as error:
        raise RetrieverInvalid(str(error), field="name") from None
    if not name:
        raise RetrieverInvalid(gettext("the retriever needs a name"), field="name")
    if Retriever.objects.filter(project=project, name=name).exists():
        raise RetrieverInvalid(
            gettext("a retriever named %(name)r already exists") % {"name": name}, field="name"
        )
    return name


def retriever_snapshot(retriever: Retriever) -> dict[str, Any]:
    """What a run records of its retriever: kind and configuration, never the secret."""
    snap: dict[str, Any] = {"kind": retriever.kind, "name": retriever.name}
    if retriever.answerer:  # only when set: the fingerprints of earlier runs stay the same
        snap["answerer"] = retriever.answerer
    if retriever.kind == RetrieverKind.HTTP:
        if retriever.auth_header_env:  # saved before the rule existed: refuse the run now
            refusal = credentials.environment_refusal(retriever.auth_header_env)
            if refusal is not None:
                raise RetrieverInvalid(refusal)
        snap["config"] = retriever.config
        snap["auth_header"] = retriever.auth_header_name or None
        snap["auth_source"] = (
            "env"
            if retriever.auth_header_env
            else "stored"
            if retriever.auth_header_encrypted
            else None
        )
    elif retriever.kind == RetrieverKind.RUNFILE:
        run_file = retriever.run_files.first()
        if run_file is None:
            raise RetrieverInvalid(gettext("upload a run file first"))
        snap.update(run_file_id=run_file.pk, sha256=run_file.sha256, filename=run_file.filename)
    else:
        snap["params"] = (
            {"k1": 1.5, "b": 0.75, "idf": "lucene"}
            if retriever.kind == "bm25"
            else {"sublinear_tf": True}
        )
    return snap


def snapshot_fingerprint(snapshot: dict[str, Any]) -> str:
    body = {k: v for k, v in snapshot.items() if k != "name"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class _RunFileRead:
    filename: str
    sha256: str
    format: str
    lists: dict[str, tuple[list[str], list[float | None]]]
    rows: int
    stages: dict[str, StagedQuery]
    repeats: list[RepeatedId]


def _run_file_read(source: Upload | Path) -> _RunFileRead:
    """A TREC or JSONL run read into one ranked list per query (in the retriever's order)."""
    if isinstance(source, Path):
        return _run_file_parse(source, source.name)
    with upload_file(source) as path:
        return _run_file_parse(path, upload_name(source))


def _run_file_parse(path: Path, filename: str) -> _RunFileRead:
    fmt = detect_format(path)
    if fmt == "goldset":
        raise FormatError(path, 1, say("this is a golden set, not a run"))
    ranking = read_run(path, fmt)
    order = np.lexsort((np.arange(len(ranking.ids)), ranking.ranks, ranking.qidx))
    lists: dict[str, tuple[list[str], list[float | None]]] = {}
    for i in order:
        qid = ranking.query_ids[int(ranking.qidx[i])]
        ids, scores = lists.setdefault(qid, ([], []))
        ids.append(ranking.ids[i].decode("utf-8"))
        s = float(ranking.scores[i])
        scores.append(None if s != s else s)
    repeats: list[RepeatedId] = []
    if any(len(set(ids)) != len(ids) for ids, _ in lists.values()):
        # Keep each id's first place in the ranking, as scoring does; say where the repeats are.
        repeats = run_repeats(path, "jsonl" if fmt == "jsonl" else "trec")
        for qid, (ids, scores) in list(lists.items()):
            if len(set(ids)) == len(ids):
                continue
            firsts = {doc: i for i, doc in reversed(list(enumerate(ids)))}
            keep = sorted(firsts.values())
            lists[qid] = ([ids[i] for i in keep], [scores[i] for i in keep])
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    stages: dict[str, StagedQuery] = {}
    if fmt == "jsonl" and any(f'"{k}"'.encode() in data for k in STAGE_KEYS):
        stages = {s.query_id: s for s in read_jsonl_stages(path)}
    return _RunFileRead(filename[:255], digest, fmt, lists, len(ranking.ids), stages, repeats)


STAGE_KEYS = ("candidates", "contexts", "response")


def _stage_fields(staged: StagedQuery | None) -> dict[str, Any]:
    """A run-file row's stage columns (docs/formats.md, "stages")."""
    if staged is None:
        return {}
    cands = staged.candidates
    return {
        "candidates": None if cands is None else [c.id for c in cands],
        "candidate_scores": [] if cands is None else [c.score for c in cands],
        "contexts": None
        if staged.contexts is None
        else [{"id": c.id, "text": c.text} for c in staged.contexts],
        "response": staged.response,
    }


def _run_file_store(retriever: Retriever, read: _RunFileRead) -> RunFile:
    run_file = RunFile.objects.create(
        retriever=retriever,
        filename=read.filename,
        sha256=read.sha256,
        format=read.format,
        query_count=len(read.lists),
        row_count=read.rows,
        repeated_ids=len(read.repeats),
        first_repeat=None
        if not read.repeats
        else {
            "line": read.repeats[0].line,
            "first_line": read.repeats[0].first_line,
            "query_id": read.repeats[0].query_id,
            "id": read.repeats[0].id,
        },
    )
    RunFileRow.objects.bulk_create(
        [
            RunFileRow(
                run_file=run_file,
                query_id=q,
                ids=i,
                scores=s,
                **_stage_fields(read.stages.get(q)),
            )
            for q, (i, s) in read.lists.items()
        ],
        batch_size=1000,
    )
    return run_file
