"""What the evaluation app shows on annotation's pages (annotation/views/panels.py): drift
alerts on the project page and the lead dashboard, the latest runs on the project page.
evaluation/apps.py puts them in their places when Django starts."""

from __future__ import annotations

from django.template.loader import render_to_string

from annotation.models import Membership, Project
from evaluation.selectors import recent_alerts, runs_of

SHOWN = 5  # alerts and runs a panel lists; the runs page has them all


def drift_alerts(project: Project, membership: Membership) -> str:
    alerts = list(recent_alerts(project=project, limit=SHOWN))
    if not alerts:
        return ""
    return render_to_string("evaluation/_alerts.html", {"project": project, "alerts": alerts})


def latest_runs(project: Project, membership: Membership) -> str:
    runs = list(runs_of(project=project)[:SHOWN])
    return render_to_string(
        "evaluation/_latest_runs.html", {"project": project, "latest_runs": runs}
    )
