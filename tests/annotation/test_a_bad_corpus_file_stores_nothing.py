"""A broken line, a missing field, a duplicate id or bad encoding stops a corpus import with
FILE:LINE: reason (exit 2), and nothing of that file is stored."""

import json

import pytest
from django.core.management.base import CommandError

from annotation.models import Chunk, CorpusImport, Document


def j(**fields):
    return json.dumps(fields)


GOOD = j(id="c1", doc_id="d1", text="alpha")
CASES = {
    "broken JSON": ("c.jsonl", f'{GOOD}\n{{"id": "c2", "doc_id": \n', 2, "broken JSON"),
    "missing text": ("c.jsonl", f"{GOOD}\n{j(id='c2', doc_id='d1')}\n", 2, "missing field 'text'"),
    "missing doc_id": ("c.jsonl", f"{GOOD}\n{j(id='c2', text='x')}\n", 2, "field 'doc_id'"),
    "duplicate id": ("c.jsonl", f"{GOOD}\n{GOOD}\n", 2, "duplicate chunk id 'c1'"),
    "not an object": ("c.jsonl", f"{GOOD}\n[1, 2]\n", 2, "expected a JSON object"),
    "bad offsets": (
        "c.jsonl",
        f"{GOOD}\n{j(id='c2', doc_id='d1', text='x', start=5, end=2)}\n",
        2,
        "'end' (2) is before 'start' (5)",
    ),
    "mixed kinds": ("c.jsonl", f"{GOOD}\n{j(doc_id='d2', text='x')}\n", 2, "mixes chunks"),
    "csv short row": ("c.csv", "id,doc_id,text\nc1,d1,alpha\nc2,d1\n", 3, "expected 3 fields"),
    "csv duplicate": ("c.csv", "id,doc_id,text\nc1,d1,a\nc2,d,b\nc1,d,c\n", 4, "duplicate chunk"),
    "csv bad metadata": ("c.csv", 'id,doc_id,text,metadata\nc1,d1,a,"[1]"\n', 2, "metadata"),
    "document without id": (
        "d.jsonl",
        f"{j(doc_id='d1', text='x')}\n{j(title='t', text='y')}\n",
        2,
        "missing field 'doc_id'",
    ),
    "bad position": (
        "c.jsonl",
        f"{GOOD}\n{j(id='c2', doc_id='d1', text='x', position='two')}\n",
        2,
        "'position' must be an integer",
    ),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_it_reports_the_line_and_stores_nothing(case, personas, write, run_command):
    name, content, line, reason = CASES[case]
    path = write(name, content)
    with pytest.raises(CommandError) as raised:
        run_command("import_corpus", "--project", personas.project.name, path, "--quiet")
    assert raised.value.returncode == 2
    assert str(raised.value).startswith(f"{path}:{line}: ")
    assert reason in str(raised.value)
    assert not Document.objects.exists()
    assert not Chunk.objects.exists()
    assert CorpusImport.objects.get().status == "failed"


def test_it_rejects_bad_utf8_with_its_line(personas, write, run_command):
    path = write(
        "c.jsonl", (GOOD + "\n").encode() + b'{"id": "c2", "doc_id": "d", "text": "caf\xe9"}\n'
    )
    with pytest.raises(CommandError) as raised:
        run_command("import_corpus", "--project", personas.project.name, path, "--quiet")
    assert str(raised.value) == f"{path}:2: not valid UTF-8 (byte 0xe9 at column 41)"
    assert not Chunk.objects.exists()


def test_a_failure_after_many_good_batches_still_stores_nothing(personas, write, run_command):
    lines = [
        json.dumps({"id": f"c{i}", "doc_id": f"d{i % 50}", "text": f"t {i}"}) for i in range(5000)
    ]
    path = write(
        "big.jsonl", "\n".join(lines) + "\n" + json.dumps({"id": "c7", "doc_id": "d", "text": "x"})
    )
    with pytest.raises(CommandError, match=r"big.jsonl:5001: duplicate chunk id 'c7'"):
        run_command("import_corpus", "--project", personas.project.name, path, "--quiet")
    assert not Chunk.objects.exists() and not Document.objects.exists()


def test_it_rejects_an_unknown_file_type_and_project(personas, write, run_command):
    path = write("c.xml", "<x/>")
    with pytest.raises(CommandError, match="unknown file type") as raised:
        run_command("import_corpus", "--project", personas.project.name, path)
    assert raised.value.returncode == 2
    with pytest.raises(CommandError, match="no project named 'Nope'"):
        run_command("import_corpus", "--project", "Nope", path)


def test_it_imports_a_good_file(personas, write, run_command):
    path = write(
        "c.csv",
        "id,doc_id,text,title,position,start,end,metadata\n"
        'c1,d1,alpha,T,0,0,5,"{""a"": 1}"\n'
        "c2,d1,beta,T,1,6,10,\n",
    )
    out = run_command("import_corpus", "--project", personas.project.name, path, "--quiet")
    assert "2 chunks new" in out
    chunk = Chunk.objects.get(chunk_id="c1")
    assert (chunk.start, chunk.end, chunk.metadata, chunk.document.title) == (0, 5, {"a": 1}, "T")
