"""API routes of the annotation app, under /api/v1/; each area keeps its routes beside its views."""

from annotation.api import (
    answers,
    corpus,
    goldsets,
    judging,
    projects,
    querylogs,
    review,
    sampling,
    stopping,
)

urlpatterns = [
    *projects.urlpatterns,
    *judging.urlpatterns,
    *review.urlpatterns,
    *corpus.urlpatterns,
    *querylogs.urlpatterns,
    *sampling.urlpatterns,
    *goldsets.urlpatterns,
    *answers.urlpatterns,
    *stopping.urlpatterns,
]
