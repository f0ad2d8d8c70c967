"""Shapes the evaluation API shares: a request's validated input, and the ``{"detail"}`` refusal
of what is not an endpoint's setting (an upload, a run)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request

from sitewide.i18n import localize


def validated(serializer: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    """The request's data as `serializer` takes it (else DRF's 400 of its errors)."""
    data = serializer(data=request.data)
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


def refusal(error: Exception) -> serializers.ValidationError:
    return serializers.ValidationError({"detail": localize(error)})
