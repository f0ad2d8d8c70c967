"""Places on annotation's pages where another app shows a panel, so that annotation never
imports that app.

The project page lists the latest evaluation runs and, like the lead dashboard, the drift
alerts; both belong to the evaluation app, which sits above annotation (imports run
evaluation → annotation → goldsmith: docs/design.md, tests/test_the_layers_import_one_way.py).
So annotation names the places (`Place`) and the evaluation app fills them when Django starts
(`EvaluationConfig.ready()` in evaluation/apps.py). A panel is a function of the project and
the caller's membership that returns the HTML to show there ("" for nothing); a place shows
its panels in the order they were added, and a place that no app filled shows nothing.

A short registry rather than signals or template tags that name the other app: the places
are few and fixed, and one call per panel in evaluation/apps.py says what appears where.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from annotation.models import Membership, Project

Panel = Callable[[Project, Membership], str]


class Place(StrEnum):
    PROJECT_TOP = "project-top"  # the project page, above its cards
    PROJECT_CARDS = "project-cards"  # the project page, a card after the golden set's
    DASHBOARD_TOP = "dashboard-top"  # the lead dashboard, above its figures
    DASHBOARD_BOTTOM = "dashboard-bottom"  # the lead dashboard, after the annotators' table


_PANELS: dict[Place, list[Panel]] = {place: [] for place in Place}


def panel_add(place: Place, panel: Panel) -> None:
    """Show `panel` at `place`; a panel added twice is shown once."""
    if panel not in _PANELS[place]:
        _PANELS[place].append(panel)


def panels_at(place: Place, *, project: Project, membership: Membership) -> list[str]:
    """The HTML of the panels at `place` for this caller, empty ones left out. A panel returns
    a rendered template (marked safe, so the page prints it as it is); a plain string would be
    shown escaped, as text."""
    return [html for panel in _PANELS[place] if (html := panel(project, membership))]
