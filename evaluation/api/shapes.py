"""Shapes the evaluation API shares: a request's validated input, a row in an output
serializer's shape, and the ``{"detail"}`` refusal of what is not an endpoint's setting (an
upload, a run)."""

from __future__ import annotations

from functools import cache
from typing import Any

from rest_framework import serializers
from rest_framework.request import Request

from annotation.api import shapes as annotation_shapes
from sitewide.i18n import localize


def validated(serializer: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    """The request's data as `serializer` takes it (else DRF's 400 of its errors), as
    annotation's API reads its input."""
    return dict(annotation_shapes.validated(serializer, request.data))


def refusal(error: Exception) -> serializers.ValidationError:
    return serializers.ValidationError({"detail": localize(error)})


@cache
def _names(serializer: type[serializers.Serializer]) -> tuple[str, ...]:
    return tuple(serializer().fields)


def output_of(serializer: type[serializers.Serializer], row: Any, **given: Any) -> dict[str, Any]:
    """`row` in the shape `serializer` documents, in its order: each field read from the
    attribute of that name, but those `given` (what is computed or named otherwise; one the
    serializer does not list comes last)."""
    names = _names(serializer)
    shown = {name: given[name] if name in given else getattr(row, name) for name in names}
    return shown | {name: value for name, value in given.items() if name not in names}
