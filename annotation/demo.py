"""The annotation part of the demo project that `make run` loads: idempotent, built with the
real services. The whole demo, with its evaluation runs, is `evaluation.demo.demo_load`."""

from __future__ import annotations

import importlib
import inspect
import json
import re
import tempfile
from pathlib import Path

from annotation.models import CorpusImport, ImportStatus, Project, QueryLog, Sample
from annotation.services.corpus import corpus_import
from annotation.services.imports import file_sha256
from annotation.services.projects import project_setup
from annotation.services.querylogs import query_log_import
from annotation.services.sampling import sample_create

DEMO_PROJECT = "Python docs demo"
DEMO_PASSWORD = "goldsmith-demo"
DEMO_LOGINS: list[tuple[str, str, str]] = [
    ("lead", "lead", DEMO_PASSWORD),
    ("alice", "annotator", DEMO_PASSWORD),
    ("bob", "annotator", DEMO_PASSWORD),
    ("viewer", "viewer", DEMO_PASSWORD),
]


def demo_project_load() -> list[str]:
    """Create (or leave as is) the demo project up to its frozen v1 (annotation/demo_tour.py);
    returns what it did, line by line."""
    setup = project_setup(
        name=DEMO_PROJECT,
        leads=[u for u, role, _ in DEMO_LOGINS if role == "lead"],
        annotators=[u for u, role, _ in DEMO_LOGINS if role == "annotator"],
        viewers=[u for u, role, _ in DEMO_LOGINS if role == "viewer"],
        password=DEMO_PASSWORD,
    )
    done = [
        f"demo project {setup.project.name!r} {'created' if setup.changed else 'already there'}"
    ]
    done += demo_corpus_and_queries(project=setup.project)
    from annotation.demo_tour import demo_tour

    done += demo_tour(project=setup.project)
    return done


# --- corpus, query log and sample, through the real import pipeline ------------------------

DEMO_DATA = Path(__file__).resolve().parent / "demo_data"
DEMO_QUERYLOG = DEMO_DATA / "python_questions.csv"
DEMO_MODULES = [
    "argparse", "asyncio", "bisect", "collections", "concurrent.futures", "configparser", "csv",
    "dataclasses", "datetime", "decimal", "doctest", "fractions", "functools", "glob", "heapq",
    "http.client", "http.server", "ipaddress", "itertools", "json", "logging", "logging.handlers",
    "math", "multiprocessing", "os", "pathlib", "pdb", "pickle", "random", "re", "secrets",
    "shutil", "signal", "smtplib", "socket", "ssl", "statistics", "string", "subprocess", "sys",
    "tempfile", "textwrap", "threading", "time", "timeit", "tomllib", "tracemalloc", "typing",
    "unicodedata", "unittest", "unittest.mock", "urllib.parse", "urllib.request", "uuid",
    "warnings", "xml.etree.ElementTree", "zipfile", "zoneinfo",
]  # fmt: skip
_ADDRESS_RE = re.compile(r" at 0x[0-9a-f]+")
DEMO_SAMPLE = {"n": 40, "strategy": "frequency", "seed": 7}


def _module_document(name: str) -> dict[str, object] | None:
    """A module's documentation as one text: its docstring, then each public member's."""
    try:
        module = importlib.import_module(name)
    except ImportError:
        return None
    parts = [inspect.getdoc(module) or ""]
    public = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    for member_name in sorted(public):
        member = getattr(module, member_name, None)
        if member is None or inspect.ismodule(member):
            continue
        if getattr(member, "__module__", name) not in (name, None) and not name.startswith(
            str(getattr(member, "__module__", ""))
        ):
            continue  # documented where it is defined
        doc = inspect.getdoc(member)
        if not doc or not (inspect.isclass(member) or inspect.isroutine(member)):
            continue
        try:
            # Object addresses differ from run to run: drop them so the file is reproducible.
            signature = _ADDRESS_RE.sub("", str(inspect.signature(member)))
        except (TypeError, ValueError):
            signature = "(…)"
        parts.append(f"{name}.{member_name}{signature}\n\n{doc}")
    text = "\n\n".join(p for p in parts if p.strip())
    return {"doc_id": name, "title": f"{name} module", "text": text} if text else None


def _write_stdlib_corpus(out: Path) -> int:
    count = 0
    with out.open("w", encoding="utf-8") as handle:
        for name in DEMO_MODULES:
            document = _module_document(name)
            if document is not None:
                handle.write(json.dumps(document, ensure_ascii=False) + "\n")
                count += 1
    return count


def demo_corpus_and_queries(*, project: Project) -> list[str]:
    """The standard library's own documentation, chunked, as corpus; the committed log of
    questions about it, scrubbed and de-duplicated; a frequency sample of it. Each step is
    skipped when its input was already imported (same sha256), so a second run changes nothing.
    """
    done: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        corpus_file = Path(tmp) / "python-stdlib-docs.jsonl"
        documents = _write_stdlib_corpus(corpus_file)
        sha = file_sha256(corpus_file)
        imported = CorpusImport.objects.filter(
            project=project, sha256=sha, status=ImportStatus.DONE
        ).exists()
        if imported:
            done.append("demo corpus already imported")
        else:
            record = corpus_import(project=project, path=corpus_file, chunk_size=1200, overlap=150)
            if record.status != ImportStatus.DONE:
                raise RuntimeError(record.error)
            done.append(
                f"demo corpus: {documents} standard-library modules, "
                f"{record.chunks_created} new chunks ({record.chunks_unchanged} unchanged)"
            )
    log = QueryLog.objects.filter(
        project=project, sha256=file_sha256(DEMO_QUERYLOG), status=ImportStatus.DONE
    ).first()
    if log is not None:
        done.append("demo query log already imported")
    else:
        log = query_log_import(project=project, path=DEMO_QUERYLOG, clusters=10)
        if log.status != ImportStatus.DONE:
            raise RuntimeError(log.error)
        scrubbed = ", ".join(f"{n} {k}" for k, n in sorted(log.scrubbed.items()))
        done.append(
            f"demo query log: {log.records} lines, {log.distinct} distinct queries; "
            f"scrubbed {scrubbed}"
        )
    if Sample.objects.filter(project=project, log=log).exists():
        done.append("demo sample already drawn")
    else:
        outcome = sample_create(project=project, log=log, **DEMO_SAMPLE)
        done.append(f"demo sample: {len(outcome.rows)} queries (frequency strategy, seed 7)")
    return done
