"""Writes about retrievers under test and a project's evaluation settings."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation.models import Project
from annotation.text_input import single_line
from evaluation import credentials
from evaluation.models import (
    EvaluationSettings,
    Retriever,
    RetrieverKind,
    RunFile,
    RunFileRow,
    Schedule,
)
from evaluation.services.executors import ssrf_policy
from goldsmith import bands, metrics
from goldsmith.formats import FormatError
from goldsmith.formats.detect import detect_format, read_run
from goldsmith.retrievers.http import HttpRetrieverConfig
from goldsmith.retrievers.ssrf import UnsafeURL, check_url

HEADER_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")


class RetrieverInvalid(ValueError):
    """The retriever's configuration cannot be used; the message says why (never a secret)."""


def _clean_http_config(config: dict[str, Any]) -> dict[str, Any]:
    known = set(HttpRetrieverConfig.__dataclass_fields__)
    unknown = sorted(set(config) - known)
    if unknown:
        raise RetrieverInvalid(f"unknown HTTP setting {unknown[0]!r}")
    if "headers" in config:
        headers = config["headers"] or {}
        if not isinstance(headers, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
        ):
            raise RetrieverInvalid("headers must map names to strings")
        if any(k.lower() in ("authorization", "cookie", "x-api-key", "host") for k in headers):
            raise RetrieverInvalid("put credentials in the auth header (stored encrypted)")
    try:
        cfg = HttpRetrieverConfig(**config)
    except TypeError as error:
        raise RetrieverInvalid(str(error)) from None
    cfg = HttpRetrieverConfig(**{**cfg.snapshot(), "method": cfg.method.upper()})
    problems = cfg.problems()
    if problems:
        raise RetrieverInvalid("; ".join(problems))
    probe = cfg.url.replace("{query}", "q").replace("{query_id}", "1").replace("{top_k}", "10")
    try:
        check_url(probe, ssrf_policy())
    except UnsafeURL as error:
        if "does not resolve" not in str(error):  # a name may resolve only on the workers
            raise RetrieverInvalid(str(error)) from None
    return cfg.snapshot()


def _set_auth(retriever: Retriever, name: str | None, value: str | None, env: str | None) -> None:
    if name is not None:
        name = name.strip()
        if name and not set(name) <= HEADER_NAME_CHARS:
            raise RetrieverInvalid("the auth header name may hold letters, digits, - and _")
        retriever.auth_header_name = name
        if not name:
            retriever.auth_header_encrypted = ""
            retriever.auth_header_env = ""
    if value:
        retriever.auth_header_encrypted = credentials.encrypt(value)
        retriever.auth_header_env = ""
    if env:
        env = env.strip()
        if not env.replace("_", "").isalnum():
            raise RetrieverInvalid("the environment variable name may hold letters, digits, _")
        refusal = credentials.environment_refusal(env)
        if refusal is not None:
            raise RetrieverInvalid(refusal)
        retriever.auth_header_env = env
        retriever.auth_header_encrypted = ""
    if (value or env) and not retriever.auth_header_name:
        raise RetrieverInvalid("give the auth header a name (e.g. Authorization)")


@transaction.atomic
def retriever_create(
    *,
    project: Project,
    name: str,
    kind: str,
    config: dict[str, Any] | None = None,
    auth_header_name: str = "",
    auth_header_value: str = "",
    auth_header_env: str = "",
    schedule: str = "",
    by: AbstractBaseUser | None = None,
) -> Retriever:
    try:
        name = single_line(name, "a retriever's name")
    except ValueError as error:
        raise RetrieverInvalid(str(error)) from None
    if not name:
        raise RetrieverInvalid("the retriever needs a name")
    if kind not in RetrieverKind.values:
        raise RetrieverInvalid(f"kind must be one of {', '.join(RetrieverKind.values)}")
    if schedule not in Schedule.values:
        raise RetrieverInvalid(
            f"schedule must be one of {', '.join(s or 'none' for s in Schedule.values)}"
        )
    if Retriever.objects.filter(project=project, name=name).exists():
        raise RetrieverInvalid(f"a retriever named {name!r} already exists")
    if kind == RetrieverKind.HTTP:
        clean = _clean_http_config(dict(config or {}))
    else:
        clean = {}
        if auth_header_name or auth_header_value or auth_header_env:
            raise RetrieverInvalid("only HTTP retrievers take an auth header")
    retriever = Retriever(
        project=project,
        name=name,
        kind=kind,
        config=clean,
        schedule=schedule,
        created_by=by if getattr(by, "pk", None) else None,
    )
    _set_auth(retriever, auth_header_name, auth_header_value, auth_header_env)
    retriever.save()
    return retriever


@transaction.atomic
def retriever_update(
    *,
    retriever: Retriever,
    config: dict[str, Any] | None = None,
    auth_header_name: str | None = None,
    auth_header_value: str | None = None,
    auth_header_env: str | None = None,
    schedule: str | None = None,
) -> Retriever:
    """Change a retriever. An empty auth value keeps the stored one (it is never shown)."""
    if config is not None and retriever.kind == RetrieverKind.HTTP:
        retriever.config = _clean_http_config({**retriever.config, **config})
    if schedule is not None:
        if schedule not in Schedule.values:
            raise RetrieverInvalid("unknown schedule")
        retriever.schedule = schedule
    if retriever.kind == RetrieverKind.HTTP:
        _set_auth(retriever, auth_header_name, auth_header_value, auth_header_env)
    retriever.save()
    return retriever


def retriever_snapshot(retriever: Retriever) -> dict[str, Any]:
    """What a run records of its retriever: kind and configuration, never the secret."""
    snap: dict[str, Any] = {"kind": retriever.kind, "name": retriever.name}
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
            raise RetrieverInvalid("upload a run file first")
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


@transaction.atomic
def run_file_upload(*, retriever: Retriever, path: Path, filename: str) -> RunFile:
    """Store an uploaded TREC or JSONL run (one row per query). Raises FormatError."""
    if retriever.kind != RetrieverKind.RUNFILE:
        raise RetrieverInvalid("only run-file retrievers take a run file")
    fmt = detect_format(path)
    if fmt == "goldset":
        raise FormatError(filename, 1, "this is a golden set, not a run")
    ranking = read_run(path, fmt)
    import numpy as np

    order = np.lexsort((np.arange(len(ranking.ids)), ranking.ranks, ranking.qidx))
    lists: dict[str, tuple[list[str], list[float | None]]] = {}
    for i in order:
        qid = ranking.query_ids[int(ranking.qidx[i])]
        ids, scores = lists.setdefault(qid, ([], []))
        ids.append(ranking.ids[i].decode("utf-8"))
        s = float(ranking.scores[i])
        scores.append(None if s != s else s)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    run_file = RunFile.objects.create(
        retriever=retriever,
        filename=filename[:255],
        sha256=digest,
        format=fmt,
        query_count=len(lists),
        row_count=len(ranking.ids),
    )
    RunFileRow.objects.bulk_create(
        [RunFileRow(run_file=run_file, query_id=q, ids=i, scores=s) for q, (i, s) in lists.items()],
        batch_size=1000,
    )
    return run_file


def evaluation_settings_get(*, project: Project) -> EvaluationSettings:
    found, _ = EvaluationSettings.objects.get_or_create(project=project)
    return found


def evaluation_settings_update(*, project: Project, **fields: Any) -> EvaluationSettings:
    record = evaluation_settings_get(project=project)
    if "preset" in fields:
        bands.preset(fields["preset"])  # raises on an unknown key
    for name, value in fields.items():
        setattr(record, name, value)
    try:
        project_targets(record)  # a floor above its target, or a value outside [0, 1]
    except ValueError as error:
        raise RetrieverInvalid(str(error)) from None
    if not 1 <= int(record.headline_k) <= 1000:
        raise RetrieverInvalid("the headline K must be between 1 and 1000")
    try:
        metrics.topk_weights(record.topk_scenario, record.topk_weights)
    except ValueError as error:
        raise RetrieverInvalid(str(error)) from None
    if not 0.0 <= float(record.low_recall_cutoff) <= 1.0:
        raise RetrieverInvalid("the low-recall cut-off must be between 0 and 1")
    if record.webhook_url:
        try:
            check_url(record.webhook_url, ssrf_policy())
        except UnsafeURL as error:
            if "does not resolve" not in str(error):
                raise RetrieverInvalid(f"webhook: {error}") from None
    record.save()
    return record


def topk_choice(record: EvaluationSettings) -> tuple[str, dict[str, float]]:
    """The project's top-K scenario and its edits of the weights. Edits that do not validate
    (written around the settings page) fall back to the scenario's own weights, and an unknown
    scenario to the default one, rather than fail a report."""
    scenario = record.topk_scenario if record.topk_scenario in metrics.TOPK_SCENARIOS else ""
    try:
        metrics.topk_weights(scenario, record.topk_weights)
    except ValueError:
        return scenario, {}
    return scenario, dict(record.topk_weights or {})


def project_targets(record: EvaluationSettings) -> bands.Targets:
    """The project's targets and floors: its own values, else its preset's. (`min_recall` and
    `min_pass_rate` are the targets' field names.)"""
    return bands.targets_for(
        record.preset,
        {
            "recall_target": record.min_recall,
            "recall_floor": record.recall_floor,
            "pass_threshold": record.pass_threshold,
            "pass_rate_target": record.min_pass_rate,
            "pass_rate_floor": record.pass_rate_floor,
        },
    )


def effective_thresholds(record: EvaluationSettings) -> dict[str, float | None]:
    """The project's thresholds: its own values, else its preset's."""
    t = project_targets(record)
    return {
        "pass_threshold": t.pass_threshold,
        "min_recall": t.recall_target,
        "recall_floor": t.recall_floor,
        "min_pass_rate": t.pass_rate_target,
        "pass_rate_floor": t.pass_rate_floor,
        "max_recall_drop": record.max_recall_drop,
        "max_pass_rate_drop": record.max_pass_rate_drop,
        "headline_k": record.headline_k,
    }
