"""The sign-in page: Django's, saying why a throttled sign-in is refused (429, Retry-After)."""

from __future__ import annotations

from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.core.exceptions import ValidationError


class ThrottledFormMixin:
    """Shows the throttle's reason instead of "wrong username or password" when the
    authentication backend refused the sign-in before checking the password."""

    def get_invalid_login_error(self) -> ValidationError:
        refusal = getattr(self.request, "signin_refusal", None)
        if refusal is not None:
            return ValidationError(refusal.reason, code="throttled")
        # A mixin: AuthenticationForm, after it in the class's bases, defines the method.
        return super().get_invalid_login_error()  # type: ignore[misc]  # a mixin: the form it is mixed into defines the method


class SignInForm(ThrottledFormMixin, AuthenticationForm):
    pass


class AdminSignInForm(ThrottledFormMixin, AdminAuthenticationForm):
    pass


class SignInView(LoginView):
    authentication_form = SignInForm

    def form_invalid(self, form):
        response = super().form_invalid(form)
        refusal = getattr(self.request, "signin_refusal", None)
        if refusal is not None:
            response.status_code = 429
            response["Retry-After"] = str(refusal.retry_after)
        return response
