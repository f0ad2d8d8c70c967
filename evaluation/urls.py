"""Browser pages of the evaluation app."""

urlpatterns: list = []
