"""API routes of the evaluation app, under /api/v1/."""

from evaluation.api import urlpatterns

__all__ = ["urlpatterns"]
