"""The site's URLs plus one view that fails, for the 500 page's test."""

from django.urls import path

from config.urls import urlpatterns as site_urlpatterns


def crash(request):
    raise RuntimeError("a bug")


urlpatterns = [path("crash/", crash), *site_urlpatterns]
