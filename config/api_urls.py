"""Every API route of /api/v1/, gathered from the apps."""

from django.urls import include, path

urlpatterns = [
    path("", include("annotation.api_urls")),
    path("", include("evaluation.api_urls")),
]
