"""Fixtures for evaluation tests: a golden version, a stub HTTP retriever, real workers."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from goldsmith import reporting
from goldsmith.text import templates_of
from sitewide.i18n import localized
from tests.conftest import REPO, WorkerProcess, worker_environment
from tests.stub_servers import StubRetriever


def stored_and_said(doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``doc`` (a report or a part of one, as the engine made it) as a run stores it (JSON: its
    sentences in English, their templates and values under ``templates``), and as a page says
    it in the active language."""
    stored = json.loads(json.dumps(reporting.strict_json({**doc, "templates": templates_of(doc)})))
    return stored, localized(stored)


@dataclass
class Golden:
    version: object
    answers: dict[str, list[str]]  # query id -> what the stub returns
    query_ids: list[str]


def make_golden(project, n: int = 20, *, label: str | None = None, categories: int = 2) -> Golden:
    """A version of `n` queries q1..qn. Query i has relevant chunks r{i}a (2), r{i}b (2), a
    partly relevant p{i} (1) and a judged non-relevant n{i} (0). The stub's answer varies, so
    recall, MRR and judged@K vary across queries."""
    from annotation.services.goldsets import LoadedGoldset, golden_set_version_import
    from goldsmith.formats.goldset import GoldenQuery, GoldJudgment

    queries = []
    answers: dict[str, list[str]] = {}
    for i in range(1, n + 1):
        qid = f"q{i}"
        judgments = (
            GoldJudgment(f"r{i}a", 2, doc_id=f"d{i}", start=0, end=100, text=f"answer a {i}"),
            GoldJudgment(f"r{i}b", 2, doc_id=f"d{i}", start=100, end=200, text=f"answer b {i}"),
            GoldJudgment(f"p{i}", 1, doc_id=f"d{i}", start=200, end=300, text=f"partial {i}"),
            GoldJudgment(f"n{i}", 0, doc_id=f"e{i}", start=0, end=100, text=f"noise {i}"),
        )
        queries.append(
            GoldenQuery(
                query_id=qid,
                query=f"question number {i}",
                judgments=judgments,
                category=f"cat{i % categories}",
                stratum="head" if i % 2 else "tail",
            )
        )
        mode = i % 4
        if mode == 0:
            answers[qid] = [f"r{i}a", f"r{i}b", f"n{i}", f"u{i}"]
        elif mode == 1:
            answers[qid] = [f"n{i}", f"r{i}a", f"u{i}", f"p{i}", f"x{i}", f"y{i}", f"r{i}b"]
        elif mode == 2:
            answers[qid] = [f"u{i}", f"n{i}", f"p{i}"]
        else:
            answers[qid] = [f"p{i}", f"r{i}b", f"u{i}", f"n{i}", f"r{i}a"]
    loaded = LoadedGoldset(queries=queries, header=None, corpus=None, source_name="test.jsonl")
    version = golden_set_version_import(
        project=project, by=None, loaded=loaded, fmt="jsonl", label=label
    )
    return Golden(version=version, answers=answers, query_ids=[q.query_id for q in queries])


@pytest.fixture
def private_urls(settings, monkeypatch):
    """The stub listens on 127.0.0.1: allow loopback here and in workers started later."""
    settings.GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS = True
    monkeypatch.setenv("GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS", "1")


@pytest.fixture
def stub_factory() -> Iterator[Callable[..., StubRetriever]]:
    started: list[StubRetriever] = []

    def make(*args, **kwargs) -> StubRetriever:
        stub = StubRetriever(*args, **kwargs).start()
        started.append(stub)
        return stub

    yield make
    for stub in started:
        stub.stop()


@pytest.fixture
def worker_factory(transactional_db) -> Iterator[Callable[..., WorkerProcess]]:
    """Start real `celery worker` processes on the test database (purging the queue first)."""
    subprocess.run(
        [sys.executable, "-m", "celery", "-A", "config", "purge", "-f"],
        cwd=REPO,
        env=worker_environment(),
        capture_output=True,
        check=False,
    )
    workers: list[WorkerProcess] = []

    def start(concurrency: int = 1) -> WorkerProcess:
        worker = WorkerProcess(concurrency=concurrency)
        worker.start()
        workers.append(worker)
        return worker

    yield start
    for worker in workers:
        worker.stop()
        worker.log.unlink(missing_ok=True)


@pytest.fixture
def answer_judge_stub() -> Iterator[Callable[..., object]]:
    """`answer_judge_stub(token=..., delay_ms=...)` starts the engine's answer-judge stub
    (`goldsmith answer-judge-stub`) on a free local port, in a thread; stopped after the test.
    It keeps every request body (`.bodies`)."""
    from goldsmith.answers.judge import AnswerJudgeStub

    started: list[AnswerJudgeStub] = []

    def make(**kwargs) -> AnswerJudgeStub:
        stub = AnswerJudgeStub(("127.0.0.1", 0), keep_bodies=True, **kwargs).start()
        started.append(stub)
        return stub

    yield make
    for stub in started:
        stub.stop()
