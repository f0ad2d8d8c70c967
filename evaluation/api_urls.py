"""API routes of the evaluation app, under /api/v1/."""

from evaluation.api import answer_judges, compare, judges, retrievers, runs

urlpatterns = [
    *retrievers.urlpatterns,
    *runs.urlpatterns,
    *compare.urlpatterns,
    *judges.urlpatterns,
    *answer_judges.urlpatterns,
]
