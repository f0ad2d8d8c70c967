from django.apps import AppConfig


class EvaluationConfig(AppConfig):
    name = "evaluation"
    verbose_name = "Evaluation"

    def ready(self) -> None:
        """Show the evaluation app's panels on annotation's pages: annotation does not import
        this app (annotation/views/panels.py says why and how)."""
        from annotation.views.panels import Place, panel_add
        from evaluation import panels

        panel_add(Place.PROJECT_TOP, panels.drift_alerts)
        panel_add(Place.PROJECT_CARDS, panels.latest_runs)
        panel_add(Place.DASHBOARD_TOP, panels.drift_alerts)
        panel_add(Place.DASHBOARD_BOTTOM, panels.machine_judges)
