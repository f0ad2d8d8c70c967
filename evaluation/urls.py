"""Browser pages of the evaluation app."""

from evaluation.views import urlpatterns

__all__ = ["urlpatterns"]
