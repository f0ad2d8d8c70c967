"""Shapes the evaluation API shares."""

from __future__ import annotations

from rest_framework import serializers

from annotation.i18n import localize


def refusal(error: Exception) -> serializers.ValidationError:
    return serializers.ValidationError({"detail": localize(error)})
