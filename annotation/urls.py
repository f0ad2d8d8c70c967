"""Browser pages of the annotation app; each area keeps its routes beside its views."""

from .views import annotate, corpus, projects, querylogs, review, sampling

urlpatterns = [
    *projects.urlpatterns,
    *annotate.urlpatterns,
    *review.urlpatterns,
    *corpus.urlpatterns,
    *querylogs.urlpatterns,
    *sampling.urlpatterns,
]

from .views import goldsets as _goldsets  # noqa: E402

urlpatterns += _goldsets.urlpatterns
