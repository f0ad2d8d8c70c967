"""API routes of the annotation app, under /api/v1/; each area keeps its routes beside its views."""

from .api import corpus, judging, projects, querylogs, review, sampling

urlpatterns = [
    *projects.urlpatterns,
    *judging.urlpatterns,
    *review.urlpatterns,
    *corpus.urlpatterns,
    *querylogs.urlpatterns,
    *sampling.urlpatterns,
]

from .api import goldsets as _goldsets  # noqa: E402

urlpatterns += _goldsets.urlpatterns
