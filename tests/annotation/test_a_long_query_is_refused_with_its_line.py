"""A query longer than GOLDSMITH_QUERY_MAX_CHARS (2,000 by default) refuses its query log with
FILE:LINE: field, and nothing of the file is stored (a query log is all or nothing). Below
the limit, any length and script fits the unique indexes: they hold a hash of the normalised
text, so a long query no longer fails an import (or a sample) with "internal error
(ProgramLimitExceeded)" from PostgreSQL's btree limit (~2,700 bytes per entry)."""

import json
import random

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management.base import CommandError
from django.db import IntegrityError, transaction

from annotation.models import LogQuery, Query, QueryLog
from annotation.services.querylogs import query_log_import
from annotation.services.sampling import sample_create
from tests.conftest import wait_for


def words(n_chars: int, seed: int, alphabet: str = "abcdefghijklmnopqrstuvwxyz") -> str:
    """`n_chars` random letters in words: text that does not compress (as a pasted document
    does not), so an index entry holding it is as long as the text."""
    rnd = random.Random(seed)
    chars = [rnd.choice(alphabet) for _ in range(n_chars)]
    for i in range(1, n_chars - 1):
        if chars[i - 1] != " " and rnd.random() < 0.15:
            chars[i] = " "
    return "".join(chars)


def log_lines(*queries: str) -> str:
    return "".join(json.dumps({"query": q}) + "\n" for q in queries)


@pytest.mark.parametrize("length", [3_000, 100_000])
def test_an_over_long_query_refuses_the_file_with_its_line(length, personas, write, run_command):
    path = write("log.jsonl", log_lines("how to parse json", "zip a folder", words(length, 1)))
    with pytest.raises(CommandError) as raised:
        run_command("import_querylog", "--project", personas.project.name, path, "--quiet")
    assert raised.value.returncode == 2
    assert str(raised.value) == (
        f"{path}:3: field 'query' is {length:,} characters long; a query may have at most "
        "2,000 (GOLDSMITH_QUERY_MAX_CHARS)"
    )
    assert not LogQuery.objects.exists()
    assert QueryLog.objects.get().status == "failed"


def test_a_plain_text_log_names_the_line_too(personas, write, run_command):
    path = write("log.txt", f"how to parse json\n\n{words(3_000, 2)}\n")
    with pytest.raises(CommandError, match=r"log.txt:3: the query is 3,000 characters long"):
        run_command("import_querylog", "--project", personas.project.name, path, "--quiet")
    assert not LogQuery.objects.exists()


def test_a_csv_log_names_the_line_where_the_record_starts(personas, write, run_command):
    long = words(2_500, 3)
    path = write("log.csv", f'query,category\nshort,a\n"two\nlines",b\n"{long}",c\n')
    with pytest.raises(CommandError, match=r"log.csv:5: field 'query' is 2,500 characters"):
        run_command("import_querylog", "--project", personas.project.name, path, "--quiet")


def test_a_query_at_the_limit_is_imported_and_sampled_in_any_script(personas, tmp_path):
    """2,000 CJK characters are 6,000 bytes of UTF-8: more than a btree entry holds."""
    latin = words(2_000, 4)
    cjk = words(2_000, 5, alphabet="".join(map(chr, range(0x4E00, 0x9FA5))))
    path = tmp_path / "log.jsonl"
    path.write_text(log_lines(latin, cjk, latin.upper(), "short one"), encoding="utf-8")
    log = query_log_import(project=personas.project, path=path)
    assert log.status == "done", log.error
    assert (log.records, log.distinct) == (4, 3)  # the upper-case copy is the same query
    assert LogQuery.objects.get(log=log, text=latin).count == 2
    sample_create(project=personas.project, log=log, n=3, strategy="uniform", seed=1)
    assert {len(q.text) for q in Query.objects.all()} == {2_000, 9}


@pytest.mark.parametrize("length", [3_000, 100_000])
def test_with_a_higher_limit_a_long_query_fits_the_unique_indexes(
    length, personas, tmp_path, settings
):
    settings.GOLDSMITH_QUERY_MAX_CHARS = 200_000
    long = words(length, 6)
    path = tmp_path / "log.jsonl"
    path.write_text(log_lines(long, "short one", f"  {long.upper()} "), encoding="utf-8")
    log = query_log_import(project=personas.project, path=path)
    assert log.status == "done", log.error
    assert LogQuery.objects.get(log=log, text=long).count == 2
    sample_create(project=personas.project, log=log, n=2, strategy="uniform", seed=1)
    assert Query.objects.filter(text=long).exists()


def test_the_indexes_still_refuse_the_same_normalised_text_twice(personas, tmp_path):
    path = tmp_path / "log.txt"
    path.write_text("one\n")
    log = query_log_import(project=personas.project, path=path)
    with pytest.raises(IntegrityError), transaction.atomic():
        LogQuery.objects.create(log=log, normalized="one", text="ONE")
    project = personas.project
    Query.objects.create(project=project, text="a", normalized="a")
    with pytest.raises(IntegrityError), transaction.atomic():
        Query.objects.create(project=project, text="A", normalized="a")


@pytest.mark.slow
def test_a_real_worker_fails_the_upload_with_the_line(
    personas, api_client_for, celery_worker_process
):
    response = api_client_for(personas.alice).post(
        f"/api/v1/projects/{personas.project.pk}/querylogs/",
        {"file": SimpleUploadedFile("prod.jsonl", log_lines("a", "b", words(3_000, 7)).encode())},
        format="multipart",
    )
    assert response.status_code == 202
    log_id = response.json()["id"]
    log = wait_for(
        lambda: QueryLog.objects.filter(pk=log_id, status__in=["done", "failed"]).first(),
        timeout=60,
        message=f"the import to finish; worker log:\n{celery_worker_process.output()[-2000:]}",
    )
    assert log.status == "failed"
    assert log.error.startswith("prod.jsonl:3: field 'query' is 3,000 characters long")
    assert not LogQuery.objects.exists()
