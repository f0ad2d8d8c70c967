"""Browser pages of the evaluation app."""

from evaluation.views import answer_judges, compare, judges, retrievers, runs, settings

urlpatterns = [
    *retrievers.urlpatterns,
    *runs.urlpatterns,
    *compare.urlpatterns,
    *settings.urlpatterns,
    *judges.urlpatterns,
    *answer_judges.urlpatterns,
]
