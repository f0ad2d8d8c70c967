"""Browser pages of the annotation app; each area keeps its routes beside its views."""

from annotation.views import (
    annotate,
    corpus,
    formats,
    goldsets,
    projects,
    querylogs,
    review,
    sampling,
)

urlpatterns = [
    *projects.urlpatterns,
    *annotate.urlpatterns,
    *review.urlpatterns,
    *corpus.urlpatterns,
    *querylogs.urlpatterns,
    *sampling.urlpatterns,
    *goldsets.urlpatterns,
    *formats.urlpatterns,
]
