"""The dashboard's agreement numbers equal `goldsmith agreement` on the exported judgments."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from annotation.services.assignment import queries_assign
from annotation.services.projects import membership_set
from tests.annotation.factories import grade_all, make_chunks, make_query, pool
from tests.conftest import PASSWORD

GRADES = {
    # query index -> annotator -> grades of its 5 candidates
    0: {"bob": [2, 0, 0, 1, 0], "carol": [2, 0, 1, 1, 0], "dave": [1, 0, 0, 1, 0]},
    1: {"bob": [0, 0, 0, 0, 0], "carol": [0, 0, 0, 0, 0], "dave": [0, 0, 0, 0, 1]},
    2: {"bob": [2, 2, 1, 0, 0], "carol": [0, 2, 1, 0, 0], "dave": [2, 1, 1, 0, 0]},
    3: {"bob": [1, 1, 0, 0, 0], "carol": [1, 0, 0, 0, 2], "dave": [1, 1, 0, 0, 0]},
}


def test_the_dashboard_agreement_equals_goldsmith_agreement_on_the_export(
    personas, api_client_for, tmp_path
):
    project = personas.project
    get_user_model().objects.create_user("dave", password=PASSWORD)
    membership_set(project=project, username="dave", role="annotator")
    chunks = make_chunks(project)
    queries = [make_query(project, f"question {i} about python") for i in GRADES]
    candidates = {q.pk: pool(q, chunks) for q in queries}
    queries_assign(project=project, per_query=3)
    for i, query in enumerate(queries):
        for username, grades in GRADES[i].items():
            user = get_user_model().objects.get(username=username)
            grade_all(api_client_for(user), project, candidates[query.pk], grades)

    export = tmp_path / "labels.csv"
    call_command("export_judgments", "--project", project.name, "--output", str(export))
    assert export.read_text().splitlines()[0] == "item,annotator,label,group"
    assert len(export.read_text().splitlines()) == 1 + 4 * 3 * 5
    cli = subprocess.run(
        [sys.executable, "-m", "goldsmith.cli", "agreement", str(export), "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    expected = json.loads(cli.stdout)

    dashboard = api_client_for(personas.alice).get(f"/api/v1/projects/{project.pk}/agreement/")
    got = dashboard.json()
    assert got["alpha_ordinal"] == expected["krippendorff_alpha_ordinal"]
    assert got["raw_agreement"] == expected["percent_agreement"]
    assert got["ac1"] == expected["gwet_ac1"]
    assert got["items"] == expected["n_items"]
    assert got["judgments"] == expected["n_labels"]
    cli_pairs = {(p["annotator_a"], p["annotator_b"]): p for p in expected["pairwise"]}
    assert len(got["pairwise"]) == len(cli_pairs) == 3
    for pair in got["pairwise"]:
        assert pair["kappa"] == cli_pairs[(pair["a"], pair["b"])]["kappa"]
        assert pair["n"] == cli_pairs[(pair["a"], pair["b"])]["n_items"]
    # Per-query figures on the review pages equal the CLI's groups.
    for query in queries:
        review = api_client_for(personas.alice).get(
            f"/api/v1/projects/{project.pk}/review/queries/{query.pk}/"
        )
        group = expected["groups"][str(query.pk)]
        agreement = review.json()["agreement"]
        assert agreement["kappa"] == pytest.approx(group["cohen_kappa"], abs=1e-12)
        assert agreement["raw_agreement"] == pytest.approx(group["percent_agreement"], abs=1e-12)
        assert agreement["ac1"] == pytest.approx(group["gwet_ac1"], abs=1e-12)

    # ...and the page shows them with four decimals, as the CLI's table does.
    client = Client()
    assert client.login(username="alice", password=PASSWORD)
    html = client.get(f"/projects/{project.pk}/dashboard/").content.decode()
    assert f'data-metric="alpha_ordinal">{expected["krippendorff_alpha_ordinal"]:.4f}<' in html
    assert f'data-metric="ac1">{expected["gwet_ac1"]:.4f}<' in html
