"""API routes of the evaluation app, under /api/v1/."""

urlpatterns: list = []
