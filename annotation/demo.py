"""The annotation part of the demo projects that `make run` loads: idempotent, built with the
real services. One speaks English (the Python standard library's documentation and questions
about it), one Chinese (the product-support collection in demo_data/zh_collection, written
here, with a raw query log holding traditional forms and personal data to scrub). The whole
demo, with its evaluation runs, is `evaluation.demo.demo_load`."""

from __future__ import annotations

import importlib
import inspect
import json
import tempfile
from collections.abc import Callable
from pathlib import Path

from annotation.models import Chunk, CorpusImport, ImportStatus, Project, QueryLog, Sample
from annotation.services.corpus import corpus_import
from annotation.services.imports import file_sha256
from annotation.services.projects import project_setup
from annotation.services.querylogs import query_log_import
from annotation.services.sampling import sample_create

DEMO_PROJECT = "Python docs demo"
DEMO_PROJECT_ZH = "智能设备与云服务客服（演示）"
DEMO_PASSWORD = "goldsmith-demo"
DEMO_LOGINS: list[tuple[str, str, str]] = [
    ("lead", "lead", DEMO_PASSWORD),
    ("alice", "annotator", DEMO_PASSWORD),
    ("bob", "annotator", DEMO_PASSWORD),
    ("viewer", "viewer", DEMO_PASSWORD),
]


def demo_projects_load() -> list[str]:
    """Both demo projects, English first."""
    return demo_project_load() + demo_zh_project_load()


def demo_project_load() -> list[str]:
    """Create (or leave as is) the demo project up to its frozen v1 (annotation/demo_tour.py);
    returns what it did, line by line."""
    created = not Project.objects.filter(name=DEMO_PROJECT).exists()
    project = _demo_members(DEMO_PROJECT)
    done = [f"demo project {DEMO_PROJECT!r} {'created' if created else 'already there'}"]
    done += demo_corpus_and_queries(project=project)
    from annotation.demo_tour import demo_tour

    done += demo_tour(project=project)
    return done


def _demo_members(name: str) -> Project:
    setup = project_setup(
        name=name,
        leads=[u for u, role, _ in DEMO_LOGINS if role == "lead"],
        annotators=[u for u, role, _ in DEMO_LOGINS if role == "annotator"],
        viewers=[u for u, role, _ in DEMO_LOGINS if role == "viewer"],
        password=DEMO_PASSWORD,
    )
    return setup.project


ZH_SAMPLE = {"n": 30, "strategy": "frequency", "seed": 7}
ZH_GRADED_QUERIES = 18  # of the 30 sampled


def demo_zh_project_load() -> list[str]:
    """The Chinese demo project up to its frozen v1: the collection's 300 chunks, its raw query
    log (scrubbed, folded and de-duplicated by the import), a sample, pools, and grades
    simulated from the collection's own qrels (with bob's deterministic disagreements)."""
    created = not Project.objects.filter(name=DEMO_PROJECT_ZH).exists()
    project = _demo_members(DEMO_PROJECT_ZH)
    done = [f"demo project {DEMO_PROJECT_ZH!r} {'created' if created else 'already there'}"]
    done += _imports(
        project=project,
        corpus=ZH_COLLECTION / "corpus.jsonl",
        log_path=ZH_COLLECTION / "querylog.csv",
        sample=ZH_SAMPLE,
        clusters=8,
    )
    from annotation.demo_tour import demo_tour

    done += demo_tour(
        project=project,
        grade=_zh_grade_rule(),
        graded_queries=ZH_GRADED_QUERIES,
        note="演示：第一轮按规则解决的查询",
    )
    return done


def _zh_grade_rule() -> Callable[[str, Chunk, str], int]:
    """The collection's grade of a chunk for a query (0 where its qrels say nothing), the query
    found by its text with spacing, punctuation and script folded as the import folds them."""
    from annotation.demo_tour import with_disagreement
    from goldsmith.corpus import text_key
    from goldsmith.intake.normalize import normalize_query

    def key(text: str) -> str:
        return text_key(normalize_query(text, chinese=True))

    lines = (ZH_COLLECTION / "queries.jsonl").read_text("utf-8").splitlines()
    ids = {key(row["text"]): row["id"] for row in map(json.loads, lines)}
    qrels: dict[str, dict[str, int]] = {}
    for line in (ZH_COLLECTION / "qrels.txt").read_text("utf-8").splitlines():
        qid, _, chunk_id, grade = line.split()
        qrels.setdefault(qid, {})[chunk_id] = int(grade)

    def grade(query: str, chunk: Chunk, annotator: str) -> int:
        truth = qrels.get(ids.get(key(query), ""), {}).get(chunk.chunk_id, 0)
        return with_disagreement(truth, query, chunk.text, annotator)

    return grade


# --- corpus, query log and sample, through the real import pipeline ------------------------

DEMO_DATA = Path(__file__).resolve().parent / "demo_data"
DEMO_QUERYLOG = DEMO_DATA / "python_questions.csv"
ZH_COLLECTION = DEMO_DATA / "zh_collection"  # written here: see its README
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
            signature = _stable_signature(inspect.signature(member))
        except (TypeError, ValueError):
            signature = "(…)"
        parts.append(f"{name}.{member_name}{signature}\n\n{doc}")
    text = "\n\n".join(p for p in parts if p.strip())
    return {"doc_id": name, "title": f"{name} module", "text": text} if text else None


def _stable_signature(signature: inspect.Signature) -> str:
    """The signature as the documentation shows it, reproducible: a default whose text names a
    live object (``logging.shutdown``'s list of handlers grows as libraries add theirs, object
    addresses differ from run to run) is written ``…``."""
    params = [
        p.replace(default="…") if p.default is not p.empty and "<" in repr(p.default) else p
        for p in signature.parameters.values()
    ]
    return str(signature.replace(parameters=params)).replace("'…'", "…")


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
    with tempfile.TemporaryDirectory() as tmp:
        corpus_file = Path(tmp) / "python-stdlib-docs.jsonl"
        _write_stdlib_corpus(corpus_file)
        return _imports(
            project=project, corpus=corpus_file, log_path=DEMO_QUERYLOG, sample=DEMO_SAMPLE,
            clusters=10, chunking={"chunk_size": 1200, "overlap": 150},
        )  # fmt: skip


def _imports(
    *,
    project: Project,
    corpus: Path,
    log_path: Path,
    sample: dict[str, object],
    clusters: int,
    chunking: dict[str, int] | None = None,
) -> list[str]:
    """The corpus, the query log and a sample of it, each through the real import pipeline and
    each skipped when its input was already imported (same sha256)."""
    done: list[str] = []
    imported = CorpusImport.objects.filter(
        project=project, sha256=file_sha256(corpus), status=ImportStatus.DONE
    ).exists()
    if imported:
        done.append("demo corpus already imported")
    else:
        record = corpus_import(project=project, path=corpus, **(chunking or {}))
        if record.status != ImportStatus.DONE:
            raise RuntimeError(record.error)
        done.append(
            f"demo corpus: {corpus.name}, "
            f"{record.chunks_created} new chunks ({record.chunks_unchanged} unchanged)"
        )
    log = QueryLog.objects.filter(
        project=project, sha256=file_sha256(log_path), status=ImportStatus.DONE
    ).first()
    if log is not None:
        done.append("demo query log already imported")
    else:
        log = query_log_import(project=project, path=log_path, clusters=clusters)
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
        outcome = sample_create(project=project, log=log, **sample)
        done.append(
            f"demo sample: {len(outcome.rows)} queries "
            f"({sample['strategy']} strategy, seed {sample['seed']})"
        )
    project.refresh_from_db()  # the first import chose the project's tokenizer
    return done
