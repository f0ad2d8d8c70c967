"""API routes of the evaluation app, under /api/v1/."""

from .api import urlpatterns

__all__ = ["urlpatterns"]
