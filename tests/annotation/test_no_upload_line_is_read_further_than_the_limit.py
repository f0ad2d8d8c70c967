"""Corpus and query-log files are read a line at a time, and no line further than
GOLDSMITH_UPLOAD_MAX_LINE_BYTES (16 MiB by default; newline not counted): a longer line refuses
the file at its number, nothing is stored, and the worker never holds a whole 1 GiB line."""

import pytest
from django.core.management.base import CommandError

from annotation.models import Chunk, CorpusImport, LogQuery, QueryLog

LIMIT = 1024


@pytest.fixture
def small_lines(settings):
    settings.GOLDSMITH_UPLOAD_MAX_LINE_BYTES = LIMIT
    settings.GOLDSMITH_QUERY_MAX_CHARS = 10 * LIMIT  # the line limit is what is tested here


def refused(line: int) -> str:
    return f":{line}: the line is longer than 1,024 bytes (GOLDSMITH_UPLOAD_MAX_LINE_BYTES)"


@pytest.mark.parametrize("name", ["log.txt", "log.jsonl", "log.csv"])
def test_a_query_log_line_over_the_limit_refuses_the_log(
    name, small_lines, personas, write, run_command
):
    query = "é" * LIMIT  # 2,048 bytes of UTF-8 in 1,024 characters: bytes are counted
    body = {
        "log.txt": f"first\n{query}\n",
        "log.jsonl": f'{{"query": "first"}}\n{{"query": "{query}"}}\n',
        "log.csv": f"query\nfirst\n{query}\n",
    }[name]
    line = 3 if name == "log.csv" else 2
    path = write(name, body)
    with pytest.raises(CommandError) as raised:
        run_command("import_querylog", "--project", personas.project.name, path, "--quiet")
    assert str(raised.value) == f"{path}{refused(line)}"
    assert not LogQuery.objects.exists()
    assert QueryLog.objects.get().status == "failed"


def test_a_corpus_line_over_the_limit_refuses_the_corpus(small_lines, personas, write, run_command):
    good = '{"id": "c1", "doc_id": "d1", "text": "short"}\n'
    long = '{"id": "c2", "doc_id": "d1", "text": "' + "x" * LIMIT + '"}\n'
    path = write("c.jsonl", good + good.replace("c1", "c3") + long)
    with pytest.raises(CommandError) as raised:
        run_command("import_corpus", "--project", personas.project.name, path, "--quiet")
    assert str(raised.value) == f"{path}{refused(3)}"
    assert not Chunk.objects.exists()
    assert CorpusImport.objects.get().status == "failed"


def test_a_line_of_exactly_the_limit_is_read(small_lines, personas, write, run_command):
    at_limit = "q" * LIMIT
    path = write("log.txt", f"{at_limit}\nsecond\n{at_limit}")  # the last without a newline
    run_command("import_querylog", "--project", personas.project.name, path, "--quiet")
    log = QueryLog.objects.get()
    assert (log.status, log.lines, log.distinct) == ("done", 3, 2)
