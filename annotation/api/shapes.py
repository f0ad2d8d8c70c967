"""Shapes the API schema documents in many places: a refusal, a page of a list."""

from __future__ import annotations

from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

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
