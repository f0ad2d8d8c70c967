"""`manage.py sample_queries`: a dry run prints the queries with stratum and weight and stores
nothing; bad input exits 2 with a one-line reason."""

import json

import pytest
from django.core.management.base import CommandError

from annotation.models import Query, Sample


@pytest.fixture
def imported(personas, write, run_command):
    lines = [
        json.dumps({"query": f"how to use module {i}", "category": "abc"[i % 3], "count": i + 1})
        for i in range(30)
    ]
    path = write("log.jsonl", "\n".join(lines) + "\n")
    run_command("import_querylog", "--project", personas.project.name, path, "--quiet")
    return personas.project


def test_a_json_dry_run_prints_strata_and_weights_and_stores_nothing(imported, run_command):
    args = [
        "sample_queries",
        "--project",
        imported.name,
        "--n",
        6,
        "--strategy",
        "stratified",
        "--by",
        "category",
        "--allocation",
        "equal",
        "--seed",
        4,
        "--dry-run",
        "--format",
        "json",
    ]
    payload = json.loads(run_command(*args))
    assert payload["dry_run"] is True and payload["sample_id"] is None
    assert len(payload["queries"]) == 6
    assert {q["stratum"] for q in payload["queries"]} == {"a", "b", "c"}
    assert all(q["weight"] > 0 for q in payload["queries"])
    assert payload["provenance"]["seed"] == 4
    assert payload["provenance"]["log_sha256"]
    assert [s["allocated"] for s in payload["provenance"]["strata"]] == [2, 2, 2]
    assert not Sample.objects.exists() and not Query.objects.exists()
    assert json.loads(run_command(*args)) == payload  # reproducible


def test_without_dry_run_it_stores_the_sample(imported, run_command):
    out = run_command(
        "sample_queries",
        "--project",
        imported.name,
        "--n",
        5,
        "--strategy",
        "frequency",
        "--seed",
        1,
    )
    assert out.startswith("Sampled 5 of 30 queries")
    assert Query.objects.filter(project=imported).count() == 5


@pytest.mark.parametrize(
    "args, reason",
    [
        (["--n", 5, "--strategy", "stratified", "--seed", 1], "needs a field to stratify by"),
        (["--n", 0, "--strategy", "uniform", "--seed", 1], "n must be at least 1"),
        (["--n", 5, "--strategy", "uniform", "--by", "category", "--seed", 1], "--by goes with"),
        (["--n", 5, "--strategy", "uniform", "--seed", 1, "--log", 999], "no imported query log"),
    ],
)
def test_bad_input_exits_2_with_one_line(imported, run_command, args, reason):
    with pytest.raises(CommandError) as raised:
        run_command("sample_queries", "--project", imported.name, *args)
    assert raised.value.returncode == 2
    assert reason in str(raised.value) and "\n" not in str(raised.value)


def test_an_unknown_project_exits_2(db, run_command):
    with pytest.raises(CommandError, match="no project named") as raised:
        run_command(
            "sample_queries", "--project", "Nope", "--n", 1, "--strategy", "uniform", "--seed", 1
        )
    assert raised.value.returncode == 2
