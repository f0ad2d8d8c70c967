"""Every command that takes `--project NAME|ID` finds the project one way
(annotation/management/commands/_args.py): by name, else by id, and an unknown project exits
2 with the same one-line reason."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

# Each command with what it needs besides --project; none of it is read before the project.
COMMANDS = [
    ("assign_queries", []),
    ("build_pools", []),
    ("export_judgments", []),
    ("import_corpus", ["corpus.jsonl"]),
    ("import_querylog", ["log.csv"]),
    ("sample_queries", ["--n", "5", "--strategy", "uniform", "--seed", "1"]),
    ("freeze", []),
    ("export_goldset", ["--version", "v1", "--format", "jsonl", "-o", "-"]),
    ("import_goldset", ["--format", "jsonl", "golden.jsonl"]),
    ("diff_goldset", ["v1", "v2"]),
    ("add_retriever", ["--name", "bm25", "--kind", "bm25"]),
    ("run_evaluation", ["--retriever", "bm25"]),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("command", "rest"), COMMANDS, ids=[c for c, _ in COMMANDS])
def test_an_unknown_project_exits_2_with_the_same_reason(command, rest):
    with pytest.raises(CommandError) as raised:
        call_command(command, "--project", "Nope", *rest)
    assert str(raised.value) == "no project named 'Nope'"
    assert raised.value.returncode == 2


def test_a_project_is_found_by_its_name_or_its_id(personas, capsys):
    project = personas.project
    for value in (project.name, str(project.pk)):
        call_command("export_judgments", "--project", value)
        assert capsys.readouterr().out.startswith("item,annotator,label,group")
