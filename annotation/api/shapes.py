"""Shapes the API schema documents in many places (a refusal, a page of a list), and the
refusals every view makes the same way: a field's 400, a 409."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers, status
from rest_framework.response import Response

from sitewide.i18n import localize

# The largest integer both databases store (a signed 64-bit column). An id or a seed beyond it
# is refused as bad input instead of failing in the database driver.
STORED_INT_MAX = 2**63 - 1


class RefusalOutput(serializers.Serializer):
    detail = serializers.CharField(
        help_text=gettext_lazy("Why the request was refused, in a sentence.")
    )


PAGE_PARAMETERS = [
    OpenApiParameter("limit", int, description="page size (default 100)"),
    OpenApiParameter("offset", int, description="items to skip"),
]


def page_of(item: type[serializers.Serializer]) -> type[serializers.Serializer]:
    """The body of a page from LimitOffsetPagination: count, next, previous, results."""
    return type(
        f"Paged{item.__name__}",
        (serializers.Serializer,),
        {
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": item(many=True),
            "__module__": item.__module__,
        },
    )


def validated(serializer: type[serializers.Serializer], data: Any) -> Any:
    """What `serializer` makes of `data` (a request's body or query string); a 400 naming each
    bad field when it is refused."""
    given = serializer(data=data)
    given.is_valid(raise_exception=True)
    return given.validated_data


def invalid(field: str, error: object) -> serializers.ValidationError:
    """The 400 of a field the service refused: `{field: [why]}`, in the reader's language."""
    return serializers.ValidationError({field: [localize(error)]})


def conflict(error: object, **extra: object) -> Response:
    """The 409 of a request the project's state refuses: `{"detail": why, **extra}`."""
    return Response({"detail": localize(error), **extra}, status=status.HTTP_409_CONFLICT)
