"""A broken query log stops with FILE:LINE: reason (exit 2) and stores no query."""

import json

import pytest
from django.core.management.base import CommandError

from annotation.models import LogQuery, QueryLog

OK = json.dumps({"query": "how to parse json"})
CASES = {
    "broken JSON": ("q.jsonl", f'{OK}\n{{"query": "x"\n', 2, "broken JSON"),
    "missing query": ("q.jsonl", f'{OK}\n{{"text": "x"}}\n', 2, "missing field 'query'"),
    "empty query": ("q.jsonl", f'{OK}\n{{"query": "  "}}\n', 2, "field 'query' is empty"),
    "query not text": ("q.jsonl", f'{OK}\n{{"query": 5}}\n', 2, "must be a string"),
    "bad timestamp": ("q.csv", "query,timestamp\na,2024-01-01\nb,yesterday\n", 3, "not a date"),
    "bad count": ("q.csv", "query,count\na,1\nb,0\n", 3, "'count' must be between 1"),
    "count not a number": ("q.csv", "query,count\na,many\n", 2, "'count' must be an integer"),
    "csv without query column": ("q.csv", "text\nhello\n", 2, "missing field 'query'"),
    "csv ragged": ("q.csv", 'query,category\na,x\n"b,c",y,z\n', 3, "expected 2 fields"),
    "csv duplicate column": ("q.csv", "query,query\na,b\n", 1, "appears twice"),
    "bad feedback": ("q.jsonl", f'{OK}\n{{"query": "x", "feedback": {{"a": 1}}}}\n', 2, "feedback"),
    "empty file": ("q.txt", "\n\n", None, "holds no queries"),
    "nul byte": ("q.txt", "fine\nbad\x00line\n", 2, "NUL"),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_it_reports_the_line_and_stores_nothing(case, personas, write, run_command):
    name, content, line, reason = CASES[case]
    path = write(name, content)
    with pytest.raises(CommandError) as raised:
        run_command("import_querylog", "--project", personas.project.name, path, "--quiet")
    assert raised.value.returncode == 2
    where = f"{path}:{line}: " if line else f"{path}: "
    assert str(raised.value).startswith(where)
    assert reason in str(raised.value)
    assert "\n" not in str(raised.value)
    assert not LogQuery.objects.exists()
    assert QueryLog.objects.get().status == "failed"


def test_it_rejects_bad_utf8(personas, write, run_command):
    path = write("q.txt", b"first query\nsecond \xff query\n")
    with pytest.raises(CommandError, match=r"q.txt:2: not valid UTF-8 \(byte 0xff at column 8\)"):
        run_command("import_querylog", "--project", personas.project.name, path, "--quiet")
    assert not LogQuery.objects.exists()


def test_it_refuses_the_same_file_twice(personas, write, run_command):
    path = write("q.txt", "how to parse json\n")
    run_command("import_querylog", "--project", personas.project.name, path, "--quiet")
    with pytest.raises(CommandError, match="already imported") as raised:
        run_command("import_querylog", "--project", personas.project.name, path, "--quiet")
    assert raised.value.returncode == 2
    assert LogQuery.objects.count() == 1


def test_it_rejects_a_bad_project_pattern(personas, write, run_command):
    path = write("q.txt", "how to parse json\n")
    with pytest.raises(CommandError, match="expected NAME=REGEX"):
        run_command("import_querylog", "--project", personas.project.name, path, "--pattern", "x")
