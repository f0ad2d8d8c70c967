"""API routes of the annotation app, under /api/v1/; each area keeps its routes beside its views."""

from .api import projects

urlpatterns = [
    *projects.urlpatterns,
]
