"""The project page lists the latest runs and the drift alerts, and the lead dashboard the drift
alerts: the evaluation app puts them on annotation's pages (annotation/views/panels.py), which
annotation renders without importing it."""

from __future__ import annotations

import pytest

from annotation.views.panels import Place, panels_at
from evaluation.models import DriftAlert
from evaluation.services.runs import baseline_set
from tests.conftest import PASSWORD
from tests.evaluation.conftest import make_golden
from tests.evaluation.run_files import run_with

MESSAGE = "mean Recall@5 dropped by 0.50 (limit 0.05)"


def page(client, user, url: str) -> str:
    assert client.login(username=user.username, password=PASSWORD)
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.django_db
def test_the_pages_show_runs_and_alerts(personas, tmp_path, client):
    project = personas.project
    golden = make_golden(project, n=4)
    good = run_with(project, golden.version, [1.0] * 4, tmp_path)
    baseline_set(run=good)
    worse = run_with(project, golden.version, [0.5] * 4, tmp_path)
    DriftAlert.objects.update_or_create(
        run=worse,
        defaults={
            "baseline_run": good,
            "fired": [{"rule": "max_recall_drop", "message": MESSAGE}],
            "changed": ["corpus"],
        },
    )
    home = page(client, personas.bob, f"/projects/{project.pk}/")
    assert "Latest evaluation runs" in home
    assert f"#{worse.pk} files" in home and f"#{good.pk} files" in home
    assert "Drift alerts" in home and MESSAGE in home
    assert home.index("Drift alerts") < home.index("Where the golden set stands")
    assert home.index("Where the golden set stands") < home.index("Latest evaluation runs")
    dashboard = page(client, personas.alice, f"/projects/{project.pk}/dashboard/")
    assert "Drift alerts" in dashboard and MESSAGE in dashboard
    assert f'href="/projects/{project.pk}/runs/{worse.pk}/"' in dashboard


@pytest.mark.django_db
def test_with_no_run_the_project_page_says_so_and_shows_no_alert(personas, client):
    home = page(client, personas.victor, f"/projects/{personas.project.pk}/")
    assert "No run yet." in home
    assert "Drift alerts" not in home
    membership = personas.project.memberships.get(user=personas.alice)
    assert panels_at(Place.DASHBOARD_TOP, project=personas.project, membership=membership) == []
