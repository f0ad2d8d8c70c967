"""Browser pages of the annotation app; each area keeps its routes beside its views."""

from .views import projects

urlpatterns = [
    *projects.urlpatterns,
]
