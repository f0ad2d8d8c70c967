"""The Cranfield collection (../shared/data/cranfield) imports through the importers:
1,400 documents and 225 queries."""

import json
from collections.abc import Iterable
from pathlib import Path

from annotation.models import Document, LogQuery
from goldsmith.formats.beir import cranfield_documents, cranfield_queries
from tests.conftest import require_shared_data


def write_jsonl(records: Iterable[dict[str, object]], out: Path) -> int:
    with out.open("w", encoding="utf-8") as handle:
        lines = [json.dumps(record, ensure_ascii=False) + "\n" for record in records]
        handle.writelines(lines)
    return len(lines)


def test_cranfield_imports_1400_documents_and_225_queries(personas, tmp_path, run_command):
    raw = require_shared_data("cranfield")
    docs = tmp_path / "cranfield-docs.jsonl"
    queries = tmp_path / "cranfield-queries.jsonl"
    assert write_jsonl(cranfield_documents(raw / "cran.all.1400"), docs) == 1400
    assert write_jsonl(cranfield_queries(raw / "cran.qry"), queries) == 225

    name = personas.project.name
    out = run_command("import_corpus", "--project", name, docs, "--quiet")
    assert "(add or update, documents, 1400 records)" in out
    assert Document.objects.filter(project=personas.project).count() == 1400
    # The empty documents 471 and 995 are kept (995 is judged for query 125).
    assert Document.objects.get(doc_id="995").chunks.get().text == ""
    first = Document.objects.get(doc_id="1")
    assert first.title.startswith("experimental investigation of the aerodynamics")

    out = run_command("import_querylog", "--project", name, queries, "--quiet", "--threshold", 1)
    assert "225 records" in out
    assert LogQuery.objects.filter(log__project=personas.project).count() == 225
    assert LogQuery.objects.get(rank=0).log.scrubbed == {}
