from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config.csp import csp_override
from config.health import healthz
from config.language import LanguageJavaScriptCatalog, language_set
from config.signin import AdminSignInForm, SignInView

# The admin's sign-in says why a throttled sign-in is refused, as the site's does.
admin.site.login_form = AdminSignInForm


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """Browsers ask for /favicon.ico whatever a page links: the site's icon (a static file)."""
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # Browsers ask for /favicon.ico whatever a page links.
    path("favicon.ico", favicon),
    path("login/", SignInView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("language/", language_set, name="language-set"),
    path(
        "jsi18n/<str:language>/",
        LanguageJavaScriptCatalog.as_view(),
        name="javascript-catalog",
    ),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # Swagger UI under the site's Content-Security-Policy: its start-up script comes from
    # /api/docs/?script= (the split view) and our template has no inline style. Its icons are
    # data: images, allowed on this page only (an image cannot run script).
    path(
        "api/docs/",
        csp_override({"img-src": ["'self'", "data:"]})(
            SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="api_docs.html")
        ),
        name="api-docs",
    ),
    path("api/v1/", include("config.api_urls")),
    path("", include("annotation.urls")),
    path("", include("evaluation.urls")),
]
