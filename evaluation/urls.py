"""Browser pages of the evaluation app."""

from .views import urlpatterns

__all__ = ["urlpatterns"]
