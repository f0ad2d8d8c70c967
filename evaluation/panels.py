"""What the evaluation app shows on annotation's pages (annotation/views/panels.py): drift
alerts on the project page and the lead dashboard, the latest runs on the project page, the
machine judges' agreement with people at the foot of the dashboard.
evaluation/apps.py puts them in their places when Django starts."""

from __future__ import annotations

from django.template.loader import render_to_string

from annotation.models import Membership, Project
from annotation.permissions import Action, role_allows
from evaluation.selectors.runs import recent_alerts, runs_of
from evaluation.services.judges import judge_agreement_shown

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


def machine_judges(project: Project, membership: Membership) -> str:
    """The machine judges' kappa against each annotator and the final grades, beside the
    annotators' own kappa against the final grades (leads only)."""
    if not role_allows(membership.role, Action.LEAD):
        return ""
    shown = judge_agreement_shown(project=project)
    return render_to_string(
        "evaluation/_judges_agreement.html",
        {"project": project, "agreement": shown.figures, "shown": shown, "on_dashboard": True},
    )
